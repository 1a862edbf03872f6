import { Agent, AgentSession, BackgroundAudio, defineAgent, type LLM, silentLogger } from '@voxwire/agents';
import { SPECIFICATION_VERSION } from '@voxwire/agents/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Playground, startPlayground } from './server.js';

const echoLLM: LLM = {
  label: 'echo',
  model: 'echo',
  specificationVersion: SPECIFICATION_VERSION,
  supportsToolCalls: false,
  async *chat({ messages }) {
    const last = messages.at(-1);
    const text =
      last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
    yield { type: 'text_delta', text: `echo: ${text}` };
    yield { type: 'finish', reason: 'stop' };
  },
};

const closed: string[] = [];
const agent = defineAgent({
  async entry(ctx) {
    const session = new AgentSession({ llm: echoLLM });
    session.on('close', (e) => closed.push(e.reason));
    await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
    ctx.notify(`hello from ${ctx.transport}`);
    if (ctx.prewarmed === 'hang up') ctx.shutdown('the agent hung up');
  },
});

interface Client {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  next(type: string, test?: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  closedWith: Promise<number>;
}

function connect(
  pg: Playground,
  headers: Record<string, string> = {},
  query = `?token=${pg.token}`,
): Promise<Client> {
  const ws = new WebSocket(`${pg.origin.replace('http', 'ws')}/ws${query}`, { headers });
  const messages: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data, binary) => {
    if (binary) return;
    messages.push(JSON.parse(String(data)));
    for (const w of waiters.splice(0)) w();
  });
  const closedWith = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const next = (type: string, test: (m: Record<string, unknown>) => boolean = () => true) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const look = () => {
        const found = messages.find((m) => m.type === type && test(m));
        if (found) resolve(found);
        else waiters.push(look);
      };
      look();
    });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, next, closedWith }));
    ws.once('error', reject);
  });
}

let playground: Playground | undefined;
afterEach(async () => {
  await playground?.close();
  playground = undefined;
  closed.length = 0;
});

