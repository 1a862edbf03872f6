import { AudioResampler } from '../audio/resampler.js';
import { APIConnectionError, InvalidAudioError } from '../errors.js';
import { type ProviderCallOptions, SPECIFICATION_VERSION } from '../providers/common.js';
import type { StreamingTTS, SynthesizedAudio, TTS, TTSStream } from '../providers/tts.js';
import type { TimerHandle } from '../time/clock.js';
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
 * format. `synthesize()` behaves like `LLMFallbackAdapter.chat()`. A `stream()` keeps the text pushed
 * into it; when its provider fails before any audio went out, the stream moves to the next provider and
 * replays that text. After audio went out the error surfaces: a reply is never spoken twice, nor half by
 * one voice and half by another.
 */
export class TTSFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements StreamingTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels: number;
  private readonly tracker: AvailabilityTracker<TTS>;
  private readonly streamers: readonly StreamingTTS[];

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
      tts.kind === 'streaming'
        ? tts
        : new TTSStreamAdapter(tts, options.tokenizer ? { tokenizer: options.tokenizer } : {}),
    );
    this.label = `FallbackAdapter(${providers.map((p) => p.label).join(', ')})`;
  }

  synthesize(text: string, options: ProviderCallOptions = {}): AsyncIterable<SynthesizedAudio> {
    const sampleRate = this.sampleRate;
    const onProblem = options.onProblem;
    return streamWithFallback(
      this.tracker,
      (tts, signal) =>
        converted(
          tts.synthesize(text, { signal, ...(onProblem ? { onProblem } : {}) }),
          new RateConverter(sampleRate),
        ),
      options.signal,
    );
  }

  stream(options: ProviderCallOptions = {}): TTSStream {
    return new FallbackTTSStream(this.tracker, this.streamers, this.sampleRate, options);
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

interface Attempt {
  readonly index: number;
  readonly stream: TTSStream;
  readonly controller: LinkedController;
  readonly converter: RateConverter;
}

interface Wait {
  readonly attempt: Attempt;
  readonly reject: (error: unknown) => void;
}

class FallbackTTSStream implements TTSStream {
  private readonly controller: LinkedController;
  /** Everything pushed so far, replayed into the next provider when one fails before any audio. */
  private text = '';
  private flushed = false;
  private emittedAudio = false;
  private inputEnded = false;
  private current: Attempt | undefined;
  private startupError: unknown;
  private readonly streak: FailureStreak<TTS>;
  private waiting: Wait | undefined;
  private watchdog: TimerHandle | undefined;
  private readonly output: AsyncGenerator<SynthesizedAudio>;

  constructor(
    private readonly tracker: AvailabilityTracker<TTS>,
    private readonly streamers: readonly StreamingTTS[],
    private readonly sampleRate: number,
    private readonly callOptions: ProviderCallOptions,
  ) {
    this.controller = linkedController(callOptions.signal);
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
    this.text += text;
    this.current?.stream.pushText(text);
  }

  flush(): void {
    // Flushing blank text would ask for audio that never comes.
    if (this.inputEnded || this.text.trim() === '') return;
    this.flushed = true;
    this.current?.stream.flush();
    this.armWatchdog();
  }

  endInput(): void {
    if (this.inputEnded) return;
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
            this.streak.progress(attempt.index);
            const chunks = attempt.converter.convert(result.value);
            if (chunks.length > 0) this.emittedAudio = true;
            yield* chunks;
          }
        } catch (error) {
          failure = error;
        }
        if (signal.aborted) return;
        if (failure === undefined) {
          if (this.inputEnded) {
            yield* attempt.converter.finish();
            return;
          }
          failure = new APIConnectionError(
            `${this.tracker.label(attempt.index)}: stream ended before its input`,
          );
        }
        this.fail(attempt, failure);
        // Never speak a text twice, nor half in one voice and half in another.
        if (this.emittedAudio) throw toAPIError(failure, this.tracker.label(attempt.index));
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

  /** Audio is due once text was flushed, and after the end of input the provider owes its own end. */
  private audioDue(): boolean {
    return this.inputEnded || this.flushed;
  }

  private fail(attempt: Attempt, error: unknown): void {
    this.streak.failed(attempt.index, error);
    this.release(attempt);
  }

  /** Opens the next provider's stream and replays the text into it. */
  private openNext(): Attempt {
    for (;;) {
      const index = this.streak.next();
      const controller = linkedController(this.controller.signal);
      let stream: TTSStream | undefined;
      try {
        const onProblem = this.callOptions.onProblem;
        stream = this.streamers[index]!.stream({
          signal: controller.signal,
          ...(onProblem ? { onProblem } : {}),
        });
        if (this.text) stream.pushText(this.text);
        if (this.flushed) stream.flush();
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
 * Brings one provider's audio to the adapter's rate. The resampler holds a few ms back between chunks;
 * `finish()` releases them when the provider's audio ends.
 */
class RateConverter {
  private resampler: AudioResampler | undefined;

  constructor(private readonly outputRate: number) {}

  convert(chunk: SynthesizedAudio): SynthesizedAudio[] {
    const input = chunk.frame;
    if (input.sampleRate === this.outputRate && !this.resampler) return [chunk];
    this.resampler ??= new AudioResampler(input.sampleRate, this.outputRate, { channels: input.channels });
    const frames = input.samplesPerChannel > 0 ? this.resampler.push(input) : [];
    return frames.map((frame) => ({ frame }));
  }

  finish(): SynthesizedAudio[] {
    const frames = this.resampler?.flush() ?? [];
    this.resampler = undefined;
    return frames.map((frame) => ({ frame }));
  }
}

async function* converted(
  source: AsyncIterable<SynthesizedAudio>,
  converter: RateConverter,
): AsyncGenerator<SynthesizedAudio> {
  for await (const chunk of source) yield* converter.convert(chunk);
  yield* converter.finish();
}

/** A two-word sentence, read up to its first chunk of audio. */
async function probeTTS(tts: TTS, signal: AbortSignal): Promise<void> {
  const iterator = tts.synthesize('Hello there.', { signal })[Symbol.asyncIterator]();
  await iterator.next();
  await iterator.return?.();
}
