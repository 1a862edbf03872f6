import { describe, expect, it } from 'vitest';
import { DEFAULT_PLACEMENT, LoadMeter, PlacementPolicy, type PlacementSettings } from './placement.js';

const settings: PlacementSettings = {
  startShare: 0.05,
  returnShare: 0.02,
  windowMs: 2000,
  returnAfterMs: 60_000,
  retryAfterMs: 30_000,
};

/** Feeds `share` of each 32 ms window round for `durationMs`, from `from`; returns the first true answer's time. */
function feed(
  record: (ms: number, now: number) => boolean,
  share: number,
  from: number,
  durationMs: number,
): number | undefined {
  for (let t = from; t < from + durationMs; t += 32) if (record(32 * share, t)) return t;
  return undefined;
}

describe('LoadMeter', () => {
  it('sums the last window and forgets what slid out of it', () => {
    const meter = new LoadMeter(1000);
    meter.add(50, 0);
    meter.add(50, 400);
    // Seven whole 125 ms buckets and 25 ms of the current one.
    expect(meter.share(900)).toBeCloseTo(100 / 900);
    // The first bucket (0-125 ms) has left the window by 1 125 ms, the second add by 1 525 ms.
    expect(meter.share(1130)).toBeCloseTo(50 / 880);
    expect(meter.share(1530)).toBe(0);
    meter.add(10, 10_000);
    expect(meter.share(10_000)).toBeCloseTo(10 / 875);
  });

  it('reads 0 after a long gap and after reset', () => {
    const meter = new LoadMeter(2000);
    for (let t = 0; t < 2000; t += 10) meter.add(1, t);
    expect(meter.share(2000)).toBeCloseTo(0.1);
    expect(meter.share(1_000_000)).toBe(0);
    meter.add(5, 1_000_001);
    meter.reset();
    expect(meter.share(1_000_002)).toBe(0);
  });
});

describe('PlacementPolicy', () => {
  it('stays on the main thread while inference is below the start share', () => {
    const policy = new PlacementPolicy(settings);
    expect(feed((ms, now) => policy.ranInline(ms, now), 0.04, 0, 120_000)).toBeUndefined();
    expect(policy.placement).toBe('main-thread');
  });

  it('asks for workers within one window once inference exceeds the start share', () => {
    const policy = new PlacementPolicy(settings);
    feed((ms, now) => policy.ranInline(ms, now), 0.01, 0, 10_000);
    const at = feed((ms, now) => policy.ranInline(ms, now), 0.2, 10_000, 10_000);
    expect(at).toBeDefined();
    expect(at! - 10_000).toBeLessThan(settings.windowMs);
  });

  it('does not ask for workers for one slow batch shorter than the budget of the window', () => {
    const policy = new PlacementPolicy(settings);
    feed((ms, now) => policy.ranInline(ms, now), 0.01, 0, 5000);
    // 50 ms at once (a first run, a garbage collection) is 2.9% of the window, on top of 1%.
    expect(policy.ranInline(50, 5000)).toBe(false);
    expect(feed((ms, now) => policy.ranInline(ms, now), 0.01, 5032, 5000)).toBeUndefined();
  });

  it('returns to the main thread only after the load stayed below the return share for returnAfterMs', () => {
    const policy = new PlacementPolicy(settings);
    policy.workersStarted(0);
    const inWorker = (ms: number, now: number) => policy.ranInWorker(ms, now);
    // Between the two shares: hysteresis keeps the workers.
    expect(feed(inWorker, 0.03, 0, 200_000)).toBeUndefined();
    const dropAt = 200_000;
    const at = feed(inWorker, 0.005, dropAt, 200_000);
    expect(at).toBeDefined();
    // The window still holds the higher load for up to windowMs after the drop.
    expect(at! - dropAt).toBeGreaterThanOrEqual(settings.returnAfterMs);
    expect(at! - dropAt).toBeLessThanOrEqual(settings.returnAfterMs + settings.windowMs + 32);
  });

  it('a short burst restarts the return countdown', () => {
    const policy = new PlacementPolicy(settings);
    policy.workersStarted(0);
    const inWorker = (ms: number, now: number) => policy.ranInWorker(ms, now);
    expect(feed(inWorker, 0.005, 0, 50_000)).toBeUndefined();
    expect(feed(inWorker, 0.1, 50_000, 1000)).toBeUndefined();
    const at = feed(inWorker, 0.005, 51_000, 200_000);
    expect(at! - 51_000).toBeGreaterThanOrEqual(settings.returnAfterMs);
  });

  it('returns at the first batch after a long idle time', () => {
    const policy = new PlacementPolicy(settings);
    policy.workersStarted(0);
    expect(feed((ms, now) => policy.ranInWorker(ms, now), 0.1, 0, 5000)).toBeUndefined();
    expect(policy.ranInWorker(0.5, 5000 + settings.returnAfterMs + settings.windowMs)).toBe(true);
  });

  it('after returning, needs the start share again to ask for workers', () => {
    const policy = new PlacementPolicy(settings);
    policy.workersStarted(0);
    policy.returnedInline();
    expect(policy.placement).toBe('main-thread');
    expect(feed((ms, now) => policy.ranInline(ms, now), 0.03, 100_000, 60_000)).toBeUndefined();
    expect(feed((ms, now) => policy.ranInline(ms, now), 0.2, 160_000, 5000)).toBeDefined();
  });

  it('waits retryAfterMs after a failure before asking for workers again', () => {
    const policy = new PlacementPolicy(settings);
    policy.workersFailed(1000);
    const at = feed((ms, now) => policy.ranInline(ms, now), 0.5, 1000, 100_000);
    expect(at).toBeGreaterThanOrEqual(1000 + settings.retryAfterMs);
    expect(at).toBeLessThan(1000 + settings.retryAfterMs + 64);
  });

  it('never asks while workers run, and never asks to return while inline', () => {
    const policy = new PlacementPolicy(settings);
    expect(policy.ranInWorker(0, 1_000_000)).toBe(false);
    policy.workersStarted(0);
    expect(feed((ms, now) => policy.ranInline(ms, now), 0.9, 0, 5000)).toBeUndefined();
  });

  it('defaults keep hysteresis: the return share is well below the start share', () => {
    expect(DEFAULT_PLACEMENT.returnShare).toBeLessThan(DEFAULT_PLACEMENT.startShare / 2);
    expect(DEFAULT_PLACEMENT.returnAfterMs).toBeGreaterThan(10 * DEFAULT_PLACEMENT.windowMs);
  });
});
