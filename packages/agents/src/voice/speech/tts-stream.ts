import { TTSStreamAdapter } from '../../adapters/tts-stream-adapter.js';
import { APITimeoutError } from '../../errors.js';
import type { ProviderProblem } from '../../providers/common.js';
import type { BatchTTS, SynthesizedAudio, TTS, TTSStream } from '../../providers/tts.js';
import type { Clock, TimerHandle } from '../../time/clock.js';
import { SmallSet } from '../../utils/small-set.js';

export interface TtsDeadlines {
  clock: Clock;
  /** Longest wait for the first audio once the synthesizer has all of its text. */
  firstAudioTimeoutMs: number;
  /** Longest gap in the audio once the synthesizer has all of its text. */
  audioTimeoutMs: number;
}

/**
 * Opens streaming syntheses for one session. A batch synthesizer gets the reply cut into sentences by
 * an adapter kept per session, so no state is shared between sessions. Every stream has deadlines: one
 * that stops producing audio it owes fails with a retryable `APITimeoutError`, even if it ignores its
 * signal.
 */
export class TtsStreamOpener {
  private readonly adapters = new WeakMap<BatchTTS, TTSStreamAdapter>();

  constructor(
    private readonly onProblem: (problem: ProviderProblem) => void,
    private readonly deadlines: TtsDeadlines,
  ) {}

  open(tts: TTS, signal: AbortSignal): TTSStream {
    const options = { signal, onProblem: this.onProblem };
    let inner: TTSStream;
    if (tts.kind === 'streaming') {
      inner = tts.stream(options);
    } else {
      let adapter = this.adapters.get(tts);
      if (!adapter) {
        adapter = new TTSStreamAdapter(tts);
        this.adapters.set(tts, adapter);
      }
      inner = adapter.stream(options);
    }
    return new DeadlinedTtsStream(inner, tts.label, this.deadlines);
  }
}

/**
 * A synthesis whose audio must come in time once the synthesizer has all of its text. Before the end of
 * input it may legitimately wait for more words (a synthesizer that speaks whole sentences), and a slow
 * model has deadlines of its own; from `endInput()` on it owes the rest: its first audio within
 * `firstAudioTimeoutMs`, then each next piece within `audioTimeoutMs`. As with `withIdleTimeout`, the
 * clock runs only while the session waits for the synthesizer, never while it plays what it received
 * (a paused speech, a sink applying back-pressure). A miss fails the stream with a retryable
 * `APITimeoutError` at once, even when the synthesizer ignores its signal, and releases it.
 */
class DeadlinedTtsStream implements TTSStream {
  private inputEnded = false;
  private heardAudio = false;
  /** True while the session waits for the next piece of audio. */
  private waiting = false;
  /** When the clock of the wait in progress started: its start, or the end of input if that came later. */
  private clockStartedAt = 0;
  /**
   * Armed by the first wait that runs the clock and left armed between waits: when it fires it looks at
   * the wait going on then, if any, and sleeps again until that one's deadline. A synthesis yields
   * dozens of pieces per second, each in time, so this re-arms about once per deadline, not per piece.
   */
  private timer: TimerHandle | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** Set once a deadline was missed: every wait for audio fails with it from then on. */
  private stallError: unknown;
  private stalledFlag = false;
  /** Set by `close()`: waits for audio end at once, even if the synthesizer never answers. */
  private closedFlag = false;
  /** The waits in progress, settled at once by a missed deadline or a close. */
  private readonly waits = new SmallSet<DeadlinedWait>();

  constructor(
    private readonly inner: TTSStream,
    private readonly label: string,
    private readonly deadlines: TtsDeadlines,
  ) {}

  pushText(text: string): void {
    this.inner.pushText(text);
  }

  flush(): void {
    this.inner.flush();
  }

  endInput(): void {
    this.inner.endInput();
    if (!this.inputEnded && this.waiting) this.clockStartedAt = this.deadlines.clock.now();
    this.inputEnded = true;
    this.arm();
  }

