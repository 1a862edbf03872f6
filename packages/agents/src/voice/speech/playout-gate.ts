import { abortReason } from '../../time/clock.js';

/**
 * Holds back the frames of the playing speech while the user talks over an interruptible speech. The
 * interruption policy owns it; the speech pipeline only waits on it.
 */
export class PlayoutGate {
  private closedFlag = false;
  private waiters = new Set<() => void>();
  private readonly watchers = new Set<(paused: boolean) => void>();

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
    for (const watcher of [...this.watchers]) watcher(true);
  }

  resume(): void {
    if (!this.closedFlag) return;
    this.closedFlag = false;
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
