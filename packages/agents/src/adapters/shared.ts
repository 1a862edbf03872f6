import { APIError } from '../errors.js';
import type { Clock } from '../time/clock.js';

/**
 * An AbortController that also aborts when `parent` does. `dispose()` removes the listener on the parent,
 * so a long-lived parent (a session's signal) does not collect one listener per provider call.
 */
export interface LinkedController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  dispose(): void;
}

export function linkedController(parent?: AbortSignal): LinkedController {
  const controller = new AbortController();
  if (!parent) {
    return { signal: controller.signal, abort: (r) => controller.abort(r), dispose: () => {} };
  }
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, abort: () => {}, dispose: () => {} };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => parent.removeEventListener('abort', onAbort),
  };
}

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

/** Providers should throw `APIError`s; anything else is wrapped so consumers can rely on the type. */
export function toAPIError(error: unknown, label: string): APIError {
  if (error instanceof APIError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new APIError(`${label}: ${message}`, { retryable: false, cause: error });
}
