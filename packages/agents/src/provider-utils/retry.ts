import { APIError } from '../errors.js';
import type { ProviderProblem } from '../providers/common.js';
import { abortReason, type Clock, realClock } from '../time/clock.js';
import { asError, reportProblem } from './problems.js';
import { retryAfterFromError } from './retry-after.js';

/** Exponential backoff between attempts of a provider call. Durations in ms. */
export interface RetryPolicy {
  /** Attempts after the first one; 0 means a single attempt. */
  maxRetries: number;
  /** Delay before the first retry. */
  initialDelayMs: number;
  /** Upper bound of the backoff delays, jitter included (a server's `retry-after` may ask for more). */
  maxDelayMs: number;
  /** Growth factor of the delay from one retry to the next. */
  multiplier: number;
  /**
   * Fraction (0..1) of each delay that is randomized downwards, so that many clients failing together do
   * not retry in lockstep. 0 gives the exact exponential schedule.
   */
  jitter: number;
  /**
   * The longest wait a server may ask for (`retry-after`, `retry-after-ms`) and still be honoured; such
   * a wait may exceed `maxDelayMs`. A server asking for more is not retried at all: waiting that long
   * would stall a live conversation, and retrying sooner would only be refused again, so the error
   * surfaces at once and the session (or a FallbackAdapter) can act on it. Default 30_000.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  initialDelayMs: 100,
  maxDelayMs: 2000,
  multiplier: 2,
  jitter: 0.2,
  maxRetryAfterMs: 30_000,
});

/**
 * Fills the gaps of a partial policy from `defaults` (a plugin's own, say) and then the core's
 * defaults, and rejects values that make no sense. Fields set to `undefined` count as gaps.
 */
export function resolveRetryPolicy(
  policy: Partial<RetryPolicy> = {},
  defaults: Partial<RetryPolicy> = {},
): RetryPolicy {
  const resolved = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(defaults), ...stripUndefined(policy) };
  const { maxRetries, initialDelayMs, maxDelayMs, multiplier, jitter, maxRetryAfterMs } = resolved;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be a non-negative integer, got ${maxRetries}`);
  }
  if (!(initialDelayMs >= 0) || !(maxDelayMs >= 0) || !(maxRetryAfterMs >= 0)) {
    throw new RangeError(
      `retry delays must be non-negative, got ${initialDelayMs} / ${maxDelayMs} / ${maxRetryAfterMs}`,
    );
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

/**
 * The delay before retry number `attempt` when the server may have said how long to wait: the longer
 * of the policy's backoff and `retryAfterMs`. `undefined` means "do not retry": the server asked for
 * more than `policy.maxRetryAfterMs` (see there why that is not shortened).
 */
export function delayBeforeRetryMs(
  policy: Partial<RetryPolicy>,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const p = resolveRetryPolicy(policy);
  const backoff = retryDelayMs(p, attempt, random);
  if (retryAfterMs === undefined || !(retryAfterMs >= 0)) return backoff;
  if (retryAfterMs > p.maxRetryAfterMs) return undefined;
  return Math.max(backoff, Math.ceil(retryAfterMs));
}

/** How `withRetry` and `retryBeforeFirstItem` decide on, wait for and report retries. */
export interface RetryOptions {
  policy?: Partial<RetryPolicy>;
  /** Where the delays are waited; the real clock by default. */
  clock?: Clock;
  /** Aborting stops at once: a pending delay ends and nothing is retried. */
  signal?: AbortSignal;
  /** Told of each retry before its delay, as `{ type: 'retrying', attempt, delayMs, error }`. */
  onProblem?: (problem: ProviderProblem) => void;
  /** Called before each delay, with the retry number (1-based) that follows it. */
  onRetry?(error: unknown, attempt: number, delayMs: number): void;
  /** Replaces the default test: an `APIError` with `retryable: true`. */
  isRetryable?(error: unknown): boolean;
  /**
   * How long, in ms, the server asked to wait after `error`, or `undefined` when it did not say. By
   * default `retryAfterFromError`: the error's `retryAfterMs`, or the `retry-after` headers of the HTTP
   * response it (or its cause) carries.
   */
  retryAfterMs?(error: unknown): number | undefined;
  /** Source of jitter, [0, 1). */
  random?: () => number;
}

/** The options of `withRetry`; the same as every retry helper takes. */
export type WithRetryOptions = RetryOptions;

export function isRetryableError(error: unknown): boolean {
  return error instanceof APIError && error.retryable;
}

/**
 * Whether failed attempt number `attempt` (0 for the first call) is retried and after how long; when it
 * is, the retry has been reported. Shared by the retry helpers so that they decide alike; not part of
 * the published API.
 */
export function planRetry(
  error: unknown,
  attempt: number,
  policy: RetryPolicy,
  options: RetryOptions,
  signal: AbortSignal,
): number | undefined {
  // An error caused by our own abort is the caller's decision, not a provider fault to retry.
  if (signal.aborted || attempt >= policy.maxRetries) return undefined;
  if (!(options.isRetryable ?? isRetryableError)(error)) return undefined;
  const retryAfterMs = (options.retryAfterMs ?? retryAfterFromError)(error);
  const delayMs = delayBeforeRetryMs(policy, attempt + 1, retryAfterMs, options.random);
  if (delayMs === undefined) return undefined;
  options.onRetry?.(error, attempt + 1, delayMs);
  reportProblem(options.onProblem, {
    type: 'retrying',
    attempt: attempt + 1,
    delayMs,
    error: asError(error),
  });
  return delayMs;
}

/**
 * Calls `fn` until it succeeds, the error is not retryable, or the policy's retries are spent; then
 * rethrows the last error. `attempt` is 0 on the first call. An abort rejects with the signal's reason.
 */
export async function withRetry<T>(
  fn: (attempt: number, signal: AbortSignal) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  const clock = options.clock ?? realClock();
  const signal = options.signal ?? new AbortController().signal;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw abortReason(signal);
    try {
      return await fn(attempt, signal);
    } catch (error) {
      const delayMs = planRetry(error, attempt, policy, options, signal);
      if (delayMs === undefined) throw error;
      await clock.sleep(delayMs, signal);
    }
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
