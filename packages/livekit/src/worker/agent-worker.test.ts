import { EventEmitter } from 'node:events';
import { JobStatus, JobType, WorkerStatus } from '@livekit/protocol';
import { VirtualClock } from '@voxwire/agents';
import { APIStatusError } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeLiveKitServer } from '../testing/fake-livekit-server.js';
import { startWorker } from '../testing/worker-harness.js';
import { runWorker } from './run-worker.js';

let server: FakeLiveKitServer;
const cleanups: Array<() => Promise<unknown>> = [];

beforeEach(async () => {
  server = await FakeLiveKitServer.start();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  await server.close();
});

/** Advances virtual time in steps, letting real socket I/O happen between them, until `done`. */
async function advanceUntil(
  clock: VirtualClock,
  done: () => boolean,
  stepMs = 50,
  maxSteps = 200,
): Promise<void> {
  for (let i = 0; i < maxSteps && !done(); i++) {
    await clock.advance(stepMs);
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(done()).toBe(true);
}

function worker(...args: Parameters<typeof startWorker> extends [unknown, ...infer R] ? R : never) {
  const started = startWorker(server, ...args);
  cleanups.push(() => started.worker.close());
  return started;
}

describe('AgentWorker: registration', () => {
  it('registers over /agent with a signed agent-grant token and reports its status with a load', async () => {
    worker({ agentName: 'receptionist', version: '9.9.9', deployment: 'blue', loadFn: () => 0.25 });
    const connection = await server.waitForRegistrations(1);
    expect(connection.authorization).toBe('header');
    expect(connection.registration).toMatchObject({
      type: JobType.JT_ROOM,
      agentName: 'receptionist',
      version: '9.9.9',
      deployment: 'blue',
      allowedPermissions: {
        canPublish: true,
        canSubscribe: true,
        canPublishData: true,
        agent: true,
        hidden: false,
      },
    });
    await server.waitFor(() => server.statuses().length >= 2);
    for (const status of server.statuses()) {
      expect(status).toMatchObject({ status: WorkerStatus.WS_AVAILABLE, load: 0.25, jobCount: 0 });
    }
  });

  it('fails at once, without retrying, when the server refuses the credentials', async () => {
    const { running } = worker({ apiSecret: 'not-the-secret-of-this-server-at-all' });
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect(server.refused).toEqual([{ status: 401, reason: expect.stringContaining('invalid token') }]);
    expect(String((error as Error).message)).not.toContain('not-the-secret');
  });

  it("registers for publisher jobs and with custom permissions, as this package's version", async () => {
    worker({ jobType: 'publisher', permissions: { canPublishData: false, hidden: true } });
    const connection = await server.waitForRegistrations(1);
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    expect(connection.registration?.version).toBe(version);
    expect(connection.registration?.type).toBe(JobType.JT_PUBLISHER);
    expect(connection.registration?.allowedPermissions).toMatchObject({
      canPublishData: false,
      hidden: true,
    });
  });
});

describe('AgentWorker: jobs', () => {
  it('accepts by default, joins the room with the assignment token, runs the entry and reports the job', async () => {
    const { jobs, rooms } = worker({ agentName: 'receptionist' });
    await server.waitForRegistrations(1);
    const answer = await server.dispatch({ id: 'AJ_1', room: 'support', metadata: '{"lang":"en"}' });
    expect(answer).toMatchObject({
      jobId: 'AJ_1',
      available: true,
      participantIdentity: 'agent-AJ_1',
      participantName: 'receptionist',
      participantAttributes: { 'lk.agent.name': 'receptionist' },
    });
    await server.waitFor(() => jobs.has('AJ_1'));
    const job = jobs.get('AJ_1')!;
    expect(job.url).toBe(server.url);
    expect(job.token).toBe('room-token-AJ_1');
    expect(job.ctx.transport).toBe('livekit');
    expect(job.ctx.job.room?.name).toBe('support');
    expect(job.ctx.job.metadata).toBe('{"lang":"en"}');
    expect(job.ctx.room).toBe(rooms[0]!.room);
    expect(server.jobStatuses('AJ_1').map((s) => s.status)).toEqual([JobStatus.JS_RUNNING]);

    server.terminate('AJ_1');
    const end = await server.waitForJobEnd('AJ_1');
    expect(end).toMatchObject({ status: JobStatus.JS_SUCCESS, error: '' });
    expect(job.ctx.signal.aborted).toBe(true);
    expect(rooms[0]!.room.disconnected).toBe(true);
  });

  it('uses the URL of the assignment when the server sends one (LiveKit Cloud)', async () => {
    const { jobs } = worker();
    await server.waitForRegistrations(1);
    await server.offer({ id: 'AJ_url' });
    server.assign({ id: 'AJ_url' }, 'tok', 'wss://edge.example.invalid');
    await server.waitFor(() => jobs.has('AJ_url'));
    expect(jobs.get('AJ_url')!.url).toBe('wss://edge.example.invalid');
  });

  it('lets requestFn accept as a named participant, reject, or reject and terminate', async () => {
    worker({
      requestFn: (request) => {
        if (request.metadata === 'vip') {
          request.accept({ identity: 'concierge', name: 'Concierge', attributes: { tier: 'gold' } });
        } else if (request.metadata === 'spam') {
          request.reject({ terminate: true });
        } else {
          request.reject();
        }
      },
    });
    await server.waitForRegistrations(1);
    expect(await server.offer({ id: 'J_vip', metadata: 'vip' })).toMatchObject({
      available: true,
      participantIdentity: 'concierge',
      participantName: 'Concierge',
      participantAttributes: { tier: 'gold' },
    });
    expect(await server.offer({ id: 'J_no' })).toMatchObject({ available: false, terminate: false });
    expect(await server.offer({ id: 'J_spam', metadata: 'spam' })).toMatchObject({
      available: false,
      terminate: true,
    });
  });

  it('rejects when requestFn throws, answers nothing, or is too slow', async () => {
    worker({
      availabilityTimeoutMs: 100,
      requestFn: async (request) => {
        if (request.metadata === 'throw') throw new Error('boom');
        if (request.metadata === 'slow') await new Promise((r) => setTimeout(r, 1000));
      },
    });
    await server.waitForRegistrations(1);
    for (const metadata of ['throw', 'silent', 'slow']) {
      expect(await server.offer({ id: `J_${metadata}`, metadata })).toMatchObject({ available: false });
    }
  });

  it('holds a slot while deciding, so concurrent offers see the load they add', async () => {
    const loads: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    worker({
      sessionCapacity: 2,
      loadFn: undefined,
      loadThreshold: 0.99,
      requestFn: async (request) => {
        await gate;
        request.accept();
      },
    });
    await server.waitForRegistrations(1);
    const a = server.offer({ id: 'J_a' });
    const b = server.offer({ id: 'J_b' });
    await server.waitFor(() => server.statuses().some((s) => s.jobCount === 2), 5000, 'two held slots');
    release();
    expect((await a).available && (await b).available).toBe(true);
    loads.push(...server.statuses().map((s) => s.load));
    // Two sessions against a capacity of two: full.
    await server.waitFor(() =>
      server.statuses().some((s) => s.status === WorkerStatus.WS_FULL && s.load === 1),
    );
  });

  it('reports a throwing entry as a failed job and goes on taking jobs', async () => {
    const { jobs } = worker({
      entry: async (ctx) => {
        if (ctx.jobId === 'J_bad') throw new Error('the agent crashed');
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      },
    });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_bad' });
    expect(await server.waitForJobEnd('J_bad')).toMatchObject({
      status: JobStatus.JS_FAILED,
      error: 'entry failed: the agent crashed',
    });
    await server.dispatch({ id: 'J_good' });
    await server.waitFor(() => jobs.has('J_good'));
    expect(server.jobStatuses('J_good').map((s) => s.status)).toEqual([JobStatus.JS_RUNNING]);
  });

  it('reports a job whose room cannot be joined as failed', async () => {
    const started = worker({
      connectRoom: async () => {
        throw new Error('could not reach the SFU');
      },
    });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_noroom' });
    expect(await server.waitForJobEnd('J_noroom')).toMatchObject({
      status: JobStatus.JS_FAILED,
      error: 'could not join the room: could not reach the SFU',
    });
    expect(started.worker.activeJobIds).toEqual([]);
  });

  it('answers an assignment it was not waiting for with a failed status', async () => {
    worker();
    await server.waitForRegistrations(1);
    server.assign({ id: 'J_stray' });
    expect(await server.waitForJobEnd('J_stray')).toMatchObject({ status: JobStatus.JS_FAILED });
  });

  it('ignores an undecodable frame instead of crashing, and keeps serving', async () => {
    const { jobs } = worker();
    await server.waitForRegistrations(1);
    server.sendRaw(new Uint8Array([0xff, 0xff, 0xff, 0x07]));
    server.sendRaw('not protobuf');
    await server.dispatch({ id: 'J_after' });
    await server.waitFor(() => jobs.has('J_after'));
    expect(server.connections).toHaveLength(1);
  });
});

describe('AgentWorker: on the virtual clock', () => {
  it('releases the slot of an accepted job whose assignment never comes, and refuses it when it comes late', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const started = worker({ clock, assignmentTimeoutMs: 7500, statusIntervalMs: 60_000 });
    await server.waitForRegistrations(1);
    expect((await server.offer({ id: 'J_late' })).available).toBe(true);
    await server.waitFor(() => server.statuses().some((s) => s.jobCount === 1));
    await clock.advance(7499);
    expect(started.worker.load).toBe(0);
    const before = server.statuses().length;
    await clock.advance(1);
    await server.waitFor(() => server.statuses().length > before);
    expect(server.statuses().at(-1)).toMatchObject({ jobCount: 0 });
    server.assign({ id: 'J_late' });
    expect(await server.waitForJobEnd('J_late')).toMatchObject({ status: JobStatus.JS_FAILED });
    expect(started.jobs.has('J_late')).toBe(false);
  });

  it('reconnects with backoff after a dropped connection and reports the jobs still running', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const { jobs, worker: w } = worker({
      clock,
      reconnectPolicy: { initialDelayMs: 500, maxDelayMs: 10_000, multiplier: 2, jitter: 0 },
    });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_live' });
    await server.waitFor(() => jobs.has('J_live'));

    server.drop();
    await server.waitFor(() => server.connections[0]!.closed);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.connections).toHaveLength(1);
    await clock.advance(499);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.connections).toHaveLength(1);
    await clock.advance(1);
    const second = await server.waitForRegistrations(2);
    expect(second.workerId).not.toBe(server.connections[0]!.workerId);
    await server.waitFor(() => second.received.some((m) => m.case === 'migrateJob'));
    const migrate = second.received.find((m) => m.case === 'migrateJob');
    expect(migrate?.value).toMatchObject({ jobIds: ['J_live'] });
    // The job went on through the outage and the new connection can end it.
    expect(jobs.get('J_live')!.ctx.signal.aborted).toBe(false);
    expect(w.workerId).toBe(second.workerId);
    server.terminate('J_live');
    await server.waitFor(
      () => second.received.some((m) => m.case === 'updateJob' && m.value.status === JobStatus.JS_SUCCESS),
      5000,
      'the job end on the new connection',
    );
  });

  it('pings the server and re-connects when it goes silent', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    worker({ clock, pingIntervalMs: 1000, pingTimeoutMs: 3000, statusIntervalMs: 60_000 });
    await server.waitForRegistrations(1);
    await server.waitFor(() => server.statuses().length >= 1);
    await clock.advance(1000);
    await server.waitFor(() => server.messages('ping').length === 1);
    server.silent = true;
    await clock.advance(3000);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.connections[0]!.closed).toBe(false);
    await clock.advance(1000);
    await server.waitFor(() => server.connections[0]!.closed, 5000, 'the silent connection to be dropped');
    await advanceUntil(clock, () => server.connections.filter((c) => c.workerId).length === 2);
  });

  it('gives up after the policy retries when the server is gone', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const { running } = worker({ clock, reconnectPolicy: { maxRetries: 2, initialDelayMs: 100, jitter: 0 } });
    await server.waitForRegistrations(1);
    const url = server.url;
    await server.close();
    server = await FakeLiveKitServer.start();
    let failure: unknown;
    running.catch((e) => {
      failure = e;
    });
    for (let i = 0; i < 20 && failure === undefined; i++) {
      await clock.advance(1000);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(String((failure as Error)?.message)).toContain(`could not reach ${url} after 3 attempts`);
  });
});

