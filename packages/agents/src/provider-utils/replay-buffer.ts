/**
 * How a `ReplayBuffer` learns that the provider no longer needs something:
 * - `acknowledged`: only through `acknowledge()`, as the provider confirms what it processed (a
 *   transcript up to an audio position, a synthesis that finished). Whatever had to leave the buffer
 *   unacknowledged counts as lost;
 * - `window`: the buffer simply keeps the most recent data (the last seconds of audio); what leaves it
 *   after reaching a provider is assumed processed. Only data that never reached one counts as lost.
 */
export type ReplayMode = 'acknowledged' | 'window';

export interface ReplayBufferOptions {
  /** The most data kept, in the unit of the sizes given to `push` (ms of audio, or items). At least 0. */
  capacity: number;
  /** The most entries kept, whatever their size. Default 1_000. */
  maxEntries?: number;
  /** Default `window`. */
  mode?: ReplayMode;
}

interface Entry<T> {
  readonly item: T;
  readonly start: number;
  readonly end: number;
  /** Sent on a live connection at least once. */
  delivered: boolean;
}

const DEFAULT_MAX_ENTRIES = 1_000;

/**
 * What was sent on a connection the provider may not have processed yet, kept to be sent again on the
 * next one. Every item has a size (ms of audio, 1 per message, 0 for control messages) and positions
 * are running sums of sizes: `push` returns the position after the item, `acknowledge(position)`
 * drops everything that ends there or before. Bounded by `capacity` and `maxEntries`: the oldest
 * entries leave first, and what they carried is accounted for by `takeLost()`.
 */
export class ReplayBuffer<T> {
  readonly capacity: number;
  readonly maxEntries: number;
  readonly mode: ReplayMode;
  private entries: Array<Entry<T> | undefined> = [];
  private head = 0;
  private kept = 0;
  private end = 0;
  private acked = 0;
  /** Where the data not yet reported lost begins (acknowledged mode). */
  private accountedUntil = 0;
  /** Data that left before reaching any provider, not yet reported (window mode). */
  private undeliveredLost = 0;

  constructor(options: ReplayBufferOptions) {
    if (!(options.capacity >= 0))
      throw new RangeError(`capacity must be at least 0, got ${options.capacity}`);
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    if (!Number.isInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
    }
    this.capacity = options.capacity;
    this.maxEntries = maxEntries;
    this.mode = options.mode ?? 'window';
  }

  /** The position after everything pushed so far. */
  get position(): number {
    return this.end;
  }

  /** The highest position acknowledged (in `window` mode, also what aged out after delivery). */
  get acknowledged(): number {
    return this.acked;
  }

  /** Where the kept entries start: a replay begins here. Equals `position` when nothing is kept. */
  get start(): number {
    return this.entries[this.head]?.start ?? this.end;
  }

  /** Entries kept. */
  get length(): number {
    return this.entries.length - this.head;
  }

  /** Total size kept. */
  get size(): number {
    return this.kept;
  }

  /**
   * Keeps `item` and returns the position after it. `delivered` says whether it is also being sent on
   * a live connection right now. The oldest entries leave when the bounds are exceeded, this one too if
   * it cannot fit at all.
   */
  push(item: T, size: number, delivered: boolean): number {
    if (!(size >= 0 && Number.isFinite(size))) throw new RangeError(`size must be at least 0, got ${size}`);
    const start = this.end;
    this.end += size;
    this.entries.push({ item, start, end: this.end, delivered });
    this.kept += size;
    while (this.length > 0 && (this.kept > this.capacity || this.length > this.maxEntries)) this.evict();
    return this.end;
  }

  /** The provider processed everything up to `position`: what ends there or before is dropped. */
  acknowledge(position: number): void {
    if (!(position > this.acked)) return;
    this.acked = Math.min(position, this.end);
    while (this.length > 0 && this.entries[this.head]!.end <= this.acked) this.drop();
  }

  /** The kept items, oldest first, now marked delivered: they are about to be sent again. */
  replay(): T[] {
    const items: T[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      entry.delivered = true;
      items.push(entry.item);
    }
    return items;
  }

  /**
   * How much data can no longer reach a provider, since the last call: in `acknowledged` mode all that
   * left unacknowledged, in `window` mode what left before it was ever delivered. Called when a new
   * connection starts, so each loss is reported once.
   */
  takeLost(): number {
    const lost =
      this.mode === 'acknowledged'
        ? Math.max(0, this.start - Math.max(this.accountedUntil, this.acked))
        : this.undeliveredLost;
    this.undeliveredLost = 0;
    this.accountedUntil = Math.max(this.accountedUntil, this.start);
    return lost;
  }

  /** Forgets everything kept (the stream is over). Positions stay. */
  clear(): void {
    while (this.length > 0) this.drop();
  }

  private evict(): void {
    const entry = this.entries[this.head]!;
    if (this.mode === 'window') {
      // What reached a provider and aged out of the window counts as processed.
      if (entry.delivered) this.acked = Math.max(this.acked, entry.end);
      else this.undeliveredLost += entry.end - entry.start;
    }
    this.drop();
  }

  private drop(): void {
    const entry = this.entries[this.head]!;
    this.kept -= entry.end - entry.start;
    this.entries[this.head] = undefined;
    this.head++;
    if (this.head === this.entries.length) {
      this.entries.length = 0;
      this.head = 0;
      // Sums of fractional sizes drift; an empty buffer holds exactly nothing.
      this.kept = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.entries.length) {
      // Compacted lazily, as in Channel: no copy per drop, no slot kept forever.
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
