import { isAbortError } from '../errors.js';
import { type ProviderCallOptions, SPECIFICATION_VERSION } from '../providers/common.js';
import type { BatchTTS, StreamingTTS, SynthesizedAudio, TTSStream } from '../providers/tts.js';
import { Channel } from '../stream/channel.js';
import { SentenceTokenizer, type SentenceStream } from './sentence-tokenizer.js';
import { type LinkedController, linkedController } from '../provider-utils/abort.js';
import { toAPIError } from './shared.js';

export interface TTSStreamAdapterOptions {
  /** How pushed text is cut into requests. Default: a `SentenceTokenizer` with its defaults. */
  tokenizer?: SentenceTokenizer;
  /**
   * Sentences synthesized ahead of the one whose audio is being emitted, so the next one is ready when
   * the current one ends. Default 1; 0 synthesizes strictly one at a time.
   */
  prefetch?: number;
  /** Audio chunks buffered per sentence before its synthesis waits for the consumer. Default 64. */
  chunkBuffer?: number;
}

/**
 * Streaming TTS over a provider that only synthesizes whole texts: pushed text is cut into sentences,
 * each is synthesized with `synthesize()`, and the audio comes out in order.
 */
export class TTSStreamAdapter implements StreamingTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels: number;
  private readonly tokenizer: SentenceTokenizer;

  constructor(
    readonly tts: BatchTTS,
    private readonly options: TTSStreamAdapterOptions = {},
  ) {
    this.label = tts.label;
    this.sampleRate = tts.sampleRate;
    this.numChannels = tts.numChannels;
    this.tokenizer = options.tokenizer ?? new SentenceTokenizer();
    const prefetch = options.prefetch ?? 1;
    if (!Number.isInteger(prefetch) || prefetch < 0) {
      throw new RangeError(`prefetch must be a non-negative integer, got ${prefetch}`);
    }
  }

  synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio> {
    return this.tts.synthesize(text, options);
  }

  stream(options: ProviderCallOptions = {}): TTSStream {
    return new AdaptedTTSStream(this.tts, this.tokenizer, this.options, options);
  }

  async close(): Promise<void> {
    await this.tts.close?.();
  }
}

interface Sentence {
  text: string;
  audio?: Channel<SynthesizedAudio>;
}

class AdaptedTTSStream implements TTSStream {
  private readonly controller: LinkedController;
  /** Sentences in output order; the first ones within the window are being synthesized. */
  private readonly sentences: Sentence[] = [];
  private readonly window: number;
  private running = 0;
  private splitter: SentenceStream;
  private inputEnded = false;
  private wake: (() => void) | undefined;
  private readonly output: AsyncGenerator<SynthesizedAudio>;

  constructor(
    private readonly tts: BatchTTS,
    private readonly tokenizer: SentenceTokenizer,
    private readonly options: TTSStreamAdapterOptions,
    private readonly callOptions: ProviderCallOptions,
  ) {
    this.controller = linkedController(callOptions.signal);
    this.window = 1 + (options.prefetch ?? 1);
    this.splitter = tokenizer.stream();
    this.controller.signal.addEventListener('abort', () => this.notify(), { once: true });
    this.output = this.run();
  }

  /** Text pushed after `endInput()` or `close()` is ignored. */
  pushText(text: string): void {
    if (this.inputEnded || this.controller.signal.aborted) return;
    for (const sentence of this.splitter.push(text)) this.enqueue(sentence);
  }

  flush(): void {
    if (this.inputEnded) return;
    for (const sentence of this.splitter.flush()) this.enqueue(sentence);
    this.splitter = this.tokenizer.stream();
  }

  endInput(): void {
    this.flush();
    this.inputEnded = true;
    this.notify();
  }

  async close(): Promise<void> {
    this.stop();
    await this.output.return(undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio> {
    return this.output;
  }

  private enqueue(text: string): void {
    this.sentences.push({ text });
    this.startSyntheses();
    this.notify();
  }

  /** Starts the sentences inside the window; the window bounds both requests in flight and buffered audio. */
  private startSyntheses(): void {
    for (const sentence of this.sentences) {
      if (this.running >= this.window) return;
      if (sentence.audio) continue;
      this.running++;
      sentence.audio = this.synthesize(sentence.text);
    }
  }

  private synthesize(text: string): Channel<SynthesizedAudio> {
    const signal = this.controller.signal;
    const audio = new Channel<SynthesizedAudio>({
      capacity: this.options.chunkBuffer ?? 64,
      overflow: 'block',
      name: `${this.tts.label}.sentence-audio`,
    });
    const onProblem = this.callOptions.onProblem;
    void (async () => {
      try {
        const options = { signal, ...(onProblem ? { onProblem } : {}) };
        for await (const chunk of this.tts.synthesize(text, options)) await audio.send(chunk, signal);
        audio.close();
      } catch (error) {
        if (signal.aborted) audio.close();
        else audio.fail(error);
      }
    })();
    return audio;
  }

  private async *run(): AsyncGenerator<SynthesizedAudio> {
    const signal = this.controller.signal;
    // Each synthesize() call times its words from its own first sample; the stream's from its first.
    let emittedMs = 0;
    try {
      for (;;) {
        if (signal.aborted) return;
        const sentence = this.sentences[0];
        if (!sentence) {
          if (this.inputEnded) return;
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          continue;
        }
        const sentenceStartMs = emittedMs;
        for await (const chunk of sentence.audio!) {
          emittedMs += chunk.frame.durationMs;
          yield chunk.words && sentenceStartMs > 0 ? shiftWords(chunk, sentenceStartMs) : chunk;
        }
        if (signal.aborted) return;
        this.sentences.shift();
        this.running--;
        this.startSyntheses();
      }
    } catch (error) {
      if (signal.aborted || isAbortError(error)) return;
      throw toAPIError(error, this.tts.label);
    } finally {
      this.stop();
    }
  }

  private stop(): void {
    this.inputEnded = true;
    this.controller.abort();
    this.controller.dispose();
    for (const sentence of this.sentences) sentence.audio?.dispose();
    this.sentences.length = 0;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function shiftWords(chunk: SynthesizedAudio, byMs: number): SynthesizedAudio {
  const words = chunk.words!.map((w) => ({ ...w, startMs: w.startMs + byMs, endMs: w.endMs + byMs }));
  return { ...chunk, words };
}
