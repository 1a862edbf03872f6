import { fileURLToPath } from 'node:url';
import { JobStatus } from '@livekit/protocol';
import { defineAgent, silentLogger } from '@voxwire/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeLiveKitServer } from '../testing/fake-livekit-server.js';
import { AgentWorker } from './agent-worker.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
let server: FakeLiveKitServer | undefined;
let worker: AgentWorker | undefined;

afterEach(async () => {
  await worker?.close();
  await server?.close();
});

describe('jobs in a pool of job processes', () => {
  it('fails to start, without registering or respawning, when no process can load the agent file', async () => {
    server = await FakeLiveKitServer.start();
    worker = new AgentWorker({
      url: server.url,
      apiKey: server.apiKey,
      apiSecret: server.apiSecret,
      logger: silentLogger,
      agent: defineAgent({ entry: async () => {} }),
      jobProcesses: {
        agentFile: here('../testing/no-such-agent.ts'),
        processes: 1,
        execArgv: ['--import', 'tsx', '--conditions=@voxwire/source'],
        env: { VOXWIRE_LOG_LEVEL: 'silent' },
      },
    });
    await expect(worker.start()).rejects.toThrow(
      /no job process could load .*no-such-agent\.ts: .*no-such-agent/u,
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(worker.jobProcessIds).toEqual([]);
    expect(server.connections).toHaveLength(0);
  }, 30_000);

  it('isolates a job that throws, one that hangs its event loop and one that exits', async () => {
    server = await FakeLiveKitServer.start();
    worker = new AgentWorker({
      url: server.url,
      apiKey: server.apiKey,
      apiSecret: server.apiSecret,
      logger: silentLogger,
      loadFn: () => 0,
      statusIntervalMs: 200,
      // Not run here: the processes load the agent file themselves.
      agent: defineAgent({ entry: async () => {} }),
      jobProcesses: {
        agentFile: here('../testing/crashing-agent.ts'),
        roomConnectorModule: here('../testing/fake-room-connector.ts'),
        processes: 2,
        execArgv: ['--import', 'tsx', '--conditions=@voxwire/source'],
        env: { VOXWIRE_LOG_LEVEL: 'silent' },
        pingIntervalMs: 200,
        pingTimeoutMs: 1000,
      },
    });
    const running = worker.start();
    running.catch(() => {});
    await server.waitForRegistrations(1, 30_000);

    await server.waitFor(() => worker!.jobProcessIds.length === 2, 30_000);
    const [first, second] = worker.jobProcessIds;

    // A healthy job on one process; the exiting job goes to the other (the one with fewer jobs).
    await server.dispatch({ id: 'J_ok' });
    await server.waitFor(() => server!.jobStatuses('J_ok').length > 0);
    await server.dispatch({ id: 'J_exit', metadata: 'exit' });
    expect(await server.waitForJobEnd('J_exit', 10_000)).toMatchObject({
      status: JobStatus.JS_FAILED,
      error: 'the job process exited (code 3)',
    });

    // The dead process is replaced; the hanging job goes to the new one, which is killed for not
    // answering its pings.
    await server.waitFor(() => worker!.jobProcessIds.length === 2, 30_000);
    const replacement = worker.jobProcessIds.find((pid) => pid !== first && pid !== second);
    expect(replacement).toBeDefined();
    await server.dispatch({ id: 'J_hang', metadata: 'hang' });
    expect(await server.waitForJobEnd('J_hang', 10_000)).toMatchObject({
      status: JobStatus.JS_FAILED,
      error: 'the job process exited (signal SIGKILL)',
    });

    // A throwing entry fails only its job; its process stays.
    await server.dispatch({ id: 'J_throw', metadata: 'throw' });
    expect(await server.waitForJobEnd('J_throw', 10_000)).toMatchObject({
      status: JobStatus.JS_FAILED,
      error: 'entry failed: the agent threw',
    });

    // Through all of it the healthy job ran on, and it ends normally.
    expect(worker.activeJobIds).toEqual(['J_ok']);
    expect(server.jobStatuses('J_ok').map((s) => s.status)).toEqual([JobStatus.JS_RUNNING]);
    server.terminate('J_ok');
    expect(await server.waitForJobEnd('J_ok', 10_000)).toMatchObject({ status: JobStatus.JS_SUCCESS });
  }, 60_000);
});
