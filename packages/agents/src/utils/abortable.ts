import type { Clock } from '../time/clock.js';

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
 * for it. Audio streams call this per frame, so it is a plain iterator rather than an async generator:
 * each item costs one promise of its own instead of the four or five a generator's steps and awaits make.
 */
export function untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncIterableIterator<T> {
  return new AbortableIterator(source[Symbol.asyncIterator](), signal);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class AbortableIterator<T> implements AsyncIterableIterator<T> {
  private finished = false;
  /** The consumer's pending `next()`, settled early (as done) when the signal aborts. */
  private pending: ((result: IteratorResult<T>) => void) | undefined;
  /**
   * The `next()` that the source's step in flight answers through the shared handlers below. A consumer
   * asks for one item at a time (as `for await` does), so one set of handlers made with the iterator
   * serves every item, instead of an executor and two reactions made per item.
   */
  private sharedResolve: ((result: IteratorResult<T>) => void) | undefined;
  private sharedReject: ((error: unknown) => void) | undefined;
  private sharedInFlight = false;
  private readonly onAbort = (): void => {
    const settle = this.pending;
    this.pending = undefined;
    this.finish(true);
    settle?.(DONE);
  };
  private readonly capture = (
    resolve: (result: IteratorResult<T>) => void,
    reject: (error: unknown) => void,
  ): void => {
    this.pending = resolve;
    this.sharedResolve = resolve;
    this.sharedReject = reject;
  };
  private readonly onStep = (result: IteratorResult<T>): void => {
    const resolve = this.takeShared();
    // Already answered as done by an abort: the late item is dropped.
    if (!resolve || this.pending !== resolve) return;
    this.settleStep(resolve, result);
  };
  private readonly onStepError = (error: unknown): void => {
    const reject = this.sharedReject;
    const resolve = this.takeShared();
    if (!resolve || !reject || this.pending !== resolve) return;
    this.settleError(resolve, reject, error);
  };

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.finished) return Promise.resolve(DONE);
    if (this.signal.aborted) {
      this.finish(true);
      return Promise.resolve(DONE);
    }
    let step: Promise<IteratorResult<T>>;
    try {
      step = this.source.next();
    } catch (error) {
      this.finish(false);
      return Promise.reject(error);
    }
    if (!this.sharedInFlight) {
      const promise = new Promise<IteratorResult<T>>(this.capture);
      this.sharedInFlight = true;
      step.then(this.onStep, this.onStepError);
      return promise;
    }
    return this.overlapping(step);
  }

  private takeShared(): ((result: IteratorResult<T>) => void) | undefined {
    const resolve = this.sharedResolve;
    this.sharedResolve = undefined;
    this.sharedReject = undefined;
    this.sharedInFlight = false;
    return resolve;
  }

  /** A `next()` made while the shared handlers still wait on an earlier step: answered on its own. */
  private overlapping(step: Promise<IteratorResult<T>>): Promise<IteratorResult<T>> {
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      this.pending = resolve;
      step.then(
        (result) => {
          if (this.pending === resolve) this.settleStep(resolve, result);
        },
        (error: unknown) => {
          if (this.pending === resolve) this.settleError(resolve, reject, error);
        },
      );
    });
  }

  /** Answers the waiting `next()` with the source's step. */
  private settleStep(resolve: (result: IteratorResult<T>) => void, result: IteratorResult<T>): void {
    this.pending = undefined;
    if (result.done) this.finish(false);
    resolve(result.done ? DONE : result);
  }

  /** A source that throws because it was aborted ends quietly; any other error reaches the consumer. */
  private settleError(
    resolve: (result: IteratorResult<T>) => void,
    reject: (error: unknown) => void,
    error: unknown,
  ): void {
    this.pending = undefined;
    if (this.signal.aborted) {
      this.finish(true);
      resolve(DONE);
      return;
    }
    this.finish(false);
    reject(error);
  }

  /** The consumer stopped early (`break`, a throw in its loop body). */
  return(): Promise<IteratorResult<T>> {
    const settle = this.pending;
    this.pending = undefined;
    this.finish(true);
    settle?.(DONE);
    return Promise.resolve(DONE);
  }

  /** `stopSource`: the source has not ended by itself and is told to stop, without waiting for it. */
  private finish(stopSource: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.signal.removeEventListener('abort', this.onAbort);
    if (stopSource) void Promise.resolve(this.source.return?.()).catch(() => {});
  }
}
