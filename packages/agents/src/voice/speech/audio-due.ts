import type { Clock } from '../../time/clock.js';
import { raceAbort, waitAtMost } from '../../utils/abortable.js';
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
  readonly dispose: () => void;

  constructor(
    private readonly clock: Clock,
    gate: Pick<PlayoutGate, 'paused' | 'watch'>,
  ) {
    this.dispose = gate.watch((paused) => (paused ? this.paused() : this.resumed()));
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
  async waitFor<T>(
    work: Promise<T>,
    graceMs: number,
    signal: AbortSignal,
  ): Promise<{ value: T } | undefined> {
    const boxed = work.then((value) => ({ value }));
    for (;;) {
      const remaining = this.dueAt + graceMs - this.clock.now();
      if (remaining <= 0) return undefined;
      const result = await raceAbort(waitAtMost(this.clock, boxed, remaining), signal);
      if (result) return result;
    }
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
