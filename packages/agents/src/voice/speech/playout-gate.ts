import { abortReason, type Clock } from '../../time/clock.js';

/**
 * Holds back the frames of the playing speech while the user talks over an interruptible speech. The
 * interruption policy owns it; the speech pipeline only waits on it.
 */
export class PlayoutGate {
  private closedFlag = false;
  private waiters = new Set<() => void>();
  private pausedSince = 0;
  private pausedBefore = 0;
  private readonly watchers = new Set<(paused: boolean) => void>();

  constructor(private readonly clock: Clock) {}

  /** Total time spent paused so far, in ms (including a pause still going on). */
  get pausedTotalMs(): number {
    return this.pausedBefore + (this.closedFlag ? this.clock.now() - this.pausedSince : 0);
  }

  /** When the pause going on began, if the gate is paused. */
  get pausedSinceMs(): number | undefined {
    return this.closedFlag ? this.pausedSince : undefined;
  }

  get paused(): boolean {
    return this.closedFlag;
  }

  /** Calls `watcher` at each pause and resume, until the returned function is called. */
  watch(watcher: (paused: boolean) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  pause(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.pausedSince = this.clock.now();
    for (const watcher of [...this.watchers]) watcher(true);
  }

  resume(): void {
    if (!this.closedFlag) return;
    this.closedFlag = false;
    this.pausedBefore += this.clock.now() - this.pausedSince;
    for (const watcher of [...this.watchers]) watcher(false);
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const w of waiters) w();
  }

  /** Resolves when the gate is open; rejects when `signal` aborts first. */
  waitOpen(signal: AbortSignal): Promise<void> {
    if (!this.closedFlag) return Promise.resolve();
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters.delete(wake);
        reject(abortReason(signal));
      };
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
