import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { realClock } from '../time/clock.js';
import { Agent } from '../voice/agent/agent.js';
import { AgentSession } from '../voice/session/agent-session.js';
import { NullAudioOutput } from '../voice/io/null-audio-output.js';
import { agentDefinitionFromModule, defineAgent, isAgentDefinition } from './agent-definition.js';
import { Job, type JobNotice, type JobTransport, prewarmAgent } from './job-context.js';

function fakeTransport() {
  const notices: JobNotice[] = [];
  const connected: AgentSession[] = [];
  const ended: string[] = [];
  const output = new NullAudioOutput(realClock());
  const transport: JobTransport = {
    name: 'test',
    io: () => ({ input: {}, output: { audio: output } }),
    onSessionConnected: (session) => connected.push(session),
    notify: (notice) => notices.push(notice),
    onJobEnded: (reason) => ended.push(reason),
  };
  return { transport, notices, connected, ended, output };
}

describe('defineAgent', () => {
  it('brands definitions and finds them in modules, CommonJS interop included', () => {
    const definition = defineAgent({ entry: async () => {} });
    expect(isAgentDefinition(definition)).toBe(true);
    expect(isAgentDefinition({ entry: async () => {} })).toBe(false);
    expect(agentDefinitionFromModule({ default: definition }, 'a.ts')).toBe(definition);
    expect(agentDefinitionFromModule({ default: { default: definition } }, 'a.ts')).toBe(definition);
  });

  it('says how to fix a file without a definition', () => {
    expect(() => agentDefinitionFromModule({ entry() {} }, 'agent.ts')).toThrow(
      /agent\.ts does not export an agent: add `export default defineAgent/,
    );
    expect(() => defineAgent({} as never)).toThrow(/needs an `entry\(ctx\)`/);
  });

  it('runs prewarm and hands its result to every job', async () => {
    const definition = defineAgent({ prewarm: async () => ({ model: 'loaded' }), entry: async () => {} });
    expect(await prewarmAgent(definition)).toEqual({ model: 'loaded' });
    expect(await prewarmAgent(defineAgent({ entry: async () => {} }))).toBeUndefined();
  });
});

describe('Job', () => {
  it('connects the session to the transport and closes it when the job ends', async () => {
    const t = fakeTransport();
    let signal: AbortSignal | undefined;
    const calls: string[] = [];
    const definition = defineAgent<string>({
      async entry(ctx) {
        signal = ctx.signal;
        expect(ctx.prewarmed).toBe('warm');
        expect(ctx.transport).toBe('test');
        const session = new AgentSession();
        const io = ctx.connect(session);
        expect(io.output.audio).toBe(t.output);
        await session.start({ agent: new Agent({ instructions: 'hi' }), ...io });
        ctx.addShutdownCallback((reason) => {
          calls.push(`callback: ${reason}`);
        });
      },
    });
    const job = new Job({ definition, prewarmed: 'warm', transport: t.transport, logger: silentLogger });
    await job.run();
    expect(t.connected).toHaveLength(1);
    await job.shutdown('user left');
    expect(await job.ended).toBe('user left');
    expect(t.connected[0]!.closed).toBe(true);
    expect(signal?.aborted).toBe(true);
    expect(calls).toEqual(['callback: user left']);
    expect(t.ended).toEqual(['user left']);
  });

  it('ends when its session closes by itself', async () => {
    const t = fakeTransport();
    let session: AgentSession | undefined;
    const definition = defineAgent({
      async entry(ctx) {
        session = new AgentSession();
        await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
      },
    });
    const job = new Job({ definition, prewarmed: undefined, transport: t.transport, logger: silentLogger });
    await job.run();
    await session!.close('agent hung up');
    expect(await job.ended).toBe('session closed: agent hung up');
  });

  it('reports a failing entry to the transport and ends', async () => {
    const t = fakeTransport();
    const definition = defineAgent({
      async entry() {
        throw new Error('no API key');
      },
    });
    const job = new Job({ definition, prewarmed: undefined, transport: t.transport, logger: silentLogger });
    await job.run();
    expect(await job.ended).toBe('entry failed: no API key');
    expect(t.notices).toEqual([{ level: 'error', message: 'The agent entry failed: no API key' }]);
  });

  it('warns when the entry connected nothing, and refuses a second session', async () => {
    const t = fakeTransport();
    const job = new Job({
      definition: defineAgent({ entry: async () => {} }),
      prewarmed: undefined,
      transport: t.transport,
      logger: silentLogger,
    });
    await job.run();
    expect(t.notices[0]?.level).toBe('warn');
    expect(t.notices[0]?.message).toMatch(/without connecting a session/);
    job.context.connect(new AgentSession());
    expect(() => job.context.connect(new AgentSession())).toThrow(/one session/);
    await job.shutdown();
  });

  it('keeps its shutdown deadline when a callback hangs', async () => {
    const t = fakeTransport();
    const job = new Job({
      definition: defineAgent({
        async entry(ctx) {
          ctx.addShutdownCallback(() => new Promise(() => {}));
        },
      }),
      prewarmed: undefined,
      transport: t.transport,
      logger: silentLogger,
      shutdownTimeoutMs: 50,
    });
    await job.run();
    job.context.shutdown('bye');
    expect(await job.ended).toBe('bye');
  });
});
