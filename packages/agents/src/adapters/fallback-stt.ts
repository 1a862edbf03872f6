import { AudioFrame } from '../audio/audio-frame.js';
import { APIConnectionError } from '../errors.js';
import { SPECIFICATION_VERSION } from '../providers/common.js';
import type { STT, STTEvent, STTStream, StreamingSTT, STTStreamOptions } from '../providers/stt.js';
import type { VAD } from '../providers/vad.js';
import { TypedEmitter } from '../utils/typed-emitter.js';
import {
  AvailabilityTracker,
  FailureStreak,
  type FallbackAdapterEvents,
  type FallbackAdapterOptions,
  type ProviderAvailability,
} from './fallback-core.js';
import { type LinkedController, linkedController } from '../provider-utils/abort.js';
import { STTStreamAdapter } from './stt-stream-adapter.js';

export interface STTFallbackAdapterOptions extends FallbackAdapterOptions<STT> {
  /** Segments the audio for providers that cannot stream (wrapped in `STTStreamAdapter`). */
  vad?: VAD;
}

/**
 * Speech-to-text over a priority list of providers. A live stream runs on one provider at a time; when it
 * fails (an error, or the stream ending while audio still comes) the provider is marked unavailable and
 * the stream carries on with the next one, from the next pushed frame. Audio the failed provider had not
 * transcribed yet is lost; an utterance it had started is closed with `end_of_speech` so speech events
 * stay paired. Recovery works as in `LLMFallbackAdapter`. The providers must share an input sample rate,
 * since a switch happens between two frames.
 */
export class STTFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly inputSampleRates: readonly number[];
  private readonly tracker: AvailabilityTracker<STT>;
  /** What each provider's live stream comes from: itself, or a VAD-driven adapter. */
  private readonly streamers: readonly StreamingSTT[];

  constructor(
    readonly providers: readonly STT[],
    options: STTFallbackAdapterOptions = {},
  ) {
    super();
    this.tracker = new AvailabilityTracker(providers, {
      kind: 'STT',
      labelOf: (stt) => stt.label,
      probe: options.probe ?? probeSTT,
      emitter: this,
      options,
    });
    this.streamers = providers.map((stt) => {
      if (stt.kind === 'streaming') return stt;
      if (!options.vad) {
        throw new TypeError(
          `"${stt.label}" cannot stream: give the STTFallbackAdapter a vad to segment its audio`,
        );
      }
      // No retries inside: switching to the next provider is the retry.
      return new STTStreamAdapter(stt, options.vad, {
        retryPolicy: { maxRetries: 0 },
        ...(options.clock ? { clock: options.clock } : {}),
      });
    });
    this.label = `FallbackAdapter(${providers.map((p) => p.label).join(', ')})`;
    this.inputSampleRates = sharedSampleRates(providers);
  }

  stream(options: STTStreamOptions): STTStream {
    return new FallbackSTTStream(this.tracker, this.streamers, options);
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
  readonly stream: STTStream;
  readonly controller: LinkedController;
}

class FallbackSTTStream implements STTStream {
  private readonly controller: LinkedController;
  private current: Attempt | undefined;
  private startupError: unknown;
  private inputEnded = false;
  private readonly streak: FailureStreak<STT>;
  private readonly output: AsyncGenerator<STTEvent>;

  constructor(
    private readonly tracker: AvailabilityTracker<STT>,
    private readonly streamers: readonly StreamingSTT[],
    private readonly options: STTStreamOptions,
  ) {
    this.controller = linkedController(options.signal);
    this.streak = new FailureStreak(tracker);
    // Opened now, not on first read, so frames pushed before iteration starts reach a provider.
    try {
      this.current = this.openNext();
    } catch (error) {
      this.startupError = error;
    }
    this.output = this.run();
  }

  pushFrame(frame: AudioFrame): void {
    if (this.controller.signal.aborted) return;
    this.current?.stream.pushFrame(frame);
  }

  flush(): void {
    this.current?.stream.flush();
  }

  endInput(): void {
    this.inputEnded = true;
    this.current?.stream.endInput();
  }

  async close(): Promise<void> {
    this.stop();
    await this.output.return(undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    return this.output;
  }

  private async *run(): AsyncGenerator<STTEvent> {
    const signal = this.controller.signal;
    let inSpeech = false;
    try {
      for (;;) {
        const attempt = this.current;
        if (!attempt) throw this.startupError;
        let failure: unknown;
        try {
          for await (const event of attempt.stream) {
            // Only a transcript shows the recognizer works: a wrapped batch recognizer's speech events
            // come from the VAD, and counting them would let two failing providers swap forever.
            if (event.type !== 'start_of_speech' && event.type !== 'end_of_speech') {
              this.streak.progress(attempt.index);
            }
            if (event.type === 'start_of_speech') inSpeech = true;
            if (event.type === 'end_of_speech') inSpeech = false;
            yield event;
          }
        } catch (error) {
          failure = error;
        }
        if (signal.aborted) return;
        if (failure === undefined) {
          if (this.inputEnded) return;
          failure = new APIConnectionError(`${this.tracker.label(attempt.index)}: stream ended unexpectedly`);
        }
        this.fail(attempt, failure);
        if (inSpeech) {
          inSpeech = false;
          yield { type: 'end_of_speech' };
        }
        this.current = this.openNext();
      }
    } finally {
      this.stop();
    }
  }

  private fail(attempt: Attempt, error: unknown): void {
    this.streak.failed(attempt.index, error);
    this.release(attempt);
  }

  /** Opens the next provider's stream; throws `AllProvidersFailedError` when none is left. */
  private openNext(): Attempt {
    for (;;) {
      const index = this.streak.next();
      const controller = linkedController(this.controller.signal);
      try {
        const stream = this.streamers[index]!.stream({ ...this.options, signal: controller.signal });
        if (this.inputEnded) stream.endInput();
        return { index, stream, controller };
      } catch (error) {
        controller.abort();
        controller.dispose();
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
    if (this.controller.signal.aborted && !this.current) return;
    this.controller.abort();
    this.controller.dispose();
    if (this.current) this.release(this.current);
    this.current = undefined;
  }
}

/** The rates every provider accepts, in the first provider's order of preference. */
function sharedSampleRates(providers: readonly STT[]): readonly number[] {
  const shared = providers[0]!.inputSampleRates.filter((rate) =>
    providers.every((p) => p.inputSampleRates.includes(rate)),
  );
  if (shared.length === 0) {
    const listed = providers.map((p) => `"${p.label}" [${p.inputSampleRates.join(', ')}]`).join(', ');
    throw new TypeError(`STT providers of a FallbackAdapter share no input sample rate: ${listed}`);
  }
  return shared;
}

/** 100 ms of silence: recognized once if the provider can, otherwise streamed and drained. */
async function probeSTT(stt: STT, signal: AbortSignal): Promise<void> {
  const sampleRate = stt.inputSampleRates[0] ?? 16_000;
  const silence = AudioFrame.silence(sampleRate, 1, sampleRate / 10);
  if (stt.kind === 'batch') {
    await stt.recognize([silence], { signal, sampleRate });
    return;
  }
  const stream = stt.stream({ signal, sampleRate });
  try {
    stream.pushFrame(silence);
    stream.endInput();
    for await (const _event of stream) {
      // Draining is the check: the provider must accept audio and end cleanly.
    }
  } finally {
    await stream.close();
  }
}
