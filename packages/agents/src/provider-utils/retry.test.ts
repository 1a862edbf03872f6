import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, APIStatusError } from '../errors.js';
import { VirtualClock } from '../time/virtual-clock.js';
import type { ProviderProblem } from '../providers/common.js';
import {
  DEFAULT_RETRY_POLICY,
  delayBeforeRetryMs,
  resolveRetryPolicy,
  retryDelayMs,
  withRetry,
} from './retry.js';

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
      maxRetryAfterMs: 30_000,
    });
    expect(resolveRetryPolicy({ maxRetries: undefined as unknown as number }).maxRetries).toBe(3);
    expect(() => resolveRetryPolicy({ jitter: 1.5 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ maxRetries: -1 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ multiplier: 0.5 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ initialDelayMs: Number.NaN })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ maxRetryAfterMs: -1 })).toThrow(RangeError);
  });

  it('fills gaps from the given defaults before the core ones', () => {
    const plugin = { maxRetries: 0, initialDelayMs: 50 };
    expect(resolveRetryPolicy({ maxRetries: undefined }, plugin)).toMatchObject({
      maxRetries: 0,
      initialDelayMs: 50,
      maxDelayMs: 2000,
    });
    expect(resolveRetryPolicy({ maxRetries: 2 }, plugin).maxRetries).toBe(2);
    expect(() => resolveRetryPolicy({}, { jitter: 2 })).toThrow(RangeError);
  });
});

describe('delayBeforeRetryMs', () => {
  const policy = { ...exact, initialDelayMs: 10, maxDelayMs: 1_000 };

  it('is the backoff when the server said nothing, and the longer of both when it did', () => {
    expect([1, 2, 3].map((n) => delayBeforeRetryMs(policy, n, undefined))).toEqual([10, 20, 40]);
    expect(delayBeforeRetryMs(policy, 1, 250)).toBe(250);
    expect(delayBeforeRetryMs(policy, 3, 1)).toBe(40);
    expect(delayBeforeRetryMs(policy, 1, 0.2)).toBe(10);
  });

  it('honours a server wait beyond maxDelayMs up to maxRetryAfterMs, and refuses to shorten a longer one', () => {
    expect(delayBeforeRetryMs(policy, 1, 30_000)).toBe(30_000);
    expect(delayBeforeRetryMs(policy, 1, 30_001)).toBeUndefined();
    expect(delayBeforeRetryMs({ ...policy, maxRetryAfterMs: 60_000 }, 1, 45_000)).toBe(45_000);
    expect(delayBeforeRetryMs({ ...policy, maxRetryAfterMs: 0 }, 1, 1)).toBeUndefined();
  });
});

function rateLimited(headers: Record<string, string>): APIStatusError {
  const response = Object.assign(new Error('HTTP 429'), { headers: new Headers(headers) });
  return new APIStatusError('rate limited', { statusCode: 429, cause: response });
}

describe('withRetry and retry-after', () => {
  it('waits what the server asked for, read from the error it threw', async () => {
    const clock = new VirtualClock();
    const calls: number[] = [];
    const result = await withRetry(
      async (attempt) => {
        calls.push(clock.now());
        if (attempt === 0) throw rateLimited({ 'retry-after': '5' });
        return 'ok';
      },
      { clock, policy: exact },
    );
    expect(result).toBe('ok');
    expect(calls).toEqual([0, 5_000]);
  });

  it('surfaces the error at once when the server asks for more than maxRetryAfterMs', async () => {
    const clock = new VirtualClock();
    const problems: ProviderProblem[] = [];
    let calls = 0;
    const error = rateLimited({ 'retry-after': '3600' });
    const outcome = withRetry(
      async () => {
        calls++;
        throw error;
      },
      { clock, policy: exact, onProblem: (p) => problems.push(p) },
    );
    await expect(outcome).rejects.toBe(error);
    expect(calls).toBe(1);
    expect(clock.now()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('takes the server wait from a custom retryAfterMs', async () => {
    const clock = new VirtualClock();
    const calls: number[] = [];
    await withRetry(
      async (attempt) => {
        calls.push(clock.now());
        if (attempt === 0) throw new APIConnectionError('busy');
      },
      { clock, policy: exact, retryAfterMs: () => 777 },
    );
    expect(calls).toEqual([0, 777]);
  });

  it('reports every retry as a retrying problem, and a throwing listener changes nothing', async () => {
    const clock = new VirtualClock();
    const problems: ProviderProblem[] = [];
    const errors: Error[] = [];
    const result = await withRetry(
      async (attempt) => {
        if (attempt < 2) {
          const error = new APIConnectionError(`drop ${attempt}`);
          errors.push(error);
          throw error;
        }
        return attempt;
      },
      {
        clock,
        policy: exact,
        onProblem: (problem) => {
          problems.push(problem);
          throw new Error('listener bug');
        },
      },
    );
    expect(result).toBe(2);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 100, error: errors[0] },
      { type: 'retrying', attempt: 2, delayMs: 200, error: errors[1] },
    ]);
  });

  it('reports a thrown non-Error as an Error', async () => {
    const clock = new VirtualClock();
    const problems: ProviderProblem[] = [];
    await withRetry(
      async (attempt) => {
        if (attempt === 0) throw 'flaky';
      },
      { clock, policy: exact, isRetryable: () => true, onProblem: (p) => problems.push(p) },
    );
    expect(problems[0]).toMatchObject({ type: 'retrying', error: { message: 'flaky' } });
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
