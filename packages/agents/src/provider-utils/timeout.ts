import { APITimeoutError } from '../errors.js';
import { abortReason, type Clock, type TimerHandle } from '../time/clock.js';
import { linkedController } from './abort.js';

/**
 * Settles like `promise`, unless `timeoutMs` passes first on the clock: then rejects with what
 * `onTimeout` returns (which is also where the caller aborts the work). No timeout when undefined.
 */
export function timeoutAfter<T>(
  promise: Promise<T>,
  clock: Clock,
  timeoutMs: number | undefined,
  onTimeout: () => unknown,
): Promise<T> {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) return promise;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = clock.setTimer(timeoutMs, () => {
      if (settled) return;
      settled = true;
      // The abandoned call may still fail later; that outcome belongs to no one.
      promise.catch(() => {});
      reject(onTimeout());
    });
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        reject(error);
      },
    );
  });
}

export interface WithTimeoutOptions {
  /** Where the deadline is measured. */
  clock: Clock;
  /** The longest the call may take, in ms. `Infinity` disables the deadline. */
  timeoutMs: number;
  /** The caller's signal: aborting rejects at once with its reason and aborts the work. */
  signal?: AbortSignal;
  /** Names the call in the timeout error, e.g. `deepgram.STT(nova-3)`. */
  label?: string;
}

/**
 * Runs one call with a deadline. `fn` gets a signal that aborts when the caller's does or when the
 * deadline passes; in the second case the result is an `APITimeoutError` (retryable), whatever `fn`
 * does with the abort afterwards: an SDK that turns an abort into its own "user aborted" error cannot
 * hide the timeout. A caller's abort rejects with the signal's reason. Either way the result comes at
 * once, even from work that ignores its signal, and the timer and listeners are released.
 */
export async function withTimeout<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  options: WithTimeoutOptions,
): Promise<T> {
  const { clock, timeoutMs, signal } = options;
  if (signal?.aborted) throw abortReason(signal);
  const link = linkedController(signal);
  let timer: TimerHandle | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<T>((resolve, reject) => {
      timer = clock.setTimer(timeoutMs, () => {
        const error = new APITimeoutError(`${options.label ?? 'request'}: no answer within ${timeoutMs} ms`);
        // Settled first, so that work which fails synchronously on the abort cannot win the race.
        reject(error);
        link.abort(error);
      });
      if (signal) {
        onAbort = () => reject(abortReason(signal));
        signal.addEventListener('abort', onAbort, { once: true });
      }
      let work: Promise<T>;
      try {
        work = fn(link.signal);
      } catch (error) {
        reject(error);
        return;
      }
      // Also takes care of a late failure of work that was abandoned.
      work.then(resolve, reject);
    });
  } finally {
    timer?.cancel();
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    link.dispose();
    // Whatever the work left running (a response body, a socket) is not wanted any more.
    link.abort();
  }
}
