import {
  type APIError,
  type Clock,
  type RetryPolicy,
  retryDelayMs as backoffDelayMs,
  resolveRetryPolicy,
} from '@voxwire/agents';
import OpenAI from 'openai';

export interface RetryContext {
  policy: RetryPolicy;
  clock: Clock;
  signal: AbortSignal | undefined;
  /** Told before each backoff, e.g. for logging. */
  onRetry?: (error: APIError, retry: number, delayMs: number) => void;
}

/** Fills a partial policy from `defaults` and then the core's defaults; undefined fields do not count. */
export function resolvePolicy(
  policy: Partial<RetryPolicy> | undefined,
  defaults: Partial<RetryPolicy> = {},
): RetryPolicy {
  const defined = Object.fromEntries(Object.entries(policy ?? {}).filter(([, v]) => v !== undefined));
  return resolveRetryPolicy({ ...defaults, ...defined });
}

/**
 * The core's backoff for retry number `retry` (1-based), stretched to what the server asked for in
 * `retry-after-ms` / `retry-after` when that is longer, still capped at `maxDelayMs`.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, error: APIError): number {
  const backoff = backoffDelayMs(policy, retry);
  const requested = serverRequestedDelayMs(error);
  if (requested === undefined) return backoff;
  return Math.round(Math.min(policy.maxDelayMs, Math.max(backoff, requested)));
}

/**
 * Runs a streaming attempt, retrying retryable failures only while nothing has been yielded: once a
 * token reached the caller, a retry would repeat it, so the error is surfaced instead. (The core's
 * `withRetry` covers one-shot calls; a stream needs this "before the first item" rule.)
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
      const delayMs = retryDelayMs(ctx.policy, index + 1, apiError);
      ctx.onRetry?.(apiError, index + 1, delayMs);
      try {
        await ctx.clock.sleep(delayMs, ctx.signal);
      } catch {
        return;
      }
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
