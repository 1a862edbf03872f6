import { NEVER_FIRES, normalizeDelay } from './delay.js';

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
   * A negative or NaN `ms` means 0; `Infinity` never resolves (only the signal can end it).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `callback` once after `ms` (same rules for odd values as `sleep`). */
  setTimer(ms: number, callback: () => void): TimerHandle;
  /** Calls `callback` every `intervalMs` (at least 1 ms) until cancelled. */
  setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Shared by both clocks: a sleep is a timer plus an abort listener that is always removed. */
export function sleepWithTimer(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    let timer: TimerHandle | undefined;
    const onAbort = (): void => {
      timer?.cancel();
      reject(abortReason(signal!));
    };
    // The listener goes on first so that a clock which fires synchronously still finds it to remove.
    signal?.addEventListener('abort', onAbort, { once: true });
    timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** Node clamps longer host timers to 1 ms (and warns), so longer waits are chained. */
const MAX_HOST_DELAY_MS = 2 ** 31 - 1;

/**
 * A repeating timer built from one-shot timers: each tick re-arms before its callback runs, so a throwing
 * tick does not end the series. Shared by clocks whose host interval cannot serve the period.
 */
export function repeatWithTimers(clock: Clock, periodMs: number, callback: () => void): TimerHandle {
  let current: TimerHandle;
  let cancelled = false;
  const arm = (): void => {
    current = clock.setTimer(periodMs, () => {
      if (cancelled) return;
      arm();
      callback();
    });
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      current.cancel();
    },
  };
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
    const delay = normalizeDelay(ms);
    if (delay === Number.POSITIVE_INFINITY) return NEVER_FIRES;
    if (delay <= MAX_HOST_DELAY_MS) {
      const id = setTimeout(callback, delay);
      return { cancel: () => clearTimeout(id) };
    }
    const deadline = this.now() + delay;
    let id: ReturnType<typeof setTimeout>;
    const arm = (): void => {
      const remaining = deadline - this.now();
      id =
        remaining > MAX_HOST_DELAY_MS
          ? setTimeout(arm, MAX_HOST_DELAY_MS)
          : setTimeout(callback, Math.max(0, remaining));
    };
    arm();
    return { cancel: () => clearTimeout(id) };
  }

  setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle {
    const period = Math.max(1, normalizeDelay(intervalMs));
    if (period === Number.POSITIVE_INFINITY) return NEVER_FIRES;
    if (period <= MAX_HOST_DELAY_MS) {
      const id = setInterval(callback, period);
      return { cancel: () => clearInterval(id) };
    }
    return repeatWithTimers(this, period, callback);
  }
}

let defaultClock: Clock | undefined;

/** The process-wide real clock, used when no clock is injected. */
export function realClock(): Clock {
  defaultClock ??= new RealClock();
  return defaultClock;
}
