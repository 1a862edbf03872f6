/**
 * Notices a blocked event loop, the analogue of LiveKit's `blockguard`: many sessions share one
 * process, so one synchronous stall delays every one of them. A host timer ticks every `tickMs`; a
 * tick that comes `warnAfterMs` late means the loop was blocked that long. It uses the host's timer
 * and clock on purpose, not the injected `Clock`: virtual time cannot be blocked.
 */
export class EventLoopWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private lastTickAt = 0;

  constructor(
    private readonly warnAfterMs: number,
    private readonly onStall: (stalledMs: number) => void,
    private readonly tickMs = 100,
  ) {}

  start(): void {
    if (this.timer) return;
    this.lastTickAt = performance.now();
    this.timer = setInterval(() => this.tick(), this.tickMs);
    // The watchdog alone must not keep a finished worker alive.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = performance.now();
    const lateMs = now - this.lastTickAt - this.tickMs;
    this.lastTickAt = now;
    if (lateMs >= this.warnAfterMs) this.onStall(Math.round(lateMs));
  }
}
