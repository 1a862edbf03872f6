import { abortReason } from '../time/clock.js';

/**
 * An AbortController that also aborts when `parent` does. `dispose()` removes the listener on the parent,
 * so a long-lived parent (a session's signal) does not collect one listener per provider call.
 */
export interface LinkedController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Detaches from the parent. Idempotent; the controller itself stays as it is (aborted or not). */
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
 * Waits for `promise`, but gives up as soon as `signal` aborts (rejecting with its reason). The abort
 * listener is removed as soon as either side settles, so racing many calls against one long-lived signal
 * leaves nothing behind. The promise itself is not cancelled: abort the work it stands for separately.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The abandoned promise may still fail later; that outcome belongs to no one.
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
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

let released: DOMException | undefined;

/**
 * The reason to abort work with only to release what it still holds, once its result is no longer
 * wanted (a stream that ended, a wait given up on). One shared AbortError rather than a new one each
 * time: a DOMException captures a stack trace, and a session releases work at every turn.
 */
export function releasedReason(): DOMException {
  released ??= new DOMException('The work was released: its result is no longer needed.', 'AbortError');
  return released;
}
