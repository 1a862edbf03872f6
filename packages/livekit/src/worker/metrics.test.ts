import { describe, expect, it } from 'vitest';
import { WorkerMetrics } from './metrics.js';

describe('WorkerMetrics', () => {
  it('reports turn latency percentiles over a bounded window, and errors by source', () => {
    const metrics = new WorkerMetrics(100);
    expect(metrics.snapshot()).toEqual({ sessionsStarted: 0, turns: 0, turnLatencyMs: null, errors: {} });
    metrics.sessionStarted();
    for (let ms = 1; ms <= 200; ms++) metrics.turn(ms);
    metrics.turn(Number.NaN);
    metrics.error('tts');
    metrics.error('tts');
    metrics.error('stt');
    // Only the last 100 turns (101..200) are in the window.
    expect(metrics.snapshot()).toEqual({
      sessionsStarted: 1,
      turns: 200,
      turnLatencyMs: { p50: 151, p95: 196, p99: 200, samples: 100 },
      errors: { tts: 2, stt: 1 },
    });
  });

  it('carries what a job process measured to the worker, once', () => {
    const child = new WorkerMetrics();
    const worker = new WorkerMetrics();
    child.sessionStarted();
    child.turn(300);
    child.error('llm');
    worker.merge(child.drain());
    worker.merge(child.drain());
    expect(worker.snapshot()).toMatchObject({
      sessionsStarted: 1,
      turns: 1,
      turnLatencyMs: { p50: 300, samples: 1 },
      errors: { llm: 1 },
    });
  });
});