describe('playground server', () => {
  it('serves the page and its scripts, and nothing else', async () => {
    playground = await startPlayground({ agent, logger: silentLogger });
    expect(playground.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+$/);
    const page = await fetch(playground.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    for (const path of ['app.js', 'capture-worklet.js', 'player-worklet.js', 'style.css']) {
      expect((await fetch(`${playground.origin}/${path}`)).status).toBe(200);
    }
    expect((await fetch(`${playground.origin}/../package.json`)).status).toBe(404);
    expect((await fetch(playground.url, { method: 'POST' })).status).toBe(405);
  });

  it('runs one job per socket: notices, typed turns and replies reach only that page', async () => {
    playground = await startPlayground({ agent, logger: silentLogger });
    const [a, b] = [await connect(playground), await connect(playground)];
    for (const c of [a, b]) c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 48000 }));
    const ready = await a.next('ready');
    expect(ready.outputSampleRate).toBe(48000);
    expect((await a.next('notice')).message).toBe('hello from playground');
    await b.next('ready');
    expect(playground.activeSessions).toBe(2);
    // Garbage is ignored, not fatal.
    a.ws.send('not json');
    a.ws.send(JSON.stringify({ type: 'playback_progress', segment: 'x' }));
    a.ws.send(new Uint8Array(3));
    a.ws.send(JSON.stringify({ type: 'user_text', text: 'hi there' }));
    expect((await a.next('message', (m) => m.role === 'user')).text).toBe('hi there');
    expect((await a.next('message', (m) => m.role === 'assistant')).text).toBe('echo: hi there');
    expect(b.messages.filter((m) => m.type === 'message')).toEqual([]);
    // A dropped socket ends its session; the other goes on.
    a.ws.terminate();
    await expect.poll(() => closed).toEqual(['the page closed']);
    expect(playground.activeSessions).toBe(1);
    b.ws.close();
    await expect.poll(() => playground?.activeSessions).toBe(0);
  });

  it('answers typed lines as user turns in text, beside the microphone', async () => {
    playground = await startPlayground({ agent, logger: silentLogger });
    const c = await connect(playground);
    // Typed before the session exists: nothing to answer it, and nothing breaks.
    c.ws.send(JSON.stringify({ type: 'user_text', text: 'too early' }));
    c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 16000 }));
    await c.next('ready');
    // Blank lines and malformed texts are dropped; the line is trimmed and capped at 2000 characters.
    c.ws.send(JSON.stringify({ type: 'user_text', text: '   ' }));
    c.ws.send(JSON.stringify({ type: 'user_text', text: 42 }));
    c.ws.send(JSON.stringify({ type: 'user_text', text: `  ${'a'.repeat(2500)}  ` }));
    const user = await c.next('message', (m) => m.role === 'user');
    expect(user.text).toBe('a'.repeat(2000));
    const reply = await c.next('message', (m) => m.role === 'assistant');
    expect(reply).toMatchObject({ text: `echo: ${'a'.repeat(2000)}`, interrupted: false });
    // The reply reaches the transcript as it becomes audible (the page's agent line), then ends.
    await c.next('agent_text_end');
    const pieces = c.messages.filter((m) => m.type === 'agent_text').map((m) => m.text);
    expect(pieces.join('')).toBe(`echo: ${'a'.repeat(2000)}`);
    c.ws.send(JSON.stringify({ type: 'user_text', text: 'second line' }));
    expect(
      (await c.next('message', (m) => m.role === 'assistant' && m.text === 'echo: second line')).type,
    ).toBe('message');
    const users = c.messages.filter((m) => m.type === 'message' && m.role === 'user').map((m) => m.text);
    expect(users).toEqual(['a'.repeat(2000), 'second line']);
    expect(c.messages.some((m) => m.type === 'message' && m.text === 'too early')).toBe(false);
    c.ws.close();
  });

  it('carries BackgroundAudio wrapped around the page output, and typed turns still answer', async () => {
    const withBackground = defineAgent({
      async entry(ctx) {
        const session = new AgentSession({ llm: echoLLM });
        const io = ctx.connect(session);
        io.output.audio = new BackgroundAudio(session, { ambient: { volume: 0.2 } }).wrap(io.output.audio!);
        await session.start({ agent: new Agent({ instructions: '' }), ...io });
      },
    });
    playground = await startPlayground({ agent: withBackground, logger: silentLogger });
    const c = await connect(playground);
    const segments: number[] = [];
    c.ws.on('message', (data, binary) => {
      if (binary) segments.push((data as Buffer).readUInt32LE(0));
    });
    c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 16000 }));
    await c.next('ready');
    await expect.poll(() => segments.length, { timeout: 5000 }).toBeGreaterThan(5);
    c.ws.send(JSON.stringify({ type: 'user_text', text: 'with ambience' }));
    expect((await c.next('message', (m) => m.role === 'assistant')).text).toBe('echo: with ambience');
    c.ws.close();
  });

  it('takes typed lines only over a socket that passed the Host, Origin and secret checks', async () => {
    playground = await startPlayground({ agent, logger: silentLogger });
    for (const [headers, query] of [
      [{ Origin: 'https://evil.example' }, `?token=${playground.token}`],
      [{ Host: 'evil.example' }, `?token=${playground.token}`],
      [{}, '?token=wrong'],
    ] as const) {
      await expect(connect(playground, headers, query)).rejects.toThrow(/40[13]/);
    }
    expect(playground.activeSessions).toBe(0);
  });

  it('refuses other origins and tabs beyond the limit', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, maxSessions: 1 });
    await expect(connect(playground, { Origin: 'https://evil.example' })).rejects.toThrow(/403/);
    const first = await connect(playground, { Origin: playground.origin });
    first.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 16000 }));
    await first.next('ready');
    const extra = await connect(playground);
    expect((await extra.next('notice')).message).toMatch(/serves 1 tabs at once/);
    expect(await extra.closedWith).toBe(4001);
    const stale = await connect(playground);
    await expect(stale.closedWith).resolves.toBe(4001);
    first.ws.close();
  });

  it('rejects a page of another protocol version with a notice to reload', async () => {
    playground = await startPlayground({ agent, logger: silentLogger });
    const c = await connect(playground);
    c.ws.send(JSON.stringify({ type: 'hello', protocol: 99, sampleRate: 48000 }));
    expect((await c.next('notice')).message).toMatch(/Reload the page/);
    expect(await c.closedWith).toBe(1000);
  });

  it('closes the page when the agent ends the job, and tells pages to reconnect on a restart', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, prewarmed: 'hang up' });
    const c = await connect(playground);
    c.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 48000 }));
    expect(await c.next('ended')).toEqual({ type: 'ended', reason: 'the agent hung up', reconnect: false });
    expect(await c.closedWith).toBe(1000);
    await playground.close();

    playground = await startPlayground({ agent, logger: silentLogger });
    const d = await connect(playground);
    d.ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 48000 }));
    await d.next('ready');
    await playground.close({ reason: 'reloading', reconnect: true });
    expect(await d.next('ended')).toEqual({ type: 'ended', reason: 'reloading', reconnect: true });
    expect(closed).toEqual(['the agent hung up', 'reloading']);
  });
});
