/**
 * When each stretch of a stream's audio was pushed, on the session clock. A VAD reports positions in the
 * audio it was given (`timestampMs`); its events arrive later than that audio did, by however long the
 * analysis took (a worker thread, a batch). Dating the user's last speech by the event's arrival would
 * add that delay to every turn's endpointing; dating it by when that audio arrived does not.
 */
export class PushedAudioClock {
  /**
   * Recent pushes in a ring, oldest first from `first`: the audio each ended at (ms of the stream) and
   * when it was pushed. Typed arrays rather than an array of records: a push comes with every input
   * frame, and shifting the oldest out of a full array moved every other entry each time.
   */
  private readonly endMs: Float64Array;
  private readonly atMs: Float64Array;
  private first = 0;
  private count = 0;
  /** Where the oldest push kept began. */
  private startMs = 0;
  private positionMs = 0;

  constructor(private readonly capacity = 512) {
    this.endMs = new Float64Array(capacity);
    this.atMs = new Float64Array(capacity);
  }

  /** Starts a new stream's timeline (its positions start at 0 again). */
  reset(): void {
    this.first = 0;
    this.count = 0;
    this.startMs = 0;
    this.positionMs = 0;
  }

  pushed(durationMs: number, atMs: number): void {
    this.positionMs += durationMs;
    const capacity = this.capacity;
    if (capacity === 0) {
      this.startMs = this.positionMs;
      return;
    }
    if (this.count === capacity) {
      // Full: the oldest push gives way, and the audio it carried is no longer known.
      this.startMs = this.endMs[this.first]!;
      this.first = (this.first + 1) % capacity;
      this.count--;
    }
    const slot = (this.first + this.count) % capacity;
    this.endMs[slot] = this.positionMs;
    this.atMs[slot] = atMs;
    this.count++;
  }

  /**
   * The clock time at which the audio at `positionMs` was heard: the push that carried it, less the audio
   * after it in that push. Undefined when it is not among the recent pushes.
   */
  timeOf(positionMs: number): number | undefined {
    if (!(positionMs >= this.startMs && positionMs <= this.positionMs) || this.count === 0) return undefined;
    const capacity = this.capacity;
    // The first push ending at or after the position carries it.
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.endMs[(this.first + mid) % capacity]! < positionMs) lo = mid + 1;
      else hi = mid;
    }
    const slot = (this.first + lo) % capacity;
    return this.atMs[slot]! - (this.endMs[slot]! - positionMs);
  }
}
