import { abortReason, type Clock, type TimerHandle } from '../../time/clock.js';
import type { PlayoutGate } from './playout-gate.js';

/**
 * When the audio a step handed to the sink is due to have played: each frame plays after the ones before
 * it (or at once after an underrun), and a pause that began while the audio was still playing pushes the
 * end back by its length (one that began once the audio was due held nothing back: the user talked after
 * it played). A healthy sink accepts every frame and reports the end of playout by then; the session
 * gives a sink that does neither a grace on top of it, never more. `dispose()` when the step ends.
 */
export class AudioDue {
  private endAt: number | undefined;
  /** The pause going on, if it counts against the audio. */
  private countedPauseSince: number | undefined;
  /**
   * The signal the waits listen to, and the aborts of the waits in progress. A step waits on one frame
   * after another with the same signal: one listener for all of them, rather than one added and removed
   * per frame.
   */
  private watched: AbortSignal | undefined;
  private readonly aborts = new Set<() => void>();
  private readonly onAbort = (): void => {
    this.watched = undefined;
    for (const abort of [...this.aborts]) abort();
  };
  private readonly unwatchGate: () => void;
  readonly dispose = (): void => {
    this.unwatchGate();
    this.watch(undefined);
  };

  constructor(
    private readonly clock: Clock,
    gate: Pick<PlayoutGate, 'paused' | 'watch'>,
  ) {
    this.unwatchGate = gate.watch((paused) => (paused ? this.paused() : this.resumed()));
    if (gate.paused) this.paused();
  }

  /** A frame of `durationMs` is being handed to the sink now. */
  frameSent(durationMs: number): void {
    const now = this.clock.now();
    // Frames wait for the gate to open, so no pause is going on here.
    this.endAt = Math.max(this.endAt ?? now, now) + durationMs;
  }

  /** When everything handed over so far should have played (now, before the first frame). */
  get dueAt(): number {
    const now = this.clock.now();
    if (this.endAt === undefined) return now;
    return this.endAt + (this.countedPauseSince === undefined ? 0 : now - this.countedPauseSince);
  }

  /**
   * Waits for `work` until the audio is due plus `graceMs`, however often pauses push that back.
   * Resolves `{ value }`, or `undefined` once the deadline has passed; rejects when `signal` aborts.
   */
  waitFor<T>(work: Promise<T>, graceMs: number, signal: AbortSignal): Promise<{ value: T } | undefined> {
    // One promise, one reaction on the work and one timer per wait: a step waits like this on every frame.
    const remaining = this.dueAt + graceMs - this.clock.now();
    if (remaining <= 0) {
      // Given up on: a later failure of the work belongs to no one.
      work.catch(() => {});
      return Promise.resolve(undefined);
    }
    if (signal.aborted) {
      work.catch(() => {});
      return Promise.reject(abortReason(signal));
    }
    // Waits on another signal while the shared one is in use listen on their own.
    const shared = this.aborts.size === 0 || this.watched === signal;
    if (shared) this.watch(signal);
    return new Promise<{ value: T } | undefined>((resolve, reject) => {
      let timer: TimerHandle | undefined;
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        timer?.cancel();
        timer = undefined;
        if (shared) this.aborts.delete(abort);
        else signal.removeEventListener('abort', abort);
        return true;
      };
      const abort = (): void => {
        if (settle()) reject(abortReason(signal));
      };
      // The deadline moves when a pause pushes the audio back: look again when the timer fires.
      const onTimer = (): void => {
        timer = undefined;
        if (settled) return;
        const left = this.dueAt + graceMs - this.clock.now();
        if (left <= 0) {
          if (settle()) resolve(undefined);
          return;
        }
        timer = this.clock.setTimer(left, onTimer);
      };
      if (shared) this.aborts.add(abort);
      else signal.addEventListener('abort', abort, { once: true });
      work.then(
        (value) => {
          if (settle()) resolve({ value });
        },
        (error: unknown) => {
          if (settle()) reject(error);
        },
      );
      if (!settled) timer = this.clock.setTimer(remaining, onTimer);
    });
  }

  private watch(signal: AbortSignal | undefined): void {
    if (this.watched === signal) return;
    this.watched?.removeEventListener('abort', this.onAbort);
    this.watched = signal;
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private paused(): void {
    const now = this.clock.now();
    if (this.endAt !== undefined && now < this.endAt) this.countedPauseSince = now;
  }

  private resumed(): void {
    if (this.countedPauseSince === undefined || this.endAt === undefined) return;
    this.endAt += this.clock.now() - this.countedPauseSince;
    this.countedPauseSince = undefined;
  }
}
