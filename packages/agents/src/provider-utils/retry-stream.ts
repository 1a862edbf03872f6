import { realClock } from '../time/clock.js';
import { linkedController, raceAbort } from './abort.js';
import { planRetry, type RetryOptions, resolveRetryPolicy } from './retry.js';

/**
 * Streams what `attempt` yields, starting it again after a retryable failure as long as nothing has
 * been yielded yet: once an item reached the caller, a new attempt would repeat it (the same words
 * spoken twice), so a later error propagates as it is. Retries follow the policy and `retry-after`
 * like `withRetry`, are waited on the clock and are reported to `onProblem` as `retrying`.
 *
 * `attempt` gets its number (0 first) and a signal that aborts when the caller's does and when the
 * attempt is over, however it ended, so that whatever it left open (an HTTP body) is released.
 * Aborting the caller's signal ends the iteration quietly, also during a backoff: no error, no retry.
 * Stopping the iteration early (`break`) stops the attempt too.
 */
export async function* retryBeforeFirstItem<T>(
  attempt: (attempt: number, signal: AbortSignal) => AsyncIterable<T>,
  options: RetryOptions = {},
): AsyncGenerator<T, void, undefined> {
  const policy = resolveRetryPolicy(options.policy);
  const clock = options.clock ?? realClock();
  const signal = options.signal ?? new AbortController().signal;
  for (let index = 0; ; index++) {
    if (signal.aborted) return;
    const link = linkedController(signal);
    let iterator: AsyncIterator<T> | undefined;
    let yielded = false;
    let done = false;
    let delayMs: number | undefined;
    try {
      iterator = attempt(index, link.signal)[Symbol.asyncIterator]();
      for (;;) {
        // Raced with the caller's signal so that an attempt ignoring its own cannot hold the caller.
        const next = await raceAbort(iterator.next(), signal);
        if (next.done) {
          done = true;
          return;
        }
        yielded = true;
        yield next.value;
      }
    } catch (error) {
      if (signal.aborted) return;
      if (yielded) throw error;
      delayMs = planRetry(error, index, policy, options, signal);
      if (delayMs === undefined) throw error;
    } finally {
      link.dispose();
      link.abort();
      // Runs the attempt's cleanup after a `break` or an abort (a no-op once it threw), without waiting
      // for it: a provider slow to clean up cannot hold the caller, and its signal is aborted already.
      if (!done) void Promise.resolve(iterator?.return?.()).catch(() => {});
    }
    try {
      await clock.sleep(delayMs, signal);
    } catch {
      return;
    }
  }
}
