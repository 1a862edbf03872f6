import { type APIError, APITimeoutError, type Clock, type TimerHandle } from '@voxwire/agents';
import { toAPIError } from './errors.js';

/**
 * One HTTP attempt's lifeline: a controller that aborts the request when the caller's signal aborts or
 * when the idle timer fires. The timer runs only while we wait on the network (`waiting()`), never while
 * the caller is busy with what we yielded, so a slow consumer is not mistaken for a stalled server.
 */
export class RequestGuard {
  private readonly controller = new AbortController();
  private timer: TimerHandle | undefined;
  private timedOut = false;
  private readonly onCallerAbort = (): void => this.controller.abort(this.callerSignal?.reason);

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
    private readonly what: string,
  ) {
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Pass to the SDK as the request's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the caller aborted: the attempt should end quietly. */
  get callerAborted(): boolean {
    return this.callerSignal?.aborted === true;
  }

  /** (Re)starts the idle timer: we are about to wait for the network. */
  waiting(): void {
    this.timer?.cancel();
    this.timer = this.clock.setTimer(this.timeoutMs, () => {
      this.timedOut = true;
      this.controller.abort(this.timeoutError());
    });
  }

  /** Data arrived; the timer stops until the next `waiting()`. */
  received(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /**
   * After the SDK returned or threw: the timeout error when the idle timer fired (the SDK reports our
   * abort as a quiet end of stream or a user abort, which would hide the stall).
   */
  timeoutFailure(): APIError | undefined {
    return this.timedOut ? this.timeoutError() : undefined;
  }

  /** Maps an error thrown during the attempt, letting a timeout take precedence over its abort. */
  failure(error: unknown): APIError {
    return this.timeoutFailure() ?? toAPIError(error, this.what);
  }

  /** Releases the timer and listener and aborts the request if it is still open. */
  dispose(): void {
    this.received();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }

  private timeoutError(): APITimeoutError {
    return new APITimeoutError(`${this.what}: no data from the server for ${this.timeoutMs} ms`);
  }
}
