import {
  retryBeforeFirstItem,
  withIdleTimeout,
  withRetry,
  withTimeout,
} from '@voxwire/agents/provider-utils';
import type { ProviderCallOptions } from '@voxwire/agents/provider-utils';
import type { ResolvedClient } from './client.js';
import { toAPIError } from './errors.js';

/**
 * How this plugin drives the SDK with the core's provider utilities. Retries come from the plugin's
 * policy and honour `retry-after` / `retry-after-ms`, which the default reader finds on the SDK error
 * carried as `cause`; the SDK's own retries stay off (see client.ts).
 */

/**
 * The frames of one streamed HTTP attempt. `open` sends the request with the signal it is given and
 * returns the SDK's stream. `timeoutMs` bounds the wait for the response to start and for each next
 * frame (never the time the caller spends on a frame); a stall aborts the request and fails with
 * `APITimeoutError`. SDK errors become the core's typed errors; an abort ends the frames quietly.
 */
export function streamAttempt<T>(
  resolved: ResolvedClient,
  what: string,
  signal: AbortSignal,
  open: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
): AsyncIterable<T> {
  return withIdleTimeout((guarded) => sdkFrames(open, guarded, what), {
    clock: resolved.clock,
    idleTimeoutMs: resolved.timeoutMs,
    signal,
    label: what,
  });
}

/** Attempts, retried while none has yielded anything: output already given is never repeated. */
export function retryStream<T>(
  resolved: ResolvedClient,
  call: ProviderCallOptions,
  attempt: (signal: AbortSignal) => AsyncIterable<T>,
): AsyncIterable<T> {
  return retryBeforeFirstItem((_index, attemptSignal) => scrubbed(resolved, attempt(attemptSignal)), {
    policy: resolved.retry,
    clock: resolved.clock,
    ...(call.signal ? { signal: call.signal } : {}),
    // Each retry is a problem worked around: the session reports it as a recoverable error.
    ...(call.onProblem ? { onProblem: call.onProblem } : {}),
  });
}

/**
 * A request answered in one piece: each attempt bounded by `timeoutMs` as a whole, retried with the
 * plugin's policy. Rejects with the signal's reason when aborted.
 */
export function requestWithRetry<T>(
  resolved: ResolvedClient,
  what: string,
  options: ProviderCallOptions,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { clock, timeoutMs, retry } = resolved;
  const { signal, onProblem } = options;
  return withRetry(
    () =>
      withTimeout(
        async (guarded) => {
          try {
            return await call(guarded);
          } catch (error) {
            throw resolved.scrubber.error(toAPIError(error, what));
          }
        },
        { clock, timeoutMs, label: what, ...(signal ? { signal } : {}) },
      ),
    { policy: retry, clock, ...(signal ? { signal } : {}), ...(onProblem ? { onProblem } : {}) },
  );
}

/**
 * An attempt whose errors carry no credential: scrubbed before the retry sees them, so what `onProblem`
 * reports is clean too.
 */
async function* scrubbed<T>(
  resolved: ResolvedClient,
  attempt: AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  try {
    yield* attempt;
  } catch (error) {
    throw resolved.scrubber.error(error);
  }
}

/** A response body as chunks; stopping early cancels it. */
export async function* readBody(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = body.getReader();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function* sdkFrames<T>(
  open: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
  signal: AbortSignal,
  what: string,
): AsyncGenerator<T, void, undefined> {
  let iterator: AsyncIterator<T> | undefined;
  try {
    try {
      iterator = (await open(signal))[Symbol.asyncIterator]();
    } catch (error) {
      // Aborted by the caller or by the idle guard, which reports the timeout itself.
      if (signal.aborted) return;
      throw toAPIError(error, what);
    }
    for (;;) {
      let next: IteratorResult<T>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (signal.aborted) return;
        throw toAPIError(error, what);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Runs the SDK's own cleanup when the consumer stopped early; the abort already closed the socket.
    iterator?.return?.()?.catch(() => {});
  }
}
