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
  let waits: IdleWaits<T> | undefined;
  let done = false;
  try {
    iterator = source(link.signal)[Symbol.asyncIterator]();
    waits = new IdleWaits(iterator, link, options);
    for (let first = true; ; first = false) {
      const waitMs = first ? firstItemTimeoutMs : idleTimeoutMs;
      let next: IteratorResult<T>;
      try {
        next = await waits.next(waitMs, first);
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
    waits?.dispose();
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

/**
 * The waits of one iteration, one at a time. The caller's abort listener is added once for the whole
 * iteration and the handlers are made once: an LLM stream waits once per token, and a listener added
 * and removed on an AbortSignal per wait cost more than the wait itself.
 */
class IdleWaits<T> {
  private resolve: ((result: IteratorResult<T>) => void) | undefined;
  private reject: ((error: unknown) => void) | undefined;
  private timer: TimerHandle | undefined;
  private waitMs = 0;
  private first = true;

  constructor(
    private readonly iterator: AsyncIterator<T>,
    private readonly link: LinkedController,
    private readonly options: IdleTimeoutOptions,
  ) {
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The source's next item, or a `StallError` when it takes longer than `waitMs`. */
  next(waitMs: number, first: boolean): Promise<IteratorResult<T>> {
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      const signal = this.options.signal;
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      this.resolve = resolve;
      this.reject = reject;
      this.waitMs = waitMs;
      this.first = first;
      this.timer = this.options.clock.setTimer(waitMs, this.onTimer);
      let pending: Promise<IteratorResult<T>>;
      try {
        pending = this.iterator.next();
      } catch (error) {
        this.fail(error);
        return;
      }
      pending.then(this.onResult, this.onError);
    });
  }

  dispose(): void {
    this.settle();
    this.options.signal?.removeEventListener('abort', this.onAbort);
  }

  /** Ends the current wait: its timer is cancelled, and a late answer to it finds nobody waiting. */
  private settle(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.resolve = undefined;
    this.reject = undefined;
  }

  private fail(error: unknown): void {
    const reject = this.reject;
    this.settle();
    reject?.(error);
  }

  private readonly onResult = (result: IteratorResult<T>): void => {
    const resolve = this.resolve;
    this.settle();
    resolve?.(result);
  };

  private readonly onError = (error: unknown): void => this.fail(error);

  private readonly onAbort = (): void => {
    if (this.reject) this.fail(abortReason(this.options.signal!));
  };

  private readonly onTimer = (): void => {
    this.timer = undefined;
    if (!this.reject) return;
    const label = this.options.label ?? 'stream';
    const timeout = new APITimeoutError(
      this.first
        ? `${label}: nothing received within ${this.waitMs} ms`
        : `${label}: no data for ${this.waitMs} ms`,
    );
    this.fail(new StallError(timeout));
    this.link.abort(timeout);
  };
}
