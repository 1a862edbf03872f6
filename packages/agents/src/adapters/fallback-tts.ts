import { AudioFrame } from '../audio/audio-frame.js';
import { AudioResampler } from '../audio/resampler.js';
import { APIConnectionError, InvalidAudioError } from '../errors.js';
import type { SynthesizedAudio, TTS, TTSCapabilities, TTSStream } from '../providers/tts.js';
import type { TimerHandle } from '../time/clock.js';
import { processId } from '../utils/ids.js';
import { TypedEmitter } from '../utils/typed-emitter.js';
import {
  AvailabilityTracker,
  FailureStreak,
  type FallbackAdapterEvents,
  type FallbackAdapterOptions,
  type ProviderAvailability,
  streamWithFallback,
} from './fallback-core.js';
import type { SentenceTokenizer } from './sentence-tokenizer.js';
import { type LinkedController, linkedController } from '../provider-utils/abort.js';
import { toAPIError } from './shared.js';
import { TTSStreamAdapter } from './tts-stream-adapter.js';

export interface TTSFallbackAdapterOptions extends FallbackAdapterOptions<TTS> {
  /** Splits text for providers that cannot stream (wrapped in `TTSStreamAdapter`). */
  tokenizer?: SentenceTokenizer;
}

/**
 * Text-to-speech over a priority list of providers, which must share their channel count; audio of
 * providers with a lower sample rate is resampled to the highest one, so a switch never changes the
 * format. `synthesize()` behaves like `LLMFallbackAdapter.chat()`. A `stream()` keeps the text of every segment
 * whose audio has not finished; when its provider fails, the stream moves to the next provider and
 * replays that text, provided no audio of an unfinished segment went out (a segment is never spoken
 * twice, nor half by one voice and half by another). Otherwise the error surfaces. Segment ids are the
 * adapter's own, so a switch is invisible to the consumer.
 */
export class TTSFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements TTS {
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels: number;
  readonly capabilities: TTSCapabilities;
  private readonly tracker: AvailabilityTracker<TTS>;
  private readonly streamers: readonly TTS[];

  constructor(
    readonly providers: readonly TTS[],
    options: TTSFallbackAdapterOptions = {},
  ) {
    super();
    this.tracker = new AvailabilityTracker(providers, {
      kind: 'TTS',
      labelOf: (tts) => tts.label,
      probe: options.probe ?? probeTTS,
      emitter: this,
      options,
    });
    const first = providers[0]!;
    for (const tts of providers) {
      if (tts.numChannels !== first.numChannels) {
        throw new InvalidAudioError(
          `TTS providers of a FallbackAdapter must share their channel count: "${tts.label}" has ` +
            `${tts.numChannels}, "${first.label}" ${first.numChannels}`,
        );
      }
    }
    this.sampleRate = Math.max(...providers.map((p) => p.sampleRate));
    this.numChannels = first.numChannels;
    this.streamers = providers.map((tts) =>
      tts.capabilities.streaming
        ? tts
        : new TTSStreamAdapter(tts, options.tokenizer ? { tokenizer: options.tokenizer } : {}),
    );
    this.label = `FallbackAdapter(${providers.map((p) => p.label).join(', ')})`;
    this.capabilities = {
      streaming: true,
      alignedTranscript: providers.every((p) => p.capabilities.alignedTranscript === true),
    };
  }

  synthesize(text: string, options: { signal?: AbortSignal } = {}): AsyncIterable<SynthesizedAudio> {
    const sampleRate = this.sampleRate;
    return streamWithFallback(
      this.tracker,
      (tts, signal) => converted(tts.synthesize(text, { signal }), new RateConverter(sampleRate)),
      options.signal,
    );
  }

  stream(options: { signal?: AbortSignal } = {}): TTSStream {
    return new FallbackTTSStream(this.tracker, this.streamers, this.sampleRate, options.signal);
  }

  availability(): ProviderAvailability[] {
    return this.tracker.snapshot();
  }

  /** Stops the probes and closes every provider. */
  async close(): Promise<void> {
    this.tracker.close();
    await Promise.all(this.providers.map((p) => p.close?.()));
  }
}

interface Segment {
  readonly id: string;
  text: string;
  /** Flushed: the provider was asked to speak it without waiting for more text. */
  closed: boolean;
  emittedAudio: boolean;
}

interface Attempt {
  readonly index: number;
  readonly stream: TTSStream;
  readonly controller: LinkedController;
  readonly converter: RateConverter;
  lastInnerSegmentId?: string;
}

