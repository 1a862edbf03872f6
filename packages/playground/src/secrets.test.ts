import { Agent, AgentSession, createLogger, defineAgent, setDefaultLogger } from '@voxwire/agents';
import { LLM } from '@voxwire/plugin-openai';
import {
  CHAT_PATH,
  type FakeOpenAIServer,
  jsonResponse,
  startFakeOpenAIServer,
} from '@voxwire/plugin-openai/testing';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Playground, startPlayground } from './server.js';

/** Not in any known key format: only the plugin knows it is a secret. */
const SENTINEL = 'SENTINELxPLAYGROUNDx5b8e0d7c41a9f326';

let server: FakeOpenAIServer | undefined;
let playground: Playground | undefined;
afterEach(async () => {
  setDefaultLogger(undefined);
  await playground?.close();
  await server?.close();
  playground = undefined;
  server = undefined;
});

describe('playground and provider secrets', () => {
  it('a 401 whose body echoes the key reaches the page and the logs without it', async () => {
    server = await startFakeOpenAIServer();
    const echo = () =>
      jsonResponse(401, {
        error: {
          message: `Incorrect API key provided: ${SENTINEL}. Authorization: Bearer ${SENTINEL}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    // Every retry and every reply gets the same answer.
    for (let i = 0; i < 10; i++) server.enqueue(CHAT_PATH, echo());
    const baseURL = server.baseURL;
    const agent = defineAgent({
      async entry(ctx) {
        const llm = new LLM({
          apiKey: SENTINEL,
          baseURL,
          model: 'gpt-test',
          clientOptions: { logLevel: 'off' },
        });
        const session = new AgentSession({ llm });
        // As an agent would: the whole error object (causes, body, SDK headers) goes to the log.
        session.on('error', (e) => ctx.logger.error({ error: e.error }, 'session error'));
        await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
      },
    });
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line) => lines.push(line) } });
    // Whatever the core logs, through the playground's logger or the default one, is captured.
    setDefaultLogger(logger);
    playground = await startPlayground({ agent, logger, prewarmed: undefined });

    const ws = new WebSocket(`${playground.origin.replace('http', 'ws')}/ws?token=${playground.token}`);
    const raw: string[] = [];
    let sawError: () => void = () => {};
    const errored = new Promise<void>((resolve) => {
      sawError = resolve;
    });
    ws.on('message', (data, binary) => {
      if (binary) return;
      raw.push(String(data));
      if ((JSON.parse(String(data)) as { type: string }).type === 'error') sawError();
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ type: 'hello', protocol: 1, sampleRate: 16000 }));
    ws.send(JSON.stringify({ type: 'user_text', text: 'hello' }));
    await errored;
    ws.close();
    await expect.poll(() => playground?.activeSessions).toBe(0);

    expect(server.requestsTo(CHAT_PATH)[0]!.headers.authorization).toBe(`Bearer ${SENTINEL}`);
    const page = raw.join('\n');
    expect(page).toMatch(/HTTP 401: Incorrect API key provided: \[Redacted\]/u);
    expect(page).not.toContain(SENTINEL);
    expect(lines.length, 'the session logged the failure').toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(SENTINEL);
  });
});
