/**
 * When each stretch of a stream's audio was pushed, on the session clock. A VAD reports positions in the
 * audio it was given (`timestampMs`); its events arrive later than that audio did, by however long the
 * analysis took (a worker thread, a batch). Dating the user's last speech by the event's arrival would
 * add that delay to every turn's endpointing; dating it by when that audio arrived does not.
 */
export class PushedAudioClock {
  /** Recent pushes: the audio position each ended at and when it was pushed. Oldest first. */
  private readonly ends: number[] = [];
  private readonly times: number[] = [];
  private positionMs = 0;

  constructor(private readonly capacity = 512) {}

  /** Starts a new stream's timeline (its positions start at 0 again). */
  reset(): void {
    this.ends.length = 0;
    this.times.length = 0;
    this.positionMs = 0;
  }

  pushed(durationMs: number, atMs: number): void {
    this.positionMs += durationMs;
    this.ends.push(this.positionMs);
    this.times.push(atMs);
    if (this.ends.length > this.capacity) {
      this.ends.shift();
      this.times.shift();
    }
  }

  /**
   * The clock time at which the audio at `positionMs` was heard: the push that carried it, less the audio
   * after it in that push. Undefined when it is not among the recent pushes.
   */
  timeOf(positionMs: number): number | undefined {
    if (!Number.isFinite(positionMs) || positionMs < 0 || positionMs > this.positionMs) return undefined;
    // Binary search for the first push ending at or after the position.
    let lo = 0;
    let hi = this.ends.length - 1;
    if (hi < 0 || positionMs < (this.ends[0] as number) - this.firstDuration()) return undefined;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.ends[mid] as number) < positionMs) lo = mid + 1;
      else hi = mid;
    }
    return (this.times[lo] as number) - ((this.ends[lo] as number) - positionMs);
  }

  private firstDuration(): number {
    return this.ends.length > 1 ? (this.ends[1] as number) - (this.ends[0] as number) : (this.ends[0] ?? 0);
  }
}