interface Wait {
  readonly attempt: Attempt;
  readonly reject: (error: unknown) => void;
}

class FallbackTTSStream implements TTSStream {
  private readonly controller: LinkedController;
  /** Segments whose final chunk has not gone out, in order; the last one may still take text. */
  private segments: Segment[] = [];
  private inputEnded = false;
  private current: Attempt | undefined;
  private startupError: unknown;
  private readonly streak: FailureStreak<TTS>;
  private waiting: Wait | undefined;
  private watchdog: TimerHandle | undefined;
  private readonly output: AsyncGenerator<SynthesizedAudio>;

  constructor(
    private readonly tracker: AvailabilityTracker<TTS>,
    private readonly streamers: readonly TTS[],
    private readonly sampleRate: number,
    signal: AbortSignal | undefined,
  ) {
    this.controller = linkedController(signal);
    this.streak = new FailureStreak(tracker);
    try {
      this.current = this.openNext();
    } catch (error) {
      this.startupError = error;
    }
    this.output = this.run();
  }

  pushText(text: string): void {
    if (this.inputEnded || this.controller.signal.aborted || text === '') return;
    let segment = this.segments[this.segments.length - 1];
    if (!segment || segment.closed) {
      segment = { id: processId('tts_segment'), text: '', closed: false, emittedAudio: false };
      this.segments.push(segment);
    }
    segment.text += text;
    this.current?.stream.pushText(text);
  }

  flush(): void {
    const segment = this.segments[this.segments.length - 1];
    // A blank segment is left open: flushing it would ask for audio that never comes.
    if (!segment || segment.closed || segment.text.trim() === '') return;
    segment.closed = true;
    this.current?.stream.flush();
    this.armWatchdog();
  }

  endInput(): void {
    if (this.inputEnded) return;
    this.flush();
    this.inputEnded = true;
    this.current?.stream.endInput();
    this.armWatchdog();
  }

