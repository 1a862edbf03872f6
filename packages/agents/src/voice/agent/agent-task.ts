import { SessionClosedError, VoxwireError } from '../../errors.js';
import { Agent, type AgentOptions } from './agent.js';
import { currentRunScope } from '../tools/run-scope.js';

/** The task was awaited outside a session (no tool or agent hook is running). */
export class TaskContextError extends VoxwireError {
  override name = 'TaskContextError';
}

/**
 * An agent that runs until it reaches a result, then hands control back to whoever awaited it. Awaited
 * inside a tool (`const email = await new GetEmailTask()`), it takes over the conversation; the tool's
 * speech stays uninterruptible meanwhile and the tool gets the result.
 */
export class AgentTask<Result = unknown, UserData = unknown>
  extends Agent<UserData>
  implements PromiseLike<Result>
{
  private settled = false;
  private resolveResult!: (value: Result) => void;
  private rejectResult!: (error: unknown) => void;
  /** @internal Resolves with the result, rejects with the failure passed to `complete()`. */
  readonly result: Promise<Result>;
  private started: Promise<Result> | undefined;

  constructor(options: AgentOptions) {
    super(options);
    this.result = new Promise<Result>((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    // Nobody may be listening yet when a task fails; the awaiting tool still sees the rejection.
    this.result.catch(() => {});
  }

  get completed(): boolean {
    return this.settled;
  }

  /** Ends the task with a result, or with an error the awaiting tool will see. Later calls are ignored. */
  complete(result: Result | Error): void {
    if (this.settled) return;
    this.settled = true;
    if (result instanceof Error) this.rejectResult(result);
    else this.resolveResult(result);
  }

  // biome-ignore lint/suspicious/noThenProperty: `await task` runs the task, by design.
  then<R1 = Result, R2 = never>(
    onfulfilled?: ((value: Result) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    this.started ??= this.start();
    return this.started.then(onfulfilled, onrejected);
  }

  private start(): Promise<Result> {
    const scope = currentRunScope();
    if (!scope) {
      return Promise.reject(
        new TaskContextError(
          `AgentTask ${this.id} was awaited outside a session: await it inside a tool or an agent hook`,
        ),
      );
    }
    if (scope.session.closed) return Promise.reject(new SessionClosedError());
    return scope.session.runTask(this, scope.runContext, scope.runContext?.agent ?? scope.agent);
  }
}
