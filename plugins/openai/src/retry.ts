import type { APIError, Clock } from '@voxwire/agents';
import OpenAI from 'openai';

/**
 * Exponential backoff, the same shape as the core's retry policy: retry n (0-based) waits
 * `initialDelayMs * multiplier^n` shortened by up to `jitter` of itself, capped at `maxDelayMs`; or what the
 * server asked for in `retry-after-ms` / `retry-after` when that is longer (still capped).
 */
export interface RetryPolicy {
  /** Attempts after the first one; 0 disables retries. */
  maxRetries: number;
  initialDelayMs: number;
  maxDelayMs: number;
  multiplier: number;
  /** Fraction (0..1) of each delay randomized downwards so clients failing together do not retry in lockstep. */
  jitter: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  initialDelayMs: 200,
  maxDelayMs: 4_000,
  multiplier: 2,
  jitter: 0.2,
});

export function resolveRetryPolicy(
  policy: Partial<RetryPolicy> | undefined,
  base = DEFAULT_RETRY_POLICY,
): RetryPolicy {
  const defined = Object.fromEntries(Object.entries(policy ?? {}).filter(([, v]) => v !== undefined));
  const resolved: RetryPolicy = { ...base, ...defined };
  if (!Number.isInteger(resolved.maxRetries) || resolved.maxRetries < 0) {
    throw new RangeError(`retry.maxRetries must be a non-negative integer, got ${resolved.maxRetries}`);
  }
  if (!(resolved.initialDelayMs >= 0) || !(resolved.maxDelayMs >= 0) || !(resolved.multiplier >= 1)) {
    throw new RangeError('retry delays must be non-negative and multiplier at least 1');
  }
  if (!(resolved.jitter >= 0 && resolved.jitter <= 1)) {
    throw new RangeError(`retry.jitter must be within 0..1, got ${resolved.jitter}`);
  }
  return resolved;
}

export interface RetryContext {
  policy: RetryPolicy;
  clock: Clock;
  signal: AbortSignal | undefined;
  /** Told before each backoff, e.g. for logging. */
  onRetry?: (error: APIError, retry: number, delayMs: number) => void;
}

export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  error: APIError,
  random: () => number = Math.random,
): number {
  const backoff = policy.initialDelayMs * policy.multiplier ** retry * (1 - policy.jitter * random());
  const requested = serverRequestedDelayMs(error) ?? 0;
  return Math.round(Math.max(0, Math.min(policy.maxDelayMs, Math.max(backoff, requested))));
}

/**
 * Runs a streaming attempt, retrying retryable failures only while nothing has been yielded: once a
 * token reached the caller, a retry would repeat it, so the error is surfaced instead.
 * `attempt` must throw typed `APIError`s. Returns quietly when the signal aborts during a backoff.
 */
export async function* retryStream<T>(
  attempt: (attemptIndex: number) => AsyncIterable<T>,
  ctx: RetryContext,
): AsyncGenerator<T, void, undefined> {
  for (let index = 0; ; index++) {
    let yielded = false;
    try {
      for await (const item of attempt(index)) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      const apiError = error as APIError;
      if (yielded || !apiError.retryable || index >= ctx.policy.maxRetries || ctx.signal?.aborted)
        throw error;
      const delayMs = retryDelayMs(ctx.policy, index, apiError);
      ctx.onRetry?.(apiError, index + 1, delayMs);
      try {
        await ctx.clock.sleep(delayMs, ctx.signal);
      } catch {
        return;
      }
    }
  }
}

/** One-shot variant of `retryStream`: rejects with the signal's reason when aborted during a backoff. */
export async function retryCall<T>(
  call: (attemptIndex: number) => Promise<T>,
  ctx: RetryContext,
): Promise<T> {
  for (let index = 0; ; index++) {
    try {
      return await call(index);
    } catch (error) {
      const apiError = error as APIError;
      if (!apiError.retryable || index >= ctx.policy.maxRetries || ctx.signal?.aborted) throw error;
      const delayMs = retryDelayMs(ctx.policy, index, apiError);
      ctx.onRetry?.(apiError, index + 1, delayMs);
      await ctx.clock.sleep(delayMs, ctx.signal);
    }
  }
}

function serverRequestedDelayMs(error: APIError): number | undefined {
  const cause = error.cause;
  if (!(cause instanceof OpenAI.APIError) || !cause.headers) return undefined;
  const ms = Number.parseFloat(cause.headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return ms;
  // The HTTP-date form is ignored: it would tie backoff to the wall clock instead of the injected Clock.
  const seconds = Number.parseFloat(cause.headers.get('retry-after') ?? '');
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}