describe('AgentWorker: drain', () => {
  it('reports full, refuses new jobs, waits for the running ones, then closes', async () => {
    const { worker: w, jobs, running } = worker();
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_1' });
    await server.waitFor(() => jobs.has('J_1'));
    const drained = w.drain(60_000);
    await server.waitFor(() =>
      server.statuses().some((s) => s.status === WorkerStatus.WS_FULL && s.jobCount === 1),
    );
    expect(await server.offer({ id: 'J_2' })).toMatchObject({ available: false });
    let done = false;
    void drained.then(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(done).toBe(false);
    jobs.get('J_1')!.ctx.shutdown('the user hung up');
    await drained;
    await running;
    expect(await server.waitForJobEnd('J_1')).toMatchObject({ status: JobStatus.JS_SUCCESS });
    await server.waitFor(() => server.connections[0]!.closed);
  });

  it('ends the jobs still running when the drain deadline passes', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const { worker: w, jobs } = worker({ clock, statusIntervalMs: 60_000 });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_long' });
    await server.waitFor(() => jobs.has('J_long'));
    const drained = w.drain(5000);
    await clock.advance(5000);
    await drained;
    expect(jobs.get('J_long')!.ctx.signal.aborted).toBe(true);
    expect((jobs.get('J_long')!.ctx.signal.reason as Error).message).toBe('drain timed out');
  });

  it('runWorker drains on SIGTERM and closes at once on a second signal', async () => {
    const signals = new EventEmitter();
    let jobCtx: { signal: AbortSignal; shutdown(r?: string): void } | undefined;
    const done = runWorker({
      url: server.url,
      apiKey: server.apiKey,
      apiSecret: server.apiSecret,
      logger: undefined,
      loadFn: () => 0,
      statusIntervalMs: 50,
      signalSource: signals as unknown as NodeJS.Process,
      agent: (await import('@voxwire/agents')).defineAgent({
        async entry(ctx) {
          jobCtx = ctx;
        },
      }),
      connectRoom: async () => new (await import('../testing/fake-room.js')).FakeRoom(new VirtualClock()),
    });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_sig' });
    await server.waitFor(() => jobCtx !== undefined);
    signals.emit('SIGTERM', 'SIGTERM');
    await server.waitFor(() => server.statuses().some((s) => s.status === WorkerStatus.WS_FULL));
    expect(jobCtx!.signal.aborted).toBe(false);
    signals.emit('SIGINT', 'SIGINT');
    await done;
    expect(jobCtx!.signal.aborted).toBe(true);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('AgentWorker: a job with a real session', () => {
  it('ends a job terminated mid-speech: the session closes, the audio and transcript stop, the room is left', async () => {
    const { FakeLLM, FakeTTS } = await import('@voxwire/testing');
    const { Agent, AgentSession, realClock } = await import('@voxwire/agents');
    const clock = realClock();
    let session: InstanceType<typeof AgentSession> | undefined;
    const { jobs, rooms } = worker({
      entry: async (ctx) => {
        session = new AgentSession({
          clock,
          llm: new FakeLLM({ clock, replies: [] }),
          tts: new FakeTTS({ clock, sampleRate: 24_000, msPerChar: 40 }),
        });
        await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
        session.say('This is a long announcement that will be cut off by the server before it ends.');
      },
    });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_speech' });
    await server.waitFor(() => jobs.has('J_speech'));
    const room = rooms[0]!.room;
    room.join({ identity: 'alice', name: 'alice', kind: 'standard', metadata: '', attributes: {} });
    await server.waitFor(
      () => session?.agentState === 'speaking' && (room.sink?.capturedMs ?? 0) > 200,
      5000,
      'speech',
    );
    server.terminate('J_speech');
    expect(await server.waitForJobEnd('J_speech')).toMatchObject({ status: JobStatus.JS_SUCCESS });
    expect(session!.closed).toBe(true);
    expect(room.sink!.closed).toBe(true);
    expect(room.sink!.capturedMs).toBeLessThan(80 * 40);
    expect(room.disconnected).toBe(true);
    const agentText = room.texts.filter(
      (t) => t.topic === 'lk.transcription' && t.senderIdentity === undefined,
    );
    for (const t of agentText) expect(t.closed).toBe(true);
    const captured = room.sink!.capturedMs;
    await new Promise((r) => setTimeout(r, 200));
    expect(room.sink!.capturedMs).toBe(captured);
  });
});

describe('AgentWorker: termination while joining', () => {
  it('never runs the entry of a job terminated before its room was joined, and reports it ended', async () => {
    let joined!: () => void;
    const joining = new Promise<void>((r) => {
      joined = r;
    });
    let entries = 0;
    const { FakeRoom } = await import('../testing/fake-room.js');
    worker({
      entry: async () => {
        entries++;
      },
      connectRoom: async () => {
        await joining;
        return new FakeRoom(new VirtualClock());
      },
    });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_early' });
    await server.waitFor(() => server.jobStatuses('J_early').length > 0);
    server.terminate('J_early');
    await new Promise((r) => setTimeout(r, 50));
    joined();
    expect(await server.waitForJobEnd('J_early')).toMatchObject({ status: JobStatus.JS_SUCCESS });
    expect(entries).toBe(0);
  });
});

describe('AgentWorker: a job that ends during an outage', () => {
  it('reports its end after registering again', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const { jobs } = worker({ clock, reconnectPolicy: { initialDelayMs: 1000, jitter: 0 } });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_gap' });
    await server.waitFor(() => jobs.has('J_gap'));
    server.drop();
    await server.waitFor(() => server.connections[0]!.closed);
    await new Promise((r) => setTimeout(r, 50));
    jobs.get('J_gap')!.ctx.shutdown('the user hung up');
    await new Promise((r) => setTimeout(r, 50));
    await advanceUntil(clock, () => server.connections.filter((c) => c.workerId).length === 2);
    const second = server.connections[1]!;
    await server.waitFor(() =>
      second.received.some(
        (m) => m.case === 'updateJob' && m.value.jobId === 'J_gap' && m.value.status === JobStatus.JS_SUCCESS,
      ),
    );
    expect(second.received.some((m) => m.case === 'migrateJob')).toBe(false);
  });

  it('reports again an end the server may not have read before the connection dropped', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const { jobs } = worker({ clock, reconnectPolicy: { initialDelayMs: 1000, jitter: 0 } });
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_unread' });
    await server.waitFor(() => jobs.has('J_unread'));
    // No pong comes back: the server never confirms it read the end.
    server.silent = true;
    jobs.get('J_unread')!.ctx.shutdown('the user hung up');
    await server.waitForJobEnd('J_unread');
    server.drop();
    await server.waitFor(() => server.connections[0]!.closed);
    server.silent = false;
    await new Promise((r) => setTimeout(r, 50));
    await advanceUntil(clock, () => server.connections.filter((c) => c.workerId).length === 2);
    const second = server.connections[1]!;
    await server.waitFor(() =>
      second.received.some(
        (m) =>
          m.case === 'updateJob' && m.value.jobId === 'J_unread' && m.value.status === JobStatus.JS_SUCCESS,
      ),
    );
  });
});
