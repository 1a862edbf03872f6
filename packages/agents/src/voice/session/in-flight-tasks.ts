/**
 * Every task the session starts (a speech, the handling of a turn), so `close()` can wait for them. A
 * task that fails is handed to `onFailure` (the session reports it as an `error` event): nobody else
 * awaits these promises, and an unhandled rejection would end the process.
 */
export class InFlightTasks {
  private readonly tasks = new Set<Promise<void>>();

  constructor(private readonly onFailure: (error: unknown) => void) {}

  track(task: Promise<unknown>): void {
    const settled = task.then(
      () => {},
      (error: unknown) => {
        try {
          this.onFailure(error);
        } catch {
          // A failing reporter must not turn one failed task into a crash either.
        }
      },
    );
    this.tasks.add(settled);
    void settled.then(() => this.tasks.delete(settled));
  }

  /** Never rejects: failures went to `onFailure`. */
  get pending(): Array<Promise<void>> {
    return [...this.tasks];
  }
}
