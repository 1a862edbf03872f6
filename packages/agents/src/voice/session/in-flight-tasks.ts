/** Every task the session starts (a speech, the handling of a turn), so `close()` can wait for them. */
export class InFlightTasks {
  private readonly tasks = new Set<Promise<unknown>>();

  track(task: Promise<unknown>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  get pending(): Array<Promise<unknown>> {
    return [...this.tasks];
  }
}
