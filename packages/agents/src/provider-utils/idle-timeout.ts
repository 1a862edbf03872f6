import { APITimeoutError } from '../errors.js';
import { abortReason, type Clock, type TimerHandle } from '../time/clock.js';
import { type LinkedController, linkedController, releasedReason } from './abort.js';

export interface IdleTimeoutOptions {
  /** Where the waits are measured. */
  clock: Clock;
  /** The longest wait for the next item once the first one came, in ms. `Infinity` disables it. */
  idleTimeoutMs: number;
  /**
   * The longest wait for the first item, in ms: time to first byte, often longer than the gaps of a
   * running stream (a model thinking before its first token). Defaults to `idleTimeoutMs`.
   */
  firstItemTimeoutMs?: number;
  /** The caller's signal: aborting ends the iteration quietly and aborts the work. */
  signal?: AbortSignal;
  /** Names the call in the timeout error, e.g. `cartesia.TTS(sonic-2)`. */
  label?: string;
}

/**
 * Streams what `source` yields, failing with `APITimeoutError` (retryable) when an item takes longer
 * than allowed: the source's signal is then aborted (with that error as its reason) and the iteration
 * throws at once, even when the source ignores its signal. The clock runs only while waiting for the
 * source, never while the caller works on an item, so a slow consumer is not taken for a stalled
 * server. No timer and no listener outlive the iteration, however it ends.
 *
 * A caller's abort ends the iteration quietly. Inside `retryBeforeFirstItem`, a stall before the first
 * item is retried like any retryable error.
 */
export async function* withIdleTimeout<T>(
  source: (signal: AbortSignal) => AsyncIterable<T>,
  options: IdleTimeoutOptions,
): AsyncGenerator<T, void, undefined> {
  const { idleTimeoutMs, signal } = options;
  const firstItemTimeoutMs = options.firstItemTimeoutMs ?? idleTimeoutMs;
  for (const [name, value] of [
    ['idleTimeoutMs', idleTimeoutMs],
    ['firstItemTimeoutMs', firstItemTimeoutMs],
  ] as const) {
    if (!(value > 0)) throw new RangeError(`${name} must be a positive number of ms, got ${value}`);
  }
  if (signal?.aborted) return;
  const link = linkedController(signal);
  let iterator: AsyncIterator<T> | undefined;
  let done = false;
  try {
    iterator = source(link.signal)[Symbol.asyncIterator]();
    for (let first = true; ; first = false) {
      const waitMs = first ? firstItemTimeoutMs : idleTimeoutMs;
      let next: IteratorResult<T>;
      try {
        next = await nextWithin(iterator, waitMs, first, link, options);
      } catch (error) {
        if (error instanceof StallError) throw error.timeout;
        if (signal?.aborted) return;
        throw error;
      }
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    link.dispose();
    link.abort(releasedReason());
    // Runs the source's cleanup (a no-op for one that threw), without waiting for it: a source stuck in
    // a read that ignores its abort must not hold the caller.
    if (!done) void Promise.resolve(iterator?.return?.()).catch(() => {});
  }
}

/** Marks our own timeout, so that it wins over whatever the aborted source throws afterwards. */
class StallError {
  constructor(readonly timeout: APITimeoutError) {}
}

function nextWithin<T>(
  iterator: AsyncIterator<T>,
  waitMs: number,
  first: boolean,
  link: LinkedController,
  options: IdleTimeoutOptions,
): Promise<IteratorResult<T>> {
  const { clock, signal } = options;
  return new Promise<IteratorResult<T>>((resolve, reject) => {
    let timer: TimerHandle | undefined;
    const onAbort = (): void => {
      release();
      reject(abortReason(signal!));
    };
    const release = (): void => {
      timer?.cancel();
      signal?.removeEventListener('abort', onAbort);
    };
    timer = clock.setTimer(waitMs, () => {
      release();
      const label = options.label ?? 'stream';
      const timeout = new APITimeoutError(
        first ? `${label}: nothing received within ${waitMs} ms` : `${label}: no data for ${waitMs} ms`,
      );
      reject(new StallError(timeout));
      link.abort(timeout);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    let pending: Promise<IteratorResult<T>>;
    try {
      pending = iterator.next();
    } catch (error) {
      release();
      reject(error);
      return;
    }
    pending.then(
      (result) => {
        release();
        resolve(result);
      },
      (error: unknown) => {
        release();
        reject(error);
      },
    );
  });
}
