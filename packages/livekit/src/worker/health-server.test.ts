import { afterEach, describe, expect, it } from 'vitest';
import { FakeLiveKitServer } from '../testing/fake-livekit-server.js';
import { startWorker } from '../testing/worker-harness.js';
import { EventLoopWatchdog } from './stall-watchdog.js';

let server: FakeLiveKitServer | undefined;
afterEach(async () => {
  await server?.close();
});

describe('worker health endpoints', () => {
  it('answers / while connected and describes the worker and its jobs on /worker', async () => {
    server = await FakeLiveKitServer.start();
    const { worker, jobs } = startWorker(server, {
      agentName: 'desk',
      healthPort: 0,
      healthHost: '127.0.0.1',
    });
    try {
      await server.waitForRegistrations(1);
      await server.waitFor(() => worker.healthPort !== undefined && worker.workerId !== undefined);
      const base = `http://127.0.0.1:${worker.healthPort}`;
      expect((await fetch(`${base}/`)).status).toBe(200);
      await server.dispatch({ id: 'J_h', room: 'front' });
      await server.waitFor(() => jobs.has('J_h'));
      expect(await (await fetch(`${base}/worker`)).json()).toMatchObject({
        workerId: worker.workerId,
        agentName: 'desk',
        connected: true,
        draining: false,
        status: 'available',
        jobs: [{ id: 'J_h', room: 'front' }],
        metrics: { sessionsStarted: 0, turns: 0, turnLatencyMs: null, errors: {} },
      });
      expect((await fetch(`${base}/nope`)).status).toBe(404);
      await worker.drain(100);
      await expect(fetch(`${base}/`)).rejects.toThrow();
    } finally {
      await worker.close();
    }
  });
});

describe('EventLoopWatchdog', () => {
  it('reports a blocked event loop', async () => {
    const stalls: number[] = [];
    const watchdog = new EventLoopWatchdog(100, (ms) => stalls.push(ms), 50);
    watchdog.start();
    try {
      await new Promise((r) => setTimeout(r, 60));
      const until = performance.now() + 250;
      while (performance.now() < until) {
        // A synchronous stall, as a model call on the main thread would make.
      }
      for (let i = 0; i < 40 && stalls.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(stalls.length).toBeGreaterThan(0);
      expect(Math.max(...stalls)).toBeGreaterThanOrEqual(150);
    } finally {
      watchdog.stop();
    }
  });
});
