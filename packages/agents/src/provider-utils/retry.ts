import { APIError } from '../errors.js';
import { abortReason, type Clock, realClock } from '../time/clock.js';

/** Exponential backoff between attempts of a provider call. Durations in ms. */
export interface RetryPolicy {
  /** Attempts after the first one; 0 means a single attempt. */
  maxRetries: number;
  /** Delay before the first retry. */
  initialDelayMs: number;
  /** Upper bound of any delay, jitter included. */
  maxDelayMs: number;
  /** Growth factor of the delay from one retry to the next. */
  multiplier: number;
  /**
   * Fraction (0..1) of each delay that is randomized downwards, so that many clients failing together do
   * not retry in lockstep. 0 gives the exact exponential schedule.
   */
  jitter: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  initialDelayMs: 100,
  maxDelayMs: 2000,
  multiplier: 2,
  jitter: 0.2,
});

/** Fills the gaps of a partial policy with the defaults and rejects values that make no sense. */
export function resolveRetryPolicy(policy: Partial<RetryPolicy> = {}): RetryPolicy {
  const resolved = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(policy) };
  const { maxRetries, initialDelayMs, maxDelayMs, multiplier, jitter } = resolved;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be a non-negative integer, got ${maxRetries}`);
  }
  if (!(initialDelayMs >= 0) || !(maxDelayMs >= 0)) {
    throw new RangeError(`retry delays must be non-negative, got ${initialDelayMs} / ${maxDelayMs}`);
  }
  if (!(multiplier >= 1)) throw new RangeError(`multiplier must be at least 1, got ${multiplier}`);
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be within 0..1, got ${jitter}`);
  return resolved;
}

/**
 * The delay before retry number `attempt` (1 for the first retry), in whole ms. `random` returns values
 * in [0, 1); pass a seeded one to make schedules reproducible.
 */
export function retryDelayMs(
  policy: Partial<RetryPolicy>,
  attempt: number,
  random: () => number = Math.random,
): number {
  const p = resolveRetryPolicy(policy);
  const exponent = Math.max(0, attempt - 1);
  const base = Math.min(p.maxDelayMs, p.initialDelayMs * p.multiplier ** exponent);
  // Jitter only shortens the delay, so maxDelayMs stays a true bound.
  return Math.round(base * (1 - p.jitter * random()));
}

export interface WithRetryOptions {
  policy?: Partial<RetryPolicy>;
  /** Where the delays are waited; the real clock by default. */
  clock?: Clock;
  /** Aborting stops at once: a pending delay rejects with the signal's reason and nothing is retried. */
  signal?: AbortSignal;
  /** Called before each delay, with the retry number (1-based) that follows it. */
  onRetry?(error: unknown, attempt: number, delayMs: number): void;
  /** Replaces the default test: an `APIError` with `retryable: true`. */
  isRetryable?(error: unknown): boolean;
  /** Source of jitter, [0, 1). */
  random?: () => number;
}

export function isRetryableError(error: unknown): boolean {
  return error instanceof APIError && error.retryable;
}

/**
 * Calls `fn` until it succeeds, the error is not retryable, or the policy's retries are spent; then
 * rethrows the last error. `attempt` is 0 on the first call.
 */
export async function withRetry<T>(
  fn: (attempt: number, signal: AbortSignal) => Promise<T>,
  options: WithRetryOptions = {},
): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  const clock = options.clock ?? realClock();
  const signal = options.signal ?? new AbortController().signal;
  const isRetryable = options.isRetryable ?? isRetryableError;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw abortReason(signal);
    try {
      return await fn(attempt, signal);
    } catch (error) {
      // An error caused by our own abort is the caller's decision, not a provider fault to retry.
      if (signal.aborted || attempt >= policy.maxRetries || !isRetryable(error)) throw error;
      const delayMs = retryDelayMs(policy, attempt + 1, options.random);
      options.onRetry?.(error, attempt + 1, delayMs);
      await clock.sleep(delayMs, signal);
    }
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
