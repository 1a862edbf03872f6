import type { AudioFrame } from '../../audio/audio-frame.js';
import { STTStreamAdapter } from '../../adapters/stt-stream-adapter.js';
import { APITimeoutError, VoxwireError } from '../../errors.js';
import type { ProviderCallOptions } from '../../providers/common.js';
import type { BatchSTT, STT, STTEvent, STTStream } from '../../providers/stt.js';
import type { VAD } from '../../providers/vad.js';
import type { Clock, TimerHandle } from '../../time/clock.js';
import { SttInputFormat } from './stt-input-format.js';

/** A recognizer that only handles finished utterances was given without a VAD to cut them. */
export class MissingVADError extends VoxwireError {
  override name = 'MissingVADError';
}

export interface SttOpenOptions extends ProviderCallOptions {
  language?: string;
  /**
   * A stream given speech must answer it. `utterances()` counts the starts and ends of the speech the
   * VAD heard while the STT heard the user. Once the user stopped, an utterance the stream has not
   * settled (with a final transcript or its own end of speech) must be, within `timeoutMs` of the end or
   * of the stream's last interim; otherwise the stream fails with a retryable `APITimeoutError` and the
   * session restarts it. Nothing is owed while the user still speaks (a recognizer may answer only at
   * the end), nor for silence, so a long monologue or a quiet room never trips it.
   */
  responseDeadline?: {
    clock: Clock;
    timeoutMs: number;
    utterances: () => { starts: number; ends: number };
  };
}

/**
 * Opens recognition streams for one session. Any STT plugs in the same way: a batch recognizer is
 * driven through a VAD that cuts the audio into utterances, and every stream hears mono audio at a rate
 * its recognizer accepts. Adapters are kept per session, so they run on this session's clock.
 */
export class SttStreamOpener {
  private readonly adapters = new WeakMap<BatchSTT, { vad: VAD; adapter: STTStreamAdapter }>();

  constructor(private readonly clock: Clock) {}

  open(stt: STT, vad: VAD | undefined, options: SttOpenOptions): STTStream {
    if (stt.kind === 'batch' && !vad) {
      throw new MissingVADError(
        `${stt.label} recognizes finished utterances only: give the session (or the agent) a VAD so it can cut the audio into utterances`,
      );
    }
    const streaming = stt.kind === 'streaming' ? stt : this.adapterFor(stt, vad!);
    const { responseDeadline, ...streamOptions } = options;
    return new FormattedSttStream(
      (sampleRate) => streaming.stream({ ...streamOptions, sampleRate }),
      stt,
      options.signal,
      responseDeadline,
    );
  }

  private adapterFor(stt: BatchSTT, vad: VAD): STTStreamAdapter {
    let entry = this.adapters.get(stt);
    if (!entry || entry.vad !== vad) {
      entry = { vad, adapter: new STTStreamAdapter(stt, vad, { clock: this.clock }) };
      this.adapters.set(stt, entry);
    }
    return entry.adapter;
  }
}

/**
 * Opens the recognizer's stream when the first frame tells the input's rate, and converts every frame
 * to the rate it was opened with. A recognizer that throws when opened fails this stream's iteration,
 * so the session's restart policy handles it like any other stream failure.
 */
class FormattedSttStream implements STTStream {
  private inner: STTStream | undefined;
  private format: SttInputFormat | undefined;
  private openError: unknown;
  private ended = false;
  private closed = false;
  private readonly opened: Promise<void>;
  private resolveOpened!: () => void;
  /** Pending while the stream owes an answer for speech it was given (see `responseDeadline`). */
  private answerTimer: TimerHandle | undefined;
  private startsSeen: number;
  private endsSeen: number;
  /** An utterance began that the stream has not settled yet. */
  private owed = false;
  private readonly stalled: Promise<never>;
  private failStalled!: (error: unknown) => void;

  private readonly onAbort = (): void => void this.close();

  constructor(
    private readonly openInner: (sampleRate: number) => STTStream,
    private readonly stt: STT,
    private readonly signal: AbortSignal | undefined,
    private readonly responseDeadline: SttOpenOptions['responseDeadline'],
  ) {
    this.opened = new Promise((resolve) => {
      this.resolveOpened = resolve;
    });
    this.stalled = new Promise<never>((_, reject) => {
      this.failStalled = reject;
    });
    this.stalled.catch(() => {});
    // Speech that began before this stream was opened is not this stream's debt.
    const seen = responseDeadline?.utterances() ?? { starts: 0, ends: 0 };
    this.startsSeen = seen.starts;
    this.endsSeen = seen.ends;
    // Until the first frame no provider stream listens to the signal; this one must end on abort too.
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  pushFrame(frame: AudioFrame): void {
    if (this.closed || this.ended || this.openError !== undefined) return;
    if (!this.inner) {
      const rate = SttInputFormat.chooseRate(this.stt.inputSampleRates, frame.sampleRate);
      try {
        this.inner = this.openInner(rate);
      } catch (error) {
        this.openError = error;
        this.resolveOpened();
        return;
      }
      this.format = new SttInputFormat(this.stt.inputSampleRates, rate);
      this.resolveOpened();
    }
    const format = this.format!;
    if (format.passesThrough(frame)) this.inner.pushFrame(frame);
    else for (const piece of format.convert(frame)) this.inner.pushFrame(piece);
    this.followUtterances();
  }

  private followUtterances(): void {
    if (!this.responseDeadline) return;
    const { starts, ends } = this.responseDeadline.utterances();
    if (starts !== this.startsSeen) {
      this.startsSeen = starts;
      this.owed = true;
    }
    if (ends !== this.endsSeen) {
      this.endsSeen = ends;
      if (this.owed && !this.answerTimer) this.expectAnswer();
    }
  }

  /** (Re)arms the answer deadline: the stream owes an event within the timeout. */
  private expectAnswer(): void {
    const deadline = this.responseDeadline;
    this.answered();
    if (!deadline || !Number.isFinite(deadline.timeoutMs)) return;
    this.answerTimer = deadline.clock.setTimer(deadline.timeoutMs, () => {
      this.failStalled(
        new APITimeoutError(
          `${this.stt.label}: no answer within ${deadline.timeoutMs} ms of being given speech`,
        ),
      );
      // The stalled connection is released now; the session opens a new stream.
      void this.inner?.close().catch(() => {});
    });
  }

  private answered(): void {
    this.answerTimer?.cancel();
    this.answerTimer = undefined;
  }

  /** Before the first frame nothing was heard, so there is nothing to finalize. */
  flush(): void {
    this.inner?.flush();
  }

  endInput(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.inner) {
      this.resolveOpened();
      return;
    }
    for (const piece of this.format!.flush()) this.inner.pushFrame(piece);
    this.inner.endInput();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.answered();
    this.signal?.removeEventListener('abort', this.onAbort);
    this.resolveOpened();
    await this.inner?.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    await this.opened;
    if (this.openError !== undefined) throw this.openError;
    if (!this.inner) return;
    const events = this.inner[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        const next = events.next();
        next.catch(() => {});
        const result = await Promise.race([next, this.stalled]);
        if (result.done) {
          finished = true;
          return;
        }
        const type = result.value.type;
        if (type === 'final_transcript' || type === 'end_of_speech') {
          this.owed = false;
          this.answered();
        } else if (this.answerTimer) {
          // A hypothesis after the user stopped promises the rest: the wait starts again.
          this.expectAnswer();
        }
        yield result.value;
      }
    } finally {
      this.answered();
      if (!finished) void Promise.resolve(events.return?.()).catch(() => {});
    }
  }
}
