/** The most pushes remembered: at 10 ms a frame, 40 s of audio not yet finalized. */
const MAX_ENTRIES = 4_096;

/**
 * When each piece of audio was pushed, by stream position: a final transcript's last word ends at a
 * position, and the clock time that audio arrived is when the user stopped speaking. Bounded: the
 * oldest pushes are forgotten first, and finalized audio is forgotten as it is acknowledged.
 */
export class PushTimeline {
  private ends: number[] = [];
  private times: number[] = [];
  private head = 0;
  /** The end of the last forgotten push: positions up to it are unknown. */
  private forgottenUntil = Number.NEGATIVE_INFINITY;

  /** Audio up to `endPositionMs` was pushed at `atMs`. */
  pushed(endPositionMs: number, atMs: number): void {
    this.ends.push(endPositionMs);
    this.times.push(atMs);
    if (this.ends.length - this.head > MAX_ENTRIES) this.forget();
    this.compact();
  }

  /** When the audio at `positionMs` was pushed; undefined when forgotten or not pushed yet. */
  at(positionMs: number): number | undefined {
    // Timestamps come back as seconds with rounding: a hair past a frame's end still belongs to it.
    if (positionMs <= this.forgottenUntil + 0.5) return undefined;
    let low = this.head;
    let high = this.ends.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.ends[middle]! + 0.5 < positionMs) low = middle + 1;
      else high = middle;
    }
    return low < this.ends.length ? this.times[low] : undefined;
  }

  /** Audio before `positionMs` is finalized: forgets it. */
  forgetBefore(positionMs: number): void {
    while (this.head < this.ends.length && this.ends[this.head]! < positionMs) this.forget();
    this.compact();
  }

  private forget(): void {
    this.forgottenUntil = this.ends[this.head]!;
    this.head++;
  }

  private compact(): void {
    if (this.head < 1_024 || this.head * 2 < this.ends.length) return;
    this.ends = this.ends.slice(this.head);
    this.times = this.times.slice(this.head);
    this.head = 0;
  }
}
