/**
 * Where `inference: 'auto'` runs batches: on the main thread while inference is a small share of it,
 * in worker threads once it is not. Worker threads cost a process about 25 MiB of RSS each and two
 * thread wake-ups per batch (about 140 µs each on a virtual machine), which a light load does not earn
 * back; a heavy load inline blocks the event loop for every batch it runs.
 *
 * The policy only decides; the pool acts (starts or retires the workers) and reports back. Times are
 * passed in, so the policy is checked on a fake clock.
 */
export interface PlacementSettings {
  /** Share of wall time that inference on the main thread may take, over `windowMs`, before workers start. */
  startShare: number;
  /** Workers are retired once inference has stayed below this share for `returnAfterMs`. */
  returnShare: number;
  /** The sliding window over which the share is measured. */
  windowMs: number;
  returnAfterMs: number;
  /** After workers failed to start or died, how long the pool stays on the main thread before trying again. */
  retryAfterMs: number;
}

/**
 * Chosen by measurement on the whole-session benchmark (README, "Placement"; 2-core virtual machine):
 * inference inline takes about 1.5% of the main thread at 1 session, 3% at 25, 8% at 100, 12-16% at 150
 * and 17-27% at 200. Up to 100 sessions inline costs less CPU and RSS than workers, for an event-loop p99
 * delay 1-7 ms higher and replies at most 1 ms later; at 150 the delay is 5 ms worse, at 200 the
 * batches inline hold up turns (p95 latency +70 ms). The share is wall time, so a busy machine inflates it: at 12% a noisy
 * 100-session run crossed it, and starting the workers mid-run costs a burst of CPU (their start-up)
 * that shows in that run's latency. 15% keeps 100 sessions inline and moves 200. The return share is
 * 2.5 times lower and must hold for a minute, so a load near the threshold, or a burst of backlogged
 * streams, does not start and retire workers over and over.
 */
export const DEFAULT_PLACEMENT: Readonly<PlacementSettings> = {
  startShare: 0.15,
  returnShare: 0.06,
  windowMs: 2000,
  returnAfterMs: 60_000,
  retryAfterMs: 30_000,
};

const BUCKETS = 8;

/** Inference time summed over a sliding window, in fixed buckets so recording allocates nothing. */
export class LoadMeter {
  private readonly sums = new Float64Array(BUCKETS);
  private readonly bucketMs: number;
  private head = 0;
  private headStart = Number.NaN;
  private total = 0;

  constructor(readonly windowMs: number) {
    this.bucketMs = windowMs / BUCKETS;
  }

  add(ms: number, now: number): void {
    this.advance(now);
    this.sums[this.head] = (this.sums[this.head] as number) + ms;
    this.total += ms;
  }

  /**
   * The share of the time spent in inference over the buckets in the window: the older ones, in full,
   * and the current one so far. Before a whole window has passed, the time before the first batch
   * counts as idle, so a single slow first batch does not read as a heavy load.
   */
  share(now: number): number {
    this.advance(now);
    if (this.total === 0) return 0;
    return this.total / ((BUCKETS - 1) * this.bucketMs + (now - this.headStart));
  }

  reset(): void {
    this.sums.fill(0);
    this.total = 0;
    this.headStart = Number.NaN;
  }

  private advance(now: number): void {
    if (Number.isNaN(this.headStart)) {
      this.headStart = now;
      return;
    }
    const steps = Math.floor((now - this.headStart) / this.bucketMs);
    if (steps <= 0) return;
    if (steps >= BUCKETS) {
      this.sums.fill(0);
      this.total = 0;
      this.head = 0;
    } else {
      for (let i = 0; i < steps; i++) {
        this.head = (this.head + 1) % BUCKETS;
        this.total -= this.sums[this.head] as number;
        this.sums[this.head] = 0;
      }
      // Float sums drift by a few ulps as buckets leave; a window that emptied reads as 0, not -1e-17.
      if (this.total < 1e-9) this.total = 0;
    }
    this.headStart += steps * this.bucketMs;
  }
}

export type Placement = 'main-thread' | 'workers';

export class PlacementPolicy {
  private readonly meter: LoadMeter;
  private current: Placement = 'main-thread';
  private lastAboveReturnAt = 0;
  private retryAt = Number.NEGATIVE_INFINITY;

  constructor(readonly settings: Readonly<PlacementSettings> = DEFAULT_PLACEMENT) {
    this.meter = new LoadMeter(settings.windowMs);
  }

  get placement(): Placement {
    return this.current;
  }

  /** The share of the window spent in inference, wherever it ran. */
  share(now: number): number {
    return this.meter.share(now);
  }

  /** A batch ran on the main thread; true when workers should start now. */
  ranInline(inferenceMs: number, now: number): boolean {
    this.meter.add(inferenceMs, now);
    return (
      this.current === 'main-thread' &&
      now >= this.retryAt &&
      this.meter.share(now) > this.settings.startShare
    );
  }

  /** A batch ran in a worker; true when the load has been low long enough to go back to the main thread. */
  ranInWorker(inferenceMs: number, now: number): boolean {
    this.meter.add(inferenceMs, now);
    if (this.current !== 'workers') return false;
    if (this.meter.share(now) >= this.settings.returnShare) {
      this.lastAboveReturnAt = now;
      return false;
    }
    return now - this.lastAboveReturnAt >= this.settings.returnAfterMs;
  }

  workersStarted(now: number): void {
    this.current = 'workers';
    this.lastAboveReturnAt = now;
  }

  /** The workers could not start or died: stay on the main thread for a while. */
  workersFailed(now: number): void {
    this.current = 'main-thread';
    this.retryAt = now + this.settings.retryAfterMs;
  }

  returnedInline(): void {
    this.current = 'main-thread';
  }
}
