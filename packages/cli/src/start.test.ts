import { fileURLToPath } from 'node:url';
import { silentLogger } from '@voxwire/agents';
import type { AgentWorker, RunWorkerOptions } from '@voxwire/livekit';
import { runWorker } from '@voxwire/livekit';
import { afterEach, describe, expect, it } from 'vitest';
// The loopback LiveKit /agent endpoint of @voxwire/livekit's own tests.
import { FakeLiveKitServer } from '../../livekit/src/testing/fake-livekit-server.js';
import { main } from './main.js';
import type { Output } from './output.js';
import { DEV_SERVER, runStart } from './start.js';

const ECHO_AGENT = fileURLToPath(new URL('./test-support/echo-agent.ts', import.meta.url));

function buffer(): Output & { text(): string } {
  let all = '';
  const add = (prefix: string) => (t: string) => {
    all += `${prefix}${t}\n`;
  };
  return {
    info: add(''),
    warn: add('warning: '),
    error: add('error: '),
    write: (t) => {
      all += t;
    },
    text: () => all,
  };
}

const saved = { ...process.env };
afterEach(() => {
  for (const key of ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

describe('voxwire start', () => {
  it('says which LiveKit settings are missing', async () => {
    delete process.env.LIVEKIT_URL;
    delete process.env.LIVEKIT_API_KEY;
    delete process.env.LIVEKIT_API_SECRET;
    const out = buffer();
    expect(await main(['start', ECHO_AGENT], out)).toBe(2);
    expect(out.text()).toContain('voxwire start needs LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET');
    const help = buffer();
    expect(await main(['start', '--help'], help)).toBe(0);
    expect(help.text()).toContain('--agent-name <name>');
  });

  it('hands the agent file, the credentials and the agent name to the worker; --dev fills in the local server', async () => {
    const calls: RunWorkerOptions<unknown>[] = [];
    const fake = async () => ({
      runWorker: async (options: RunWorkerOptions<unknown>) => {
        calls.push(options);
      },
    });
    const out = buffer();
    const env = {
      LIVEKIT_URL: 'wss://example.livekit.cloud',
      LIVEKIT_API_KEY: 'APIkey',
      LIVEKIT_API_SECRET: 's3cr3t',
    };
    expect(
      await runStart({ file: ECHO_AGENT, agentName: 'echo', env, logger: silentLogger }, out, fake),
    ).toBe(0);
    expect(calls[0]).toMatchObject({
      url: env.LIVEKIT_URL,
      apiKey: 'APIkey',
      apiSecret: 's3cr3t',
      agentName: 'echo',
    });
    expect(typeof calls[0]!.agent.entry).toBe('function');
    expect(out.text()).toContain('as "echo" (explicit dispatch)');
    expect(out.text()).not.toContain('s3cr3t');
    await runStart({ file: ECHO_AGENT, dev: true, env: {}, logger: silentLogger }, buffer(), fake);
    expect(calls[1]).toMatchObject({ ...DEV_SERVER, loadThreshold: Number.POSITIVE_INFINITY });
    expect(calls[1]!.jobProcesses).toBeUndefined();
    await runStart(
      { file: ECHO_AGENT, processes: 3, healthPort: 8081, env, logger: silentLogger },
      buffer(),
      fake,
    );
    expect(calls[2]!.healthPort).toBe(8081);
    expect(calls[2]!.jobProcesses).toMatchObject({ agentFile: ECHO_AGENT, processes: 3 });
    // The processes load the TypeScript agent file through tsx.
    expect(calls[2]!.jobProcesses!.execArgv!.some((flag) => flag.includes('tsx'))).toBe(true);
    const bad = buffer();
    expect(await main(['start', ECHO_AGENT, '--processes', '0'], bad)).toBe(2);
    expect(bad.text()).toContain('--processes must be a whole number from 1 to 64');
    const badPort = buffer();
    expect(await main(['start', ECHO_AGENT, '--health-port', 'web'], badPort)).toBe(2);
    expect(badPort.text()).toContain('--health-port must be a number from 0 to 65535');
  });

  it('registers the agent file with a LiveKit server and stops when drained', async () => {
    await registerAndDrain({});
  });

  it('with --processes, registers once its job processes have loaded the TypeScript agent file', async () => {
    await registerAndDrain({ processes: 1 });
  }, 60_000);
});

async function registerAndDrain(extra: { processes?: number }): Promise<void> {
  const server = await FakeLiveKitServer.start();
  let worker: AgentWorker<unknown> | undefined;
  const env = {
    LIVEKIT_URL: server.url,
    LIVEKIT_API_KEY: server.apiKey,
    LIVEKIT_API_SECRET: server.apiSecret,
  };
  try {
    const done = runStart(
      { file: ECHO_AGENT, agentName: 'echo', env, logger: silentLogger, ...extra },
      buffer(),
      async () => ({
        runWorker: (options) =>
          runWorker({
            ...options,
            handleSignals: false,
            onWorker: (w) => {
              worker = w;
            },
          }),
      }),
    );
    const connection = await server.waitForRegistrations(1, 30_000);
    expect(connection.registration?.agentName).toBe('echo');
    expect(worker!.jobProcessIds).toHaveLength(extra.processes ?? 0);
    await worker!.drain(1000);
    expect(await done).toBe(0);
  } finally {
    await server.close();
  }
}
