/**
 * When each stretch of a stream's audio was pushed, on the session clock. A VAD reports positions in the
 * audio it was given (`timestampMs`); its events arrive later than that audio did, by however long the
 * analysis took (a worker thread, a batch). Dating the user's last speech by the event's arrival would
 * add that delay to every turn's endpointing; dating it by when that audio arrived does not.
 */
export class PushedAudioClock {
  /** Recent pushes, oldest first: the audio each ended at (ms of the stream) and when it was pushed. */
  private readonly pushes: Array<{ endMs: number; atMs: number }> = [];
  /** Where the oldest push kept began. */
  private startMs = 0;
  private positionMs = 0;

  constructor(private readonly capacity = 512) {}

  /** Starts a new stream's timeline (its positions start at 0 again). */
  reset(): void {
    this.pushes.length = 0;
    this.startMs = 0;
    this.positionMs = 0;
  }

  pushed(durationMs: number, atMs: number): void {
    this.positionMs += durationMs;
    this.pushes.push({ endMs: this.positionMs, atMs });
    if (this.pushes.length > this.capacity) this.startMs = this.pushes.shift()!.endMs;
  }

  /**
   * The clock time at which the audio at `positionMs` was heard: the push that carried it, less the audio
   * after it in that push. Undefined when it is not among the recent pushes.
   */
  timeOf(positionMs: number): number | undefined {
    if (!(positionMs >= this.startMs && positionMs <= this.positionMs) || this.pushes.length === 0)
      return undefined;
    // The first push ending at or after the position carries it.
    let lo = 0;
    let hi = this.pushes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.pushes[mid]!.endMs < positionMs) lo = mid + 1;
      else hi = mid;
    }
    const push = this.pushes[lo]!;
    return push.atMs - (push.endMs - positionMs);
  }
}
