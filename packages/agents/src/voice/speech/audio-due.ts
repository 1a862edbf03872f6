import type { Clock } from '../../time/clock.js';
import { raceAbort, waitAtMost } from '../../utils/abortable.js';
import type { PlayoutGate } from './playout-gate.js';

/**
 * When the audio a step handed to the sink is due to have played: each frame plays after the ones before
 * it (or at once after an underrun), and time spent paused while the audio was still playing pushes the
 * end back. A healthy sink accepts every frame and reports the end of playout by then; the session gives
 * a sink that does neither a grace on top of it, never more.
 */
export class AudioDue {
  private endAt: number | undefined;
  private pausedSeen: number;

  constructor(
    private readonly clock: Clock,
    private readonly gate: Pick<PlayoutGate, 'pausedTotalMs' | 'pausedSinceMs'>,
  ) {
    this.pausedSeen = gate.pausedTotalMs;
  }

  /** A frame of `durationMs` is being handed to the sink now. */
  frameSent(durationMs: number): void {
    this.countPauses();
    const now = this.clock.now();
    this.endAt = Math.max(this.endAt ?? now, now) + durationMs;
  }

  /** When everything handed over so far should have played (now, before the first frame). */
  get dueAt(): number {
    this.countPauses();
    return this.endAt ?? this.clock.now();
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

  private countPauses(): void {
    const total = this.gate.pausedTotalMs;
    const extra = total - this.pausedSeen;
    if (extra <= 0) return;
    this.pausedSeen = total;
    if (this.endAt === undefined) return;
    // A pause that began once the audio was due held nothing back (the user talked after it played).
    const since = this.gate.pausedSinceMs;
    if (since !== undefined && since >= this.endAt) return;
    this.endAt += extra;
  }
}