  async close(): Promise<void> {
    this.stop();
    await this.output.return(undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio> {
    return this.output;
  }

  private async *run(): AsyncGenerator<SynthesizedAudio> {
    const signal = this.controller.signal;
    try {
      for (;;) {
        const attempt = this.current;
        if (!attempt) throw this.startupError;
        const iterator = attempt.stream[Symbol.asyncIterator]();
        let failure: unknown;
        try {
          for (;;) {
            const result = await this.next(attempt, iterator);
            if (result.done) break;
            yield* this.accept(attempt, result.value);
          }
        } catch (error) {
          failure = error;
        }
        if (signal.aborted) return;
        if (failure === undefined) {
          if (this.inputEnded) {
            yield* this.finishRemaining(attempt);
            return;
          }
          failure = new APIConnectionError(
            `${this.tracker.label(attempt.index)}: stream ended before its input`,
          );
        }
        this.fail(attempt, failure);
        if (this.segments.some((s) => s.emittedAudio))
          throw toAPIError(failure, this.tracker.label(attempt.index));
        this.current = this.openNext();
      }
    } finally {
      this.stop();
    }
  }

  /**
   * The next chunk of the current provider. The attempt timeout runs only while we wait on the provider
   * and audio is due, never while the consumer takes its time.
   */
  private next(
    attempt: Attempt,
    iterator: AsyncIterator<SynthesizedAudio>,
  ): Promise<IteratorResult<SynthesizedAudio>> {
    return new Promise((resolve, reject) => {
      const wait: Wait = { attempt, reject };
      this.waiting = wait;
      this.armWatchdog();
      const done = (): void => {
        if (this.waiting !== wait) return;
        this.waiting = undefined;
        this.watchdog?.cancel();
        this.watchdog = undefined;
      };
      iterator.next().then(
        (result) => {
          done();
          resolve(result);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  private armWatchdog(): void {
    const wait = this.waiting;
    if (!wait || this.watchdog || !this.audioDue()) return;
    this.watchdog = this.tracker.clock.setTimer(this.tracker.attemptTimeoutMs, () => {
      this.watchdog = undefined;
      if (this.waiting !== wait) return;
      this.waiting = undefined;
      const error = this.tracker.timeoutError(wait.attempt.index);
      wait.attempt.controller.abort(error);
      wait.reject(error);
    });
  }

  /** Audio is due for a flushed segment, and after the end of input the provider owes its own end. */
  private audioDue(): boolean {
    return this.inputEnded || this.segments.some((s) => s.closed);
  }

  /** Maps a provider chunk onto our segments, which its audio follows in order. */
  private accept(attempt: Attempt, chunk: SynthesizedAudio): SynthesizedAudio[] {
    this.streak.progress(attempt.index);
    const previous = attempt.lastInnerSegmentId;
    attempt.lastInnerSegmentId = chunk.segmentId;
    // A provider that moved to its next segment without marking the last chunk final: follow it.
    if (previous !== undefined && previous !== chunk.segmentId && this.segments[0]?.emittedAudio) {
      this.segments.shift();
    }
    const segment = this.segments[0];
    if (!segment) return [];
    segment.emittedAudio = true;
    if (chunk.final) this.segments.shift();
    return attempt.converter.convert({ ...chunk, segmentId: segment.id });
  }

  /** The provider ended cleanly: close segments it left without a final chunk. */
  private *finishRemaining(attempt: Attempt): Generator<SynthesizedAudio> {
    for (const segment of this.segments) {
      if (!segment.emittedAudio) continue;
      const frame = AudioFrame.silence(this.sampleRate, this.tracker.providers[0]!.numChannels, 0);
      yield* attempt.converter.convert({ frame, segmentId: segment.id, final: true });
    }
    this.segments = [];
  }

  private fail(attempt: Attempt, error: unknown): void {
    this.streak.failed(attempt.index, error);
    this.release(attempt);
  }

  /** Opens the next provider's stream and replays the unfinished text into it. */
  private openNext(): Attempt {
    for (;;) {
      const index = this.streak.next();
      const controller = linkedController(this.controller.signal);
      let stream: TTSStream | undefined;
      try {
        stream = this.streamers[index]!.stream({ signal: controller.signal });
        for (const segment of this.segments) {
          if (segment.text) stream.pushText(segment.text);
          if (segment.closed) stream.flush();
        }
        if (this.inputEnded) stream.endInput();
        return { index, stream, controller, converter: new RateConverter(this.sampleRate) };
      } catch (error) {
        controller.abort();
        controller.dispose();
        stream?.close().catch(() => {});
        this.streak.failed(index, error);
      }
    }
  }

  private release(attempt: Attempt): void {
    attempt.controller.abort();
    attempt.controller.dispose();
    attempt.stream.close().catch(() => {});
  }

  private stop(): void {
    this.inputEnded = true;
    this.watchdog?.cancel();
    this.watchdog = undefined;
    this.controller.abort();
    this.controller.dispose();
    if (this.current) this.release(this.current);
    this.current = undefined;
    const wait = this.waiting;
    this.waiting = undefined;
    wait?.reject(this.controller.signal.reason);
  }
}

/**
 * Brings one provider's audio to the adapter's rate. The resampler holds a few ms back between chunks,
 * so it lives for a segment and is flushed by the segment's final chunk, which keeps the `final` flag.
 */
class RateConverter {
  private resampler: AudioResampler | undefined;
  /** Text of chunks whose audio the resampler still holds. */
  private heldText = '';

  constructor(private readonly outputRate: number) {}

  convert(chunk: SynthesizedAudio): SynthesizedAudio[] {
    const input = chunk.frame;
    if (input.sampleRate === this.outputRate && !this.resampler) return [chunk];
    this.resampler ??= new AudioResampler(input.sampleRate, this.outputRate, { channels: input.channels });
    const frames = input.samplesPerChannel > 0 ? this.resampler.push(input) : [];
    if (chunk.final) {
      frames.push(...this.resampler.flush());
      this.resampler = undefined;
    }
    const text = this.heldText + (chunk.text ?? '');
    if (frames.length === 0 && !chunk.final) {
      this.heldText = text;
      return [];
    }
    this.heldText = '';
    if (frames.length === 0) frames.push(AudioFrame.silence(this.outputRate, input.channels, 0));
    return frames.map((frame, i) => ({
      frame,
      segmentId: chunk.segmentId,
      final: chunk.final && i === frames.length - 1,
      ...(i === 0 && text ? { text } : {}),
    }));
  }
}

async function* converted(
  source: AsyncIterable<SynthesizedAudio>,
  converter: RateConverter,
): AsyncGenerator<SynthesizedAudio> {
  for await (const chunk of source) yield* converter.convert(chunk);
}

/** A two-word sentence, read up to its first chunk of audio. */
async function probeTTS(tts: TTS, signal: AbortSignal): Promise<void> {
  const iterator = tts.synthesize('Hello there.', { signal })[Symbol.asyncIterator]();
  await iterator.next();
  await iterator.return?.();
}
