import { type Clock, defineAgent, type JobContext, realClock, silentLogger } from '@voxwire/agents';
import { AgentWorker } from '../worker/agent-worker.js';
import type { AgentWorkerOptions } from '../worker/options.js';
import { type LiveKitJobContext, livekitJobContext } from '../worker/running-job.js';
import type { FakeLiveKitServer } from './fake-livekit-server.js';
import { FakeRoom } from './fake-room.js';

export interface HarnessJob {
  ctx: LiveKitJobContext;
  room: FakeRoom;
  url: string;
  token: string;
}

/** A worker pointed at the fake server, whose jobs join fake rooms and wait until they are ended. */
export function startWorker(
  server: FakeLiveKitServer,
  overrides: Partial<AgentWorkerOptions> & { entry?: (ctx: JobContext) => Promise<void> } = {},
) {
  const clock: Clock = overrides.clock ?? realClock();
  const jobs = new Map<string, HarnessJob>();
  const rooms: Array<{ url: string; token: string; room: FakeRoom }> = [];
  const { entry, ...options } = overrides;
  const worker = new AgentWorker({
    url: server.url,
    apiKey: server.apiKey,
    apiSecret: server.apiSecret,
    logger: silentLogger,
    loadFn: () => 0,
    statusIntervalMs: 100,
    reconnectPolicy: { initialDelayMs: 20, maxDelayMs: 100, jitter: 0 },
    agent: defineAgent({
      async entry(ctx) {
        const lk = livekitJobContext(ctx)!;
        const joined = rooms[rooms.length - 1]!;
        jobs.set(ctx.jobId, { ctx: lk, ...joined });
        if (entry) await entry(ctx);
      },
    }),
    connectRoom: async (url, token) => {
      const room = new FakeRoom(clock);
      rooms.push({ url, token, room });
      return room;
    },
    ...options,
  });
  const running = worker.start();
  running.catch(() => {});
  return { worker, running, jobs, rooms };
}