  close(): Promise<void> {
    this.disarm();
    this.closedFlag = true;
    for (const wait of this.waits.toArray()) wait.end();
    return this.inner.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio> {
    return new DeadlinedAudio(this, this.inner);
  }

  /** @internal One wait for the next piece of audio of `audio`, with the stream's deadlines. */
  wait(
    audio: AsyncIterator<SynthesizedAudio>,
    reader: DeadlinedAudio,
  ): Promise<IteratorResult<SynthesizedAudio>> {
    const next = audio.next();
    return new Promise<IteratorResult<SynthesizedAudio>>((resolve, reject) => {
      const wait = new DeadlinedWait(this, reader, resolve, reject);
      if (this.stalledFlag || this.closedFlag) {
        next.catch(() => {});
        if (this.stalledFlag) wait.fail(this.stallError);
        else wait.end();
        return;
      }
      this.waits.add(wait);
      if (!this.waiting) this.clockStartedAt = this.deadlines.clock.now();
      this.waiting = true;
      this.arm();
      next.then(
        (result) => wait.settle(result),
        (error: unknown) => wait.fail(error),
      );
    });
  }

  /** @internal A wait settled: the clock stops until the next one. */
  waitEnded(wait: DeadlinedWait, gotAudio: boolean): void {
    this.waits.delete(wait);
    // The timer stays armed: the next wait, which usually follows at once, reuses it.
    if (this.waits.size === 0) this.waiting = false;
    if (gotAudio) this.heardAudio = true;
  }

  /** The deadline of the wait in progress, if its clock runs. */
  private deadline(): number | undefined {
    if (!this.inputEnded || !this.waiting) return undefined;
    const ms = this.heardAudio ? this.deadlines.audioTimeoutMs : this.deadlines.firstAudioTimeoutMs;
    return Number.isFinite(ms) ? this.clockStartedAt + ms : undefined;
  }

  private arm(): void {
    const at = this.deadline();
    if (at === undefined || (this.timer && this.timerAt <= at)) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.deadlines.clock.setTimer(at - this.deadlines.clock.now(), this.onTimer);
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const at = this.deadline();
    if (at === undefined) return;
    if (at > this.deadlines.clock.now()) {
      this.arm();
      return;
    }
    const ms = at - this.clockStartedAt;
    this.stalledFlag = true;
    this.stallError = new APITimeoutError(
      this.heardAudio
        ? `${this.label}: no audio for ${ms} ms`
        : `${this.label}: no audio within ${ms} ms of the end of its text`,
    );
    for (const wait of this.waits.toArray()) wait.fail(this.stallError);
    // A synthesizer that stalled is released now; a hung close must not hold the speech either.
    void this.inner.close().catch(() => {});
  };

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** One pending wait for audio: the first of the audio, a missed deadline or a close settles it. */
class DeadlinedWait {
  private settled = false;

  constructor(
    private readonly stream: DeadlinedTtsStream,
    private readonly reader: DeadlinedAudio,
    private readonly resolve: (result: IteratorResult<SynthesizedAudio>) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  settle(result: IteratorResult<SynthesizedAudio>): void {
    if (this.settled) return;
    this.settled = true;
    this.stream.waitEnded(this, !result.done);
    this.reader.answered(result.done === true);
    this.resolve(result.done ? DONE : result);
    this.reader.resumeQueued();
  }

  end(): void {
    this.settle(DONE);
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stream.waitEnded(this, false);
    this.reader.failed();
    this.reject(error);
    this.reader.resumeQueued();
  }
}

/**
 * One pass over the stream's audio. A plain iterator rather than an async generator: a synthesis yields
 * dozens of pieces per second of audio, and a generator's await and yield cost several promises each.
 * As a generator would, it answers one call after the other, and stops the synthesizer's iterator when
 * it is left early (a `return()`, or a failure other than the synthesizer's own end).
 */
class DeadlinedAudio implements AsyncIterator<SynthesizedAudio> {
  private audio: AsyncIterator<SynthesizedAudio> | undefined;
  private finished = false;
  /** A `next()` is in progress: calls made meanwhile wait their turn, in order. */
  private busy = false;
  private readonly queued: Array<() => void> = [];

  constructor(
    private readonly stream: DeadlinedTtsStream,
    private readonly inner: TTSStream,
  ) {}

  next(): Promise<IteratorResult<SynthesizedAudio>> {
    if (this.busy) return this.later(() => this.next());
    if (this.finished) return Promise.resolve(DONE);
    this.audio ??= this.inner[Symbol.asyncIterator]();
    this.busy = true;
    return this.stream.wait(this.audio, this);
  }

  return(): Promise<IteratorResult<SynthesizedAudio>> {
    if (this.busy) return this.later(() => this.return());
    this.stop();
    return Promise.resolve(DONE);
  }

  /** @internal */
  answered(done: boolean): void {
    this.busy = false;
    if (done) this.finished = true;
  }

  /** @internal */
  failed(): void {
    this.busy = false;
    this.stop();
  }

  /** @internal The call in progress was answered: the next one waiting goes. */
  resumeQueued(): void {
    this.queued.shift()?.();
  }

  private later(
    call: () => Promise<IteratorResult<SynthesizedAudio>>,
  ): Promise<IteratorResult<SynthesizedAudio>> {
    return new Promise((resolve, reject) => {
      this.queued.push(() => {
        call().then(resolve, reject);
      });
    });
  }

  /** Leaves the synthesizer's iterator early: it is told to stop, without waiting for it. */
  private stop(): void {
    if (this.finished) return;
    this.finished = true;
    const audio = this.audio;
    if (audio) void Promise.resolve(audio.return?.()).catch(() => {});
  }
}
