// Random interleavings of what a LiveKit server does to a worker (offers, late or missing assignments,
// terminations, dropped connections, jobs ending by themselves), on the virtual clock with the real
// protocol over loopback. Each seed is a reproducible timeline; a failure names its seed.
import { JobStatus } from '@livekit/protocol';
import { VirtualClock } from '@voxwire/agents';
import { Rng } from '@voxwire/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeLiveKitServer, type OfferedJob } from '../testing/fake-livekit-server.js';
import { startWorker } from '../testing/worker-harness.js';

const SEEDS = Number(process.env.LIVEKIT_FUZZ_SEEDS ?? 6);
let server: FakeLiveKitServer | undefined;

afterEach(async () => {
  await server?.close();
});

const tick = () => new Promise((r) => setTimeout(r, 3));

async function fuzz(seed: number): Promise<void> {
  const rng = new Rng(seed);
  server = await FakeLiveKitServer.start();
  const clock = new VirtualClock({ autoAdvance: false });
  const entries = new Map<string, number>();
  const { worker, jobs, running } = startWorker(server, {
    clock,
    assignmentTimeoutMs: 7500,
    availabilityTimeoutMs: 2000,
    statusIntervalMs: 2500,
    reconnectPolicy: { initialDelayMs: 200, maxDelayMs: 2000, jitter: 0, maxRetries: 50 },
    random: () => rng.next(),
    requestFn: (request) => (request.metadata === 'no' ? request.reject() : request.accept()),
    entry: async (ctx) => {
      entries.set(ctx.jobId, (entries.get(ctx.jobId) ?? 0) + 1);
    },
  });
  let failed: unknown;
  running.catch((e) => {
    failed = e;
  });
  await server.waitForRegistrations(1);
  const offered: OfferedJob[] = [];
  let next = 0;
  const registered = () => server!.current?.workerId !== undefined && !server!.current.closed;

  for (let step = 0; step < 60; step++) {
    const roll = rng.next();
    if (!registered()) {
      await clock.advance(rng.int(50, 1000));
      await tick();
      continue;
    }
    try {
      if (roll < 0.3) {
        const job: OfferedJob = { id: `J${seed}_${next++}`, metadata: rng.chance(0.2) ? 'no' : '' };
        offered.push(job);
        const answer = await server.offer(job, { timeoutMs: 2000 });
        // Assignments may come at once, late (after the worker gave up) or never.
        if (answer.available && rng.chance(0.8)) server.assign(job);
      } else if (roll < 0.45 && jobs.size > 0) {
        const ids = [...jobs.keys()].filter((id) => worker.activeJobIds.includes(id));
        if (ids.length > 0) server.terminate(ids[rng.int(0, ids.length - 1)]!);
      } else if (roll < 0.55 && jobs.size > 0) {
        const ids = worker.activeJobIds;
        if (ids.length > 0) jobs.get(ids[rng.int(0, ids.length - 1)]!)?.ctx.shutdown('the user hung up');
      } else if (roll < 0.62) {
        server.drop();
      } else if (roll < 0.67) {
        server.sendRaw(new Uint8Array([rng.int(0, 255), rng.int(0, 255), 0xff]));
      } else {
        await clock.advance(rng.int(10, 9000));
      }
    } catch {
      // The connection went away under the step (a drop): the next steps see it.
    }
    await tick();
  }

  // Let reconnection finish, then drain everything.
  for (let i = 0; i < 200 && !registered(); i++) {
    await clock.advance(200);
    await tick();
  }
  const drained = worker.drain(60_000);
  for (let i = 0; i < 100; i++) {
    await clock.advance(1000);
    await tick();
  }
  await drained;
  // Everything the worker sent before closing has arrived once the server sees the close.
  await server.waitFor(() => server!.connections.every((c) => c.closed), 5000, 'the worker to disconnect');

  const context = `seed ${seed}`;
  expect(failed, context).toBeUndefined();
  expect(worker.activeJobIds, context).toEqual([]);
  for (const [id, count] of entries) {
    expect(count, `${context}: ${id} ran once`).toBe(1);
    expect(jobs.get(id)!.ctx.signal.aborted, `${context}: ${id} ended`).toBe(true);
    expect(jobs.get(id)!.room.disconnected, `${context}: ${id} left its room`).toBe(true);
  }
  for (const job of offered) {
    const statuses = server.jobStatuses(job.id).map((s) => s.status);
    const finals = statuses.filter((s) => s === JobStatus.JS_SUCCESS || s === JobStatus.JS_FAILED);
    // A job that ran reports its end at least once (also when it ended during an outage, or just
    // before a drop); a repeat, when the drop hid the server's reading of it, says the same.
    if (entries.has(job.id))
      expect(finals.length, `${context}: ${job.id} reported its end`).toBeGreaterThanOrEqual(1);
    expect(new Set(finals).size, `${context}: ${job.id} has one final status`).toBeLessThanOrEqual(1);
    if (job.metadata === 'no') expect(entries.has(job.id), context).toBe(false);
  }
  for (const status of server.statuses()) {
    expect(status.load, context).toBeGreaterThanOrEqual(0);
    expect(status.load, context).toBeLessThanOrEqual(1);
  }
}

describe('AgentWorker fuzzed against the fake server on virtual time', () => {
  for (let seed = 1; seed <= SEEDS; seed++) {
    it(`keeps its invariants, seed ${seed}`, async () => {
      await fuzz(seed);
    }, 60_000);
  }
});
