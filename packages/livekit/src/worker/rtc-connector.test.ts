// The default room connector (rtc-node) on the worker's real path, against a server that is no SFU:
// joining fails fast, and the job is reported failed with rtc-node's reason.
import { JobStatus } from '@livekit/protocol';
import { defineAgent, silentLogger } from '@voxwire/agents';
import { afterAll, expect, it } from 'vitest';
import { disposeRtcNode } from '../room/rtc-room.js';
import { FakeLiveKitServer } from '../testing/fake-livekit-server.js';
import { AgentWorker } from './agent-worker.js';

afterAll(async () => {
  await disposeRtcNode();
});

it('reports a job failed when rtc-node cannot join its room', async () => {
  const server = await FakeLiveKitServer.start();
  let entries = 0;
  const worker = new AgentWorker({
    url: server.url,
    apiKey: server.apiKey,
    apiSecret: server.apiSecret,
    logger: silentLogger,
    loadFn: () => 0,
    agent: defineAgent({
      entry: async () => {
        entries++;
      },
    }),
  });
  const running = worker.start();
  running.catch(() => {});
  try {
    await server.waitForRegistrations(1);
    await server.dispatch({ id: 'J_rtc' });
    const end = await server.waitForJobEnd('J_rtc', 20_000);
    expect(end.status).toBe(JobStatus.JS_FAILED);
    expect(end.error).toMatch(/^could not join the room: .*404/u);
    expect(entries).toBe(0);
    // rtc-node tried the room endpoint of the same server (a self-hosted server sends no URL).
    expect(server.refused.some((r) => r.status === 404)).toBe(true);
  } finally {
    await worker.close();
    await server.close();
  }
}, 30_000);
