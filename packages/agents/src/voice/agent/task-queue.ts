import type { Agent } from './agent.js';

interface Waiter {
  requester: Agent | undefined;
  task: Agent;
  start: () => void;
}

/**
 * Decides when an awaited AgentTask may take over the conversation. Only one task talks to the user at a
 * time: tasks awaited together (parallel tool calls of one reply, each awaiting its own task) take turns
 * in the order they were awaited, so each task's questions and the user's answers belong to that task.
 * A task awaited by the task in charge (from its own tools or hooks) nests inside it and starts at once.
 *
 * The requester is the agent the awaiting code works for (the owner of the tool's reply, or the agent
 * whose hook awaits); `undefined` when unknown, which counts as the agent in charge.
 */
export class TaskQueue {
  /** Tasks in charge, innermost last. */
  private readonly active: Agent[] = [];
  private readonly waiting: Waiter[] = [];

  /**
   * Resolves when `task`, awaited for `requester`, may take over; from then on it counts as in charge
   * until `ended(task)`. Rejects when `signal` aborts first.
   */
  async turn(task: Agent, requester: Agent | undefined, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.mayStart(requester)) {
      this.active.push(task);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        requester,
        task,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
        // The next in line may be free to go now.
        this.wake();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** `task` handed the conversation back: the next waiting task, if any, may start. */
  ended(task: Agent): void {
    const at = this.active.lastIndexOf(task);
    if (at >= 0) this.active.splice(at, 1);
    this.wake();
  }

  /** Whether `task` took over and has not ended. */
  isActive(task: Agent): boolean {
    return this.active.includes(task);
  }

  private mayStart(requester: Agent | undefined): boolean {
    const top = this.active[this.active.length - 1];
    return top === undefined || requester === undefined || requester === top;
  }

  /** Starts the first waiter that may start; the others keep their place in line. */
  private wake(): void {
    const at = this.waiting.findIndex((w) => this.mayStart(w.requester));
    if (at < 0) return;
    const [next] = this.waiting.splice(at, 1);
    // Counted as in charge at once, so nobody else slips in before it resumes.
    this.active.push(next!.task);
    next!.start();
  }
}
