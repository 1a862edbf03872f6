import { abortReason, type Clock } from '../time/clock.js';

// The session code imports it from here; its home is the provider utilities.
export { raceAbort } from '../provider-utils/abort.js';

/** Waits for `promise` at most `ms`; resolves `undefined` on timeout. The timer is always released. */
export function waitAtMost<T>(clock: Clock, promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = clock.setTimer(ms, () => resolve(undefined));
    promise.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}

/**
 * Iterates `source` but stops as soon as `signal` aborts, even when the source never yields again (a
 * provider that ignores its abort signal). The source is told to stop with `return()`, without waiting
 * for it. One abort listener serves the whole iteration: audio streams call this per frame.
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  let rejectPending: ((reason: unknown) => void) | undefined;
  const onAbort = (): void => rejectPending?.(abortReason(signal));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (!signal.aborted) {
      let next: IteratorResult<T>;
      try {
        next = await new Promise<IteratorResult<T>>((resolve, reject) => {
          rejectPending = reject;
          iterator.next().then(resolve, reject);
        });
      } catch (error) {
        if (signal.aborted) return;
        finished = true;
        throw error;
      } finally {
        rejectPending = undefined;
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}
