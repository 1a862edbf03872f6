import { abortReason, type Clock } from '../time/clock.js';

/** Waits for `promise`, but gives up as soon as `signal` aborts (rejecting with its reason). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

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
