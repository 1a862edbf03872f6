import { AudioFrame } from '../audio/audio-frame.js';
import { isAbortError } from '../errors.js';
import type { SynthesizedAudio, TTS, TTSCapabilities, TTSStream } from '../providers/tts.js';
import { Channel } from '../stream/channel.js';
import { processId } from '../utils/ids.js';
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
 * each is synthesized with `synthesize()`, and the audio comes out in order. Every flushed segment that
 * held text ends with exactly one chunk marked `final`; when the segment is closed only after its audio
 * went out, that chunk is an empty frame.
 */
export class TTSStreamAdapter implements TTS {
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels: number;
  readonly capabilities: TTSCapabilities;
  private readonly tokenizer: SentenceTokenizer;

  constructor(
    readonly tts: TTS,
    private readonly options: TTSStreamAdapterOptions = {},
  ) {
    this.label = tts.label;
    this.sampleRate = tts.sampleRate;
    this.numChannels = tts.numChannels;
    this.capabilities = {
      streaming: true,
      ...(tts.capabilities.alignedTranscript !== undefined
        ? { alignedTranscript: tts.capabilities.alignedTranscript }
        : {}),
    };
    this.tokenizer = options.tokenizer ?? new SentenceTokenizer();
    const prefetch = options.prefetch ?? 1;
    if (!Number.isInteger(prefetch) || prefetch < 0) {
      throw new RangeError(`prefetch must be a non-negative integer, got ${prefetch}`);
    }
  }

  synthesize(text: string, options?: { signal?: AbortSignal }): AsyncIterable<SynthesizedAudio> {
    return this.tts.synthesize(text, options);
  }

  stream(options: { signal?: AbortSignal } = {}): TTSStream {
    return new AdaptedTTSStream(this.tts, this.tokenizer, this.options, options.signal);
  }

  async close(): Promise<void> {
    await this.tts.close?.();
  }
}

interface Segment {
  readonly id: string;
  sentences: number;
  finalSent: boolean;
}

type Item =
  | { kind: 'sentence'; segment: Segment; text: string; audio?: Channel<SynthesizedAudio> }
  | { kind: 'end'; segment: Segment };

class AdaptedTTSStream implements TTSStream {
  private readonly controller: LinkedController;
  /** Work in output order: sentences to synthesize and the ends of their segments. */
  private readonly items: Item[] = [];
  private readonly window: number;
  private running = 0;
  private segment: Segment | undefined;
  private splitter: SentenceStream;
  private inputEnded = false;
  private wake: (() => void) | undefined;
  private readonly output: AsyncGenerator<SynthesizedAudio>;

  constructor(
    private readonly tts: TTS,
    private readonly tokenizer: SentenceTokenizer,
    private readonly options: TTSStreamAdapterOptions,
    signal: AbortSignal | undefined,
  ) {
    this.controller = linkedController(signal);
    this.window = 1 + (options.prefetch ?? 1);
    this.splitter = tokenizer.stream();
    this.controller.signal.addEventListener('abort', () => this.notify(), { once: true });
    this.output = this.run();
  }

  /** Text pushed after `endInput()` or `close()` is ignored. */
  pushText(text: string): void {
    if (this.inputEnded || this.controller.signal.aborted) return;
    this.segment ??= { id: processId('tts_segment'), sentences: 0, finalSent: false };
    for (const sentence of this.splitter.push(text)) this.enqueueSentence(sentence);
  }

  flush(): void {
    const segment = this.segment;
    if (!segment || this.inputEnded) return;
    for (const sentence of this.splitter.flush()) this.enqueueSentence(sentence);
    this.segment = undefined;
    this.splitter = this.tokenizer.stream();
    this.enqueue({ kind: 'end', segment });
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

  private enqueueSentence(text: string): void {
    const segment = this.segment!;
    segment.sentences++;
    this.enqueue({ kind: 'sentence', segment, text });
  }

  private enqueue(item: Item): void {
    this.items.push(item);
    this.startSyntheses();
    this.notify();
  }

  /** Starts the sentences inside the window; the window bounds both requests in flight and buffered audio. */
  private startSyntheses(): void {
    for (const item of this.items) {
      if (this.running >= this.window) return;
      if (item.kind !== 'sentence' || item.audio) continue;
      this.running++;
      item.audio = this.synthesize(item.text);
    }
  }

  private synthesize(text: string): Channel<SynthesizedAudio> {
    const signal = this.controller.signal;
    const audio = new Channel<SynthesizedAudio>({
      capacity: this.options.chunkBuffer ?? 64,
      overflow: 'block',
      name: `${this.tts.label}.sentence-audio`,
    });
    void (async () => {
      try {
        for await (const chunk of this.tts.synthesize(text, { signal })) await audio.send(chunk, signal);
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
    try {
      for (;;) {
        if (signal.aborted) return;
        const item = this.items[0];
        if (!item) {
          if (this.inputEnded) return;
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          continue;
        }
        if (item.kind === 'end') {
          this.items.shift();
          if (item.segment.sentences > 0 && !item.segment.finalSent) yield this.finalMarker(item.segment);
          continue;
        }
        // One chunk is held back so the last one of a sentence can carry `final` when it ends a segment.
        let held: SynthesizedAudio | undefined;
        for await (const chunk of item.audio!) {
          if (held) yield this.relabel(held, item.segment, false);
          held = chunk;
        }
        if (signal.aborted) return;
        this.items.shift();
        this.running--;
        this.startSyntheses();
        const next = this.items[0];
        const final = next?.kind === 'end' && next.segment === item.segment;
        if (held) {
          if (final) item.segment.finalSent = true;
          yield this.relabel(held, item.segment, final);
        }
      }
    } catch (error) {
      if (signal.aborted || isAbortError(error)) return;
      throw toAPIError(error, this.tts.label);
    } finally {
      this.stop();
    }
  }

  private relabel(chunk: SynthesizedAudio, segment: Segment, final: boolean): SynthesizedAudio {
    return {
      frame: chunk.frame,
      segmentId: segment.id,
      final,
      ...(chunk.text !== undefined ? { text: chunk.text } : {}),
    };
  }

  private finalMarker(segment: Segment): SynthesizedAudio {
    segment.finalSent = true;
    return {
      frame: AudioFrame.silence(this.tts.sampleRate, this.tts.numChannels, 0),
      segmentId: segment.id,
      final: true,
    };
  }

  private stop(): void {
    this.inputEnded = true;
    this.controller.abort();
    this.controller.dispose();
    for (const item of this.items) if (item.kind === 'sentence') item.audio?.dispose();
    this.items.length = 0;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
