import { Agent, AgentSession, defineAgent, type LLM, silentLogger, VirtualClock } from '@voxwire/agents';
import { SPECIFICATION_VERSION } from '@voxwire/agents/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Playground, startPlayground } from './server.js';

/** Answers only when the test lets it, so typed messages pile up behind the first reply. */
function gatedLLM() {
  const calls: string[] = [];
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const llm: LLM = {
    label: 'gated',
    model: 'gated',
    specificationVersion: SPECIFICATION_VERSION,
    supportsToolCalls: false,
    async *chat({ messages }) {
      const last = messages.at(-1);
      calls.push(
        last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '',
      );
      await gate;
      yield { type: 'text_delta', text: 'ok' };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return {
    llm,
    calls,
    release() {
      open();
      gate = Promise.resolve();
    },
  };
}

interface Client {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  closedWith: Promise<number>;
}

async function connect(pg: Playground): Promise<Client> {
  const ws = new WebSocket(`${pg.origin.replace('http', 'ws')}/ws?token=${pg.token}`);
  const messages: Array<Record<string, unknown>> = [];
  ws.on('message', (data, binary) => {
    if (!binary) messages.push(JSON.parse(String(data)));
  });
  const closedWith = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, messages, closedWith };
}

let playground: Playground | undefined;
afterEach(async () => {
  await playground?.close();
  playground = undefined;
});

describe('bounded work from the page', () => {
  it('caps the typed messages waiting for a reply, with a notice, and accepts more once answered', async () => {
    const gated = gatedLLM();
    const agent = defineAgent({
      async entry(ctx) {
        const session = new AgentSession({ llm: gated.llm });
        await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
      },
    });
    playground = await startPlayground({
      agent,
      logger: silentLogger,
      prewarmed: undefined,
      maxQueuedTexts: 3,
    });
    const c = await connect(playground);
    c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 16000 }));
    await expect.poll(() => c.messages.some((m) => m.type === 'ready')).toBe(true);
    for (let i = 0; i < 50; i++) c.ws.send(JSON.stringify({ type: 'user_text', text: `message ${i}` }));
    const refusals = () =>
      c.messages.filter((m) => m.type === 'notice' && /still waiting for a reply/u.test(String(m.message)));
    await expect.poll(() => refusals().length).toBe(47);
    expect(refusals()[0]!.message).toBe(
      'Not sent: 3 typed messages are still waiting for a reply. Wait for the agent to answer, then send it again.',
    );
    expect(refusals()[0]!.level).toBe('warn');

    gated.release();
    const replies = () => c.messages.filter((m) => m.type === 'message' && m.role === 'assistant');
    await expect.poll(() => replies().length).toBe(3);
    // Three replies, so three LLM calls: the refused messages cost nothing.
    expect(gated.calls).toHaveLength(3);
    // Answered: the slots are free again.
    c.ws.send(JSON.stringify({ type: 'user_text', text: 'again' }));
    await expect.poll(() => replies().length).toBe(4);
    expect(gated.calls).toHaveLength(4);
    expect(refusals()).toHaveLength(47);
    c.ws.close();
  });

  it('closes a socket that never says hello on the server clock, freeing its slot', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const agent = defineAgent({ async entry() {} });
    playground = await startPlayground({
      agent,
      logger: silentLogger,
      prewarmed: undefined,
      clock,
      maxSessions: 1,
    });
    const silent = await connect(playground);
    await expect.poll(() => playground?.activeSessions).toBe(1);
    await clock.advance(4999);
    expect(playground.activeSessions).toBe(1);
    await clock.advance(1);
    expect(await silent.closedWith).toBe(4000);
    await expect.poll(() => playground?.activeSessions).toBe(0);
    // The slot is free for a real page.
    const next = await connect(playground);
    await expect.poll(() => playground?.activeSessions).toBe(1);
    expect(next.messages.filter((m) => m.type === 'notice')).toEqual([]);
    next.ws.close();
  });
});
