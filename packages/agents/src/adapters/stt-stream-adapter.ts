import type { AudioFrame } from '../audio/audio-frame.js';
import { isAbortError } from '../errors.js';
import { type RetryPolicy, withRetry } from '../provider-utils/retry.js';
import { SPECIFICATION_VERSION } from '../providers/common.js';
import type {
  BatchSTT,
  SpeechAlternative,
  STTEvent,
  STTStream,
  StreamingSTT,
  STTStreamOptions,
} from '../providers/stt.js';
import type { VAD, VADEvent, VADStream } from '../providers/vad.js';
import { Channel } from '../stream/channel.js';
import { type Clock, realClock } from '../time/clock.js';
import { type LinkedController, linkedController } from '../provider-utils/abort.js';
import { toAPIError } from './shared.js';

export interface STTStreamAdapterOptions {
  /** Retries of a failed `recognize()` before the stream fails. Default: the default retry policy. */
  retryPolicy?: Partial<RetryPolicy>;
  clock?: Clock;
  /**
   * Utterances waiting for recognition. Speech boundaries are few, so this only fills when the recognizer
   * is far slower than speech; the oldest utterance is then dropped (counted). Default 8.
   */
  maxPendingUtterances?: number;
  /** Events waiting for the consumer; when full, recognition waits. Default 32. */
  eventQueueCapacity?: number;
  /** Source of retry jitter, for reproducible runs. */
  random?: () => number;
}

type Recognize = BatchSTT['recognize'];

/**
 * Makes a recognizer that only transcribes finished utterances (`recognize()`) usable as a live stream:
 * a VAD cuts the pushed audio into utterances and each one is recognized when the VAD reports its end.
 * The stream emits `start_of_speech`, then `final_transcript` and `end_of_speech` per utterance, in
 * order. Frames pushed must be at one of the recognizer's `inputSampleRates`: the VAD cuts them as
 * they are, so each utterance reaches `recognize()` at the rate the recognizer asked for.
 */
export class STTStreamAdapter implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly inputSampleRates: readonly number[];
  private readonly recognizeFn: Recognize;

  constructor(
    readonly stt: BatchSTT,
    readonly vad: VAD,
    private readonly options: STTStreamAdapterOptions = {},
  ) {
    this.recognizeFn = stt.recognize.bind(stt);
    this.label = stt.label;
    this.inputSampleRates = stt.inputSampleRates;
  }

  recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]> {
    return this.recognizeFn(frames, options);
  }

  stream(options: STTStreamOptions): STTStream {
    return new AdaptedSTTStream(this.recognizeFn, this.vad, this.label, options, this.options);
  }

  async close(): Promise<void> {
    await this.stt.close?.();
  }
}

type SpeechBoundary = Extract<VADEvent, { type: 'start_of_speech' | 'end_of_speech' }>;

class AdaptedSTTStream implements STTStream {
  private readonly controller: LinkedController;
  private readonly vadStream: VADStream;
  private readonly boundaries: Channel<SpeechBoundary>;
  private readonly events: Channel<STTEvent>;
  private readonly clock: Clock;
  private vadClosed: Promise<void> | undefined;

  constructor(
    private readonly recognize: Recognize,
    vad: VAD,
    private readonly label: string,
    private readonly streamOptions: STTStreamOptions,
    private readonly options: STTStreamAdapterOptions,
  ) {
    this.clock = options.clock ?? realClock();
    this.controller = linkedController(streamOptions.signal);
    this.vadStream = vad.stream({
      signal: this.controller.signal,
      ...(streamOptions.onProblem ? { onProblem: streamOptions.onProblem } : {}),
    });
    this.boundaries = new Channel({
      capacity: options.maxPendingUtterances ? options.maxPendingUtterances * 2 : 16,
      overflow: 'drop-oldest',
      name: `${this.label}.speech-boundaries`,
    });
    this.events = new Channel({
      capacity: options.eventQueueCapacity ?? 32,
      overflow: 'block',
      name: `${this.label}.stt-events`,
    });
    this.controller.signal.addEventListener('abort', () => this.shutdown(), { once: true });
    void this.readVad();
    void this.recognizeUtterances();
  }

  pushFrame(frame: AudioFrame): void {
    if (this.controller.signal.aborted) return;
    this.vadStream.pushFrame(frame);
  }

  /** Utterance boundaries are the VAD's to decide, so there is nothing to finalize early. */
  flush(): void {}

  endInput(): void {
    this.vadStream.endInput();
  }

  /** Stops everything and discards what was not read. */
  async close(): Promise<void> {
    this.events.dispose();
    this.controller.abort();
    await this.closeVad();
  }

  [Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    return {
      next: () => this.events.receive(),
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  /**
   * Stops the inputs (an abort, a failure, or close). Events already queued stay readable, so a
   * transcript recognized just before a failure still reaches the consumer ahead of the error.
   */
  private shutdown(): void {
    this.controller.dispose();
    this.boundaries.dispose();
    this.events.close();
    void this.closeVad();
  }

  private closeVad(): Promise<void> {
    // Nobody awaits a failure of the VAD's own teardown: the stream is over by then.
    this.vadClosed ??= this.vadStream.close().catch(() => {});
    return this.vadClosed;
  }

  /**
   * Drains the VAD promptly whatever the recognizer is doing: a VAD stream buffers boundedly and would
   * otherwise drop speech boundaries behind a flood of `inference_done` events.
   */
  private async readVad(): Promise<void> {
    try {
      for await (const event of this.vadStream) {
        if (event.type === 'start_of_speech' || event.type === 'end_of_speech') {
          this.boundaries.trySend(event);
        }
      }
      this.boundaries.close();
    } catch (error) {
      this.boundaries.fail(error);
    }
  }

  private async recognizeUtterances(): Promise<void> {
    const signal = this.controller.signal;
    let inSpeech = false;
    try {
      for await (const boundary of this.boundaries) {
        if (boundary.type === 'start_of_speech') {
          if (!inSpeech) await this.events.send({ type: 'start_of_speech' }, signal);
          inSpeech = true;
          continue;
        }
        // Keep start/end paired even if a start was dropped or the stream began mid-utterance.
        if (!inSpeech) await this.events.send({ type: 'start_of_speech' }, signal);
        inSpeech = false;
        const onProblem = this.streamOptions.onProblem;
        const alternatives = await withRetry(
          (_, s) => this.recognize(boundary.frames, { ...this.streamOptions, signal: s }),
          {
            clock: this.clock,
            signal,
            ...(this.options.retryPolicy ? { policy: this.options.retryPolicy } : {}),
            ...(this.options.random ? { random: this.options.random } : {}),
            // withRetry reports each retry as a `retrying` problem itself.
            ...(onProblem ? { onProblem } : {}),
          },
        );
        await this.events.send({ type: 'final_transcript', alternatives }, signal);
        await this.events.send({ type: 'end_of_speech' }, signal);
      }
      this.events.close();
    } catch (error) {
      if (signal.aborted || isAbortError(error)) {
        this.events.close();
      } else {
        this.events.fail(toAPIError(error, this.label));
      }
      // The stream is dead either way; stop the VAD so nothing keeps running for no reader.
      this.controller.abort();
    }
  }
}
