/** What `onItem` returns to stop reading before the source ends. */
export const STOP_READING = Symbol('stop reading');

/**
 * Reads `source` to its end, handing each item to `onItem` as soon as the source yields it, and stops as
 * soon as `signal` aborts, even when the source never yields again (a provider that ignores its abort
 * signal). The source is told to stop with `return()`, without waiting for it, when reading ends before
 * it does: an abort, `onItem` returning `STOP_READING` or throwing.
 *
 * Resolves once reading has ended: the source is done, the signal aborted (what the source does after
 * that is ignored), or `onItem` asked to stop. Rejects with the source's error or with what `onItem`
 * threw.
 *
 * It does what a `for await` over `untilAborted(source, signal)` does, for the loops that run per audio
 * frame: an item costs the source's own promise and one reaction on it, where the loop adds a promise of
 * the wrapper's, a reaction and the loop's own await. An item reaches `onItem` in the microtask its
 * promise settles in, not a couple of microtasks later.
 */
export function readUntilAborted<T>(
  source: AsyncIterable<T>,
  signal: AbortSignal,
  onItem: (item: T) => unknown,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    new Reader(source[Symbol.asyncIterator](), signal, onItem, resolve, reject).start();
  });
}

class Reader<T> {
  private ended = false;
  private readonly onAbort = (): void => {
    this.end(true);
    this.resolve();
  };
  private readonly onStep = (result: IteratorResult<T>): void => {
    // Already ended by an abort: the late item is dropped.
    if (this.ended) return;
    if (result.done) {
      this.end(false);
      this.resolve();
      return;
    }
    let verdict: unknown;
    try {
      verdict = this.onItem(result.value);
    } catch (error) {
      this.end(true);
      this.reject(error);
      return;
    }
    if (verdict === STOP_READING) {
      this.end(true);
      this.resolve();
      return;
    }
    this.pull();
  };
  private readonly onStepError = (error: unknown): void => {
    if (this.ended) return;
    // A source that fails because of the abort fails after it: the abort's listener has ended reading.
    this.end(false);
    this.reject(error);
  };

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly signal: AbortSignal,
    private readonly onItem: (item: T) => unknown,
    private readonly resolve: () => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.signal.aborted) {
      this.end(true);
      this.resolve();
      return;
    }
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    this.pull();
  }

  private pull(): void {
    // An abort has ended the reader by now: its listener runs inside abort(), and pull() runs after
    // it, from start() or from a step's reaction. Reading the flag costs less than the signal's
    // `aborted` getter, which checks its receiver on every call.
    if (this.ended) return;
    let step: Promise<IteratorResult<T>>;
    try {
      step = this.source.next();
    } catch (error) {
      this.end(false);
      this.reject(error);
      return;
    }
    // A native promise passes through Promise.resolve as itself; anything else becomes one.
    Promise.resolve(step).then(this.onStep, this.onStepError);
  }

  /** `stopSource`: the source has not ended by itself and is told to stop, without waiting for it. */
  private end(stopSource: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.signal.removeEventListener('abort', this.onAbort);
    if (stopSource) void Promise.resolve(this.source.return?.()).catch(() => {});
  }
}
