/** What the worker measured across its sessions, as `/worker` reports it. */
export interface WorkerMetricsSnapshot {
  sessionsStarted: number;
  turns: number;
  /** From the end of the user's speech to the first frame of the reply, over the last turns. */
  turnLatencyMs: { p50: number; p95: number; p99: number; samples: number } | null;
  /** Session `error` events, by source (`stt`, `llm`, `tts`, `audio_output`, ...). */
  errors: Record<string, number>;
}

/** New measurements since the last `drain()`, to carry from a job process to the worker. */
export interface MetricsDelta {
  sessionsStarted: number;
  latenciesMs: number[];
  errors: Record<string, number>;
}

/**
 * Counters and a bounded window of turn latencies for every session of the worker (and of its job
 * processes, which send their deltas with each pong).
 */
export class WorkerMetrics {
  private sessions = 0;
  private turnCount = 0;
  private readonly window: number[] = [];
  private readonly errorCounts: Record<string, number> = {};
  private pending: MetricsDelta = { sessionsStarted: 0, latenciesMs: [], errors: {} };

  constructor(private readonly windowSize = 1000) {}

  sessionStarted(): void {
    this.sessions++;
    this.pending.sessionsStarted++;
  }

  turn(latencyMs: number): void {
    if (!Number.isFinite(latencyMs)) return;
    this.turnCount++;
    this.window.push(latencyMs);
    if (this.window.length > this.windowSize) this.window.shift();
    if (this.pending.latenciesMs.length < this.windowSize) this.pending.latenciesMs.push(latencyMs);
  }

  error(source: string): void {
    this.errorCounts[source] = (this.errorCounts[source] ?? 0) + 1;
    this.pending.errors[source] = (this.pending.errors[source] ?? 0) + 1;
  }

  /** Adds what another process measured. */
  merge(delta: MetricsDelta): void {
    this.sessions += delta.sessionsStarted;
    for (const ms of delta.latenciesMs) {
      this.turnCount++;
      this.window.push(ms);
      if (this.window.length > this.windowSize) this.window.shift();
    }
    for (const [source, count] of Object.entries(delta.errors)) {
      this.errorCounts[source] = (this.errorCounts[source] ?? 0) + count;
    }
  }

  /** What was measured here since the previous call (for a job process to send on). */
  drain(): MetricsDelta {
    const delta = this.pending;
    this.pending = { sessionsStarted: 0, latenciesMs: [], errors: {} };
    return delta;
  }

  snapshot(): WorkerMetricsSnapshot {
    const sorted = [...this.window].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return {
      sessionsStarted: this.sessions,
      turns: this.turnCount,
      turnLatencyMs:
        sorted.length === 0 ? null : { p50: at(0.5), p95: at(0.95), p99: at(0.99), samples: sorted.length },
      errors: { ...this.errorCounts },
    };
  }
}
