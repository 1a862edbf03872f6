/**
 * All time in the core flows through a Clock so that a whole conversation can run on virtual time.
 * Every duration and timestamp is in milliseconds.
 */
export interface TimerHandle {
  /** Cancels the timer. Cancelling a fired or cancelled timer is a no-op. */
  cancel(): void;
}

export interface Clock {
  /** Monotonic milliseconds since an arbitrary origin. */
  now(): number;
  /**
   * Resolves after `ms`. Rejects with the signal's reason (an `AbortError` by default) when the signal
   * aborts first; the pending timer is released at that moment so nothing is retained.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `callback` once after `ms`. */
  setTimer(ms: number, callback: () => void): TimerHandle;
  /** Calls `callback` every `intervalMs` until cancelled. */
  setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Shared by both clocks: a sleep is a timer plus an abort listener that is always removed. */
export function sleepWithTimer(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal!));
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wall clock. The only place in the core that touches the host's timers. */
export class RealClock implements Clock {
  now(): number {
    return performance.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWithTimer(this, ms, signal);
  }

  setTimer(ms: number, callback: () => void): TimerHandle {
    const id = setTimeout(callback, Math.max(0, ms));
    return { cancel: () => clearTimeout(id) };
  }

  setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle {
    const id = setInterval(callback, Math.max(1, intervalMs));
    return { cancel: () => clearInterval(id) };
  }
}

let defaultClock: Clock | undefined;

/** The process-wide real clock, used when no clock is injected. */
export function realClock(): Clock {
  defaultClock ??= new RealClock();
  return defaultClock;
}
