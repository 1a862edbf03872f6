import { abortReason, type Clock, type TimerHandle } from '../../time/clock.js';
import { SmallSet } from '../../utils/small-set.js';
import type { PlayoutGate } from './playout-gate.js';

interface DueWait {
  readonly graceMs: number;
  /** The deadline passed: the wait resolves `undefined`. */
  expire(): void;
}

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
  private readonly aborts = new SmallSet<() => void>();
  private readonly onAbort = (): void => {
    this.watched = undefined;
    for (const abort of this.aborts.toArray()) abort();
    // The step is over: nothing is left for the wake timer to give up on.
    if (this.waits.size === 0) this.stopWaking();
  };
  /** The waits in progress, each given up on once the audio is due plus its grace. */
  private readonly waits = new SmallSet<DueWait>();
  /** One timer for every wait of the step, and when it fires. */
  private wakeTimer: TimerHandle | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private readonly unwatchGate: () => void;
  readonly dispose = (): void => {
    this.unwatchGate();
    this.watch(undefined);
    this.stopWaking();
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
    // One promise and one reaction on the work per wait: a step waits like this on every frame.
    const deadline = this.dueAt + graceMs;
    if (deadline <= this.clock.now()) {
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
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        this.waits.delete(wait);
        if (shared) this.aborts.delete(abort);
        else signal.removeEventListener('abort', abort);
        return true;
      };
      const abort = (): void => {
        if (settle()) reject(abortReason(signal));
      };
      const wait: DueWait = {
        graceMs,
        expire: () => {
          if (settle()) resolve(undefined);
        },
      };
      this.waits.add(wait);
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
      this.wakeBy(deadline);
    });
  }

  /**
   * Makes sure the wake timer fires by `at`. A timer already due earlier is kept: when it fires it looks
   * at the deadlines as they are then and sleeps again until the nearest. Frames are taken long before
   * their deadline, so a step re-arms the timer about once per grace period instead of once per frame.
   */
  private wakeBy(at: number): void {
    if (this.wakeTimer && this.wakeAt <= at) return;
    this.wakeTimer?.cancel();
    this.wakeAt = at;
    this.wakeTimer = this.clock.setTimer(at - this.clock.now(), this.onWake);
  }

  private stopWaking(): void {
    this.wakeTimer?.cancel();
    this.wakeTimer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  private readonly onWake = (): void => {
    this.wakeTimer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    // A pause may have pushed a deadline back since the timer was armed: each is read again now.
    const now = this.clock.now();
    const due = this.dueAt;
    let next = Number.POSITIVE_INFINITY;
    for (const wait of this.waits.toArray()) {
      const deadline = due + wait.graceMs;
      if (deadline <= now) wait.expire();
      else next = Math.min(next, deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) this.wakeBy(next);
  };

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
