import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, APIStatusError } from '../errors.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { DEFAULT_RETRY_POLICY, resolveRetryPolicy, retryDelayMs, withRetry } from './retry.js';

/** mulberry32: a tiny seeded PRNG, enough to show that schedules replay. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const exact = { jitter: 0 };

describe('retryDelayMs', () => {
  it('grows exponentially from the initial delay and stops at the maximum', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(exact, attempt));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 2000]);
  });

  it('jitter only shortens the delay, by at most its fraction', () => {
    const policy = { jitter: 0.5, initialDelayMs: 1000, maxDelayMs: 1000 };
    expect(retryDelayMs(policy, 1, () => 0)).toBe(1000);
    expect(retryDelayMs(policy, 1, () => 0.5)).toBe(750);
    expect(retryDelayMs(policy, 1, () => 0.999999)).toBe(500);
  });

  it('is reproducible with a seeded random', () => {
    const a = seeded(42);
    const b = seeded(42);
    const runA = [1, 2, 3].map((n) => retryDelayMs({}, n, a));
    const runB = [1, 2, 3].map((n) => retryDelayMs({}, n, b));
    expect(runA).toEqual(runB);
  });

  it('has the documented defaults and rejects nonsense', () => {
    expect(DEFAULT_RETRY_POLICY).toMatchObject({
      maxRetries: 3,
      initialDelayMs: 100,
      multiplier: 2,
      maxDelayMs: 2000,
    });
    expect(resolveRetryPolicy({ maxRetries: undefined as unknown as number }).maxRetries).toBe(3);
    expect(() => resolveRetryPolicy({ jitter: 1.5 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ maxRetries: -1 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ multiplier: 0.5 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ initialDelayMs: Number.NaN })).toThrow(RangeError);
  });
});

describe('withRetry', () => {
  it('retries retryable API errors with backoff on the clock', async () => {
    const clock = new VirtualClock();
    const calls: number[] = [];
    const retries: Array<[number, number]> = [];
    const result = await withRetry(
      async (attempt) => {
        calls.push(clock.now());
        if (attempt < 2) throw new APIConnectionError();
        return 'ok';
      },
      { clock, policy: exact, onRetry: (_e, attempt, delay) => retries.push([attempt, delay]) },
    );
    expect(result).toBe('ok');
    expect(calls).toEqual([0, 100, 300]);
    expect(retries).toEqual([
      [1, 100],
      [2, 200],
    ]);
  });

  it('does not retry errors that are not retryable', async () => {
    const clock = new VirtualClock();
    for (const error of [
      new APIStatusError('bad request', { statusCode: 400 }),
      new APIError('nope', { retryable: false }),
      new TypeError('a bug'),
    ]) {
      let calls = 0;
      await expect(
        withRetry(
          async () => {
            calls++;
            throw error;
          },
          { clock },
        ),
      ).rejects.toBe(error);
      expect(calls).toBe(1);
    }
    expect(clock.now()).toBe(0);
  });

  it('rethrows the last error once the retries are spent', async () => {
    const clock = new VirtualClock();
    const errors: Error[] = [];
    const outcome = withRetry(
      async () => {
        const error = new APIStatusError(`attempt ${errors.length}`, { statusCode: 503 });
        errors.push(error);
        throw error;
      },
      { clock, policy: { ...exact, maxRetries: 2 } },
    );
    const thrown = await outcome.catch((e: unknown) => e);
    expect(errors).toHaveLength(3);
    expect(thrown).toBe(errors[2]);
    expect(clock.now()).toBe(300);
  });

  it('honours a custom isRetryable', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const result = await withRetry(
      async () => {
        if (++calls < 3) throw new Error('flaky');
        return calls;
      },
      { clock, policy: exact, isRetryable: (e) => e instanceof Error && e.message === 'flaky' },
    );
    expect(result).toBe(3);
  });

  it('stops waiting when aborted during a delay and releases the timer', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    clock.setTimer(50, () => controller.abort(new Error('stop')));
    let calls = 0;
    const outcome = withRetry(
      async (_attempt, signal) => {
        expect(signal).toBe(controller.signal);
        calls++;
        throw new APIConnectionError();
      },
      { clock, signal: controller.signal, policy: exact },
    );
    await expect(outcome).rejects.toThrow('stop');
    expect(calls).toBe(1);
    expect(clock.now()).toBe(50);
    expect(clock.pendingTimers).toBe(0);
  });

  it('does not retry an error raised because of its own abort, nor start when already aborted', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    let calls = 0;
    const outcome = withRetry(
      async () => {
        calls++;
        controller.abort();
        throw new APIConnectionError('dropped by abort');
      },
      { clock, signal: controller.signal },
    );
    await expect(outcome).rejects.toThrow('dropped by abort');
    await expect(withRetry(async () => calls++, { clock, signal: controller.signal })).rejects.toThrow();
    expect(calls).toBe(1);
  });

  it('replays the same schedule with the same seed', async () => {
    const run = async (): Promise<number[]> => {
      const clock = new VirtualClock();
      const delays: number[] = [];
      await withRetry(
        async (attempt) => {
          if (attempt < 3) throw new APIConnectionError();
        },
        { clock, random: seeded(7), onRetry: (_e, _a, delay) => delays.push(delay) },
      );
      return delays;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first.every((d, i) => d <= 100 * 2 ** i && d >= 100 * 2 ** i * 0.8)).toBe(true);
  });
});
