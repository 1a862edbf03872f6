import {
  type AudioFrame,
  Channel,
  type SynthesizedAudio,
  type TTSCapabilities,
  type TTS as TTSContract,
  type TTSStream,
  VoxwireError,
  processId,
} from '@voxwire/agents';
import { PcmFramer } from './audio/pcm-framer.js';
import { type OpenAIClientOptions, type ResolvedClient, resolveClient } from './client.js';
import { readBody, retryStream, streamAttempt } from './request.js';

export interface TTSOptions extends OpenAIClientOptions {
  /** Default `gpt-4o-mini-tts`. */
  model?: string;
  /** Default `alloy`. */
  voice?: string;
  /** 0.25 to 4. */
  speed?: number;
  /** Tone and style instructions (gpt-4o-mini-tts and later). */
  instructions?: string;
  /** Length of the emitted frames in ms (the last one of a segment may be shorter). Default 20. */
  frameSizeMs?: number;
}

/** The speech endpoint's `pcm` format: 24 kHz, 16-bit little-endian, mono. */
const SAMPLE_RATE = 24_000;
const CHANNELS = 1;
const DEFAULT_TTS_TIMEOUT_MS = 10_000;
/** Segments waiting for synthesis in a stream; far more than any caller flushes ahead of playback. */
const MAX_PENDING_SEGMENTS = 1024;

/**
 * Text-to-speech over the speech endpoint, streamed: frames are emitted as the audio bytes arrive. The
 * endpoint takes whole texts (`capabilities.streaming` is false), so `stream()` synthesizes one segment
 * per `flush()`; the core's sentence StreamAdapter gives lower latency for LLM output.
 */
export class TTS implements TTSContract {
  readonly label = 'openai.TTS';
  readonly sampleRate = SAMPLE_RATE;
  readonly numChannels = CHANNELS;
  readonly capabilities: TTSCapabilities = { streaming: false };
  readonly model: string;
  readonly voice: string;
  private readonly resolved: ResolvedClient;
  private readonly options: TTSOptions;
  private readonly frameSizeMs: number;

  constructor(options: TTSOptions = {}) {
    this.options = options;
    this.model = options.model ?? 'gpt-4o-mini-tts';
    this.voice = options.voice ?? 'alloy';
    this.frameSizeMs = options.frameSizeMs ?? 20;
    if (!(this.frameSizeMs > 0))
      throw new RangeError(`frameSizeMs must be positive, got ${this.frameSizeMs}`);
    this.resolved = resolveClient(options, { timeoutMs: DEFAULT_TTS_TIMEOUT_MS });
  }

  /**
   * Audio of one text, as one segment. Retries happen only before the first frame is yielded; an abort
   * ends the iteration quietly and closes the HTTP stream.
   */
  synthesize(text: string, options: { signal?: AbortSignal } = {}): AsyncIterable<SynthesizedAudio> {
    return this.run(text, options.signal);
  }

  stream(options: { signal?: AbortSignal } = {}): TTSStream {
    return new SegmentedTTSStream(this, options.signal);
  }

  private async *run(
    text: string,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<SynthesizedAudio, void, undefined> {
    if (text.trim() === '' || signal?.aborted) return;
    const segmentId = processId('tts_seg');
    const frames = retryStream(this.resolved, signal, (attemptSignal) => this.attempt(text, attemptSignal));
    // One frame is held back so that the last one can carry `final: true`.
    let held: AudioFrame | undefined;
    for await (const frame of frames) {
      // One network chunk yields several frames; none may follow an abort.
      if (signal?.aborted) return;
      if (held) yield { frame: held, segmentId, final: false };
      held = frame;
    }
    if (held && !signal?.aborted) yield { frame: held, segmentId, final: true };
  }

  private async *attempt(text: string, signal: AbortSignal): AsyncGenerator<AudioFrame, void, undefined> {
    const { client } = this.resolved;
    const what = `${this.label}(${this.model})`;
    const framer = new PcmFramer(SAMPLE_RATE, CHANNELS, this.frameSizeMs);
    const chunks = streamAttempt(this.resolved, what, signal, async (requestSignal) => {
      const response = await client.audio.speech.create(
        {
          model: this.model,
          voice: this.voice,
          input: text,
          response_format: 'pcm',
          ...(this.options.speed !== undefined ? { speed: this.options.speed } : {}),
          ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
        },
        { signal: requestSignal },
      );
      if (!response.body) throw new VoxwireError(`${what}: the response has no body`);
      return readBody(response.body);
    });
    for await (const chunk of chunks) yield* framer.push(chunk);
    if (signal.aborted) return;
    const rest = framer.flush();
    if (rest) yield rest;
  }
}

/**
 * Collects pushed text and synthesizes it one segment per `flush()` (and at `endInput()`), in order.
 * Audio waits in a bounded channel: when the consumer falls behind, synthesis waits too.
 */
class SegmentedTTSStream implements TTSStream {
  private readonly controller = new AbortController();
  private readonly segments = new Channel<string>({
    capacity: MAX_PENDING_SEGMENTS,
    overflow: 'block',
    name: 'openai.TTS segments',
  });
  private readonly audio = new Channel<SynthesizedAudio>({
    capacity: 16,
    overflow: 'block',
    name: 'openai.TTS audio',
  });
  private text = '';
  private readonly onCallerAbort = (): void => {
    void this.close();
  };

  constructor(
    private readonly tts: TTS,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    if (callerSignal?.aborted) this.controller.abort();
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    void this.pump();
  }

  pushText(text: string): void {
    if (this.segments.closed)
      throw new VoxwireError('openai.TTS stream: pushText() after endInput() or close()');
    this.text += text;
  }

  flush(): void {
    // After endInput() or close() there is nothing left to flush: pushText() already refused new text.
    if (this.segments.closed || this.text.trim() === '') return;
    if (!this.segments.trySend(this.text)) {
      throw new VoxwireError(
        `openai.TTS stream: more than ${MAX_PENDING_SEGMENTS} segments wait for synthesis`,
      );
    }
    this.text = '';
  }

  endInput(): void {
    if (this.segments.closed) return;
    this.flush();
    this.segments.close();
  }

  async close(): Promise<void> {
    this.controller.abort();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    this.segments.dispose();
    this.audio.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio> {
    return this.audio[Symbol.asyncIterator]();
  }

  private async pump(): Promise<void> {
    const signal = this.controller.signal;
    try {
      for await (const segment of this.segments) {
        for await (const chunk of this.tts.synthesize(segment, { signal })) {
          await this.audio.send(chunk, signal);
        }
        if (signal.aborted) break;
      }
      this.audio.close();
    } catch (error) {
      // A closed stream or an abort is an ending, not a failure to report.
      if (signal.aborted || this.audio.closed) this.audio.close();
      else this.audio.fail(error);
    } finally {
      this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    }
  }
}
