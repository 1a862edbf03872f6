import { inspect } from 'node:util';
import { AudioFrame, APIStatusError } from '@voxwire/agents';
import { type ProviderProblem, redactLogValue } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LLM } from './llm/llm.js';
import { SecretScrubber } from './scrub.js';
import { STT } from './stt.js';
import {
  CHAT_PATH,
  type FakeOpenAIServer,
  jsonResponse,
  SPEECH_PATH,
  startFakeOpenAIServer,
  TRANSCRIPTIONS_PATH,
} from './testing/fake-openai-server.js';
import { drain } from './testing/helpers.js';
import { TTS } from './tts.js';

/** Looks like no known key format, so only the plugin's own scrubbing can catch it. */
const SENTINEL = 'SENTINELxKEYx7f3a9c2e81d64b05';
const PROXY_TOKEN = 'proxyTOKEN4d9e1b7c2a';

/** What a careless server or proxy answers: the key in the message, in the body, in a header dump. */
function echoingKey(status: number) {
  return jsonResponse(
    status,
    {
      error: {
        message: `Incorrect API key provided: ${SENTINEL}. Sent headers: Authorization: Bearer ${SENTINEL}`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        debug: { authorization: `Bearer ${SENTINEL}`, api_key: SENTINEL, proxy: PROXY_TOKEN },
      },
    },
    { 'x-echo': SENTINEL },
  );
}

/** Every way the error could be shown: message, stack, body, a logger's view, `inspect` with causes. */
function everyView(error: unknown): string {
  const e = error as Error & { body?: unknown; cause?: unknown };
  return [
    e.message,
    e.stack,
    String(e),
    JSON.stringify(e.body),
    JSON.stringify(redactLogValue(e)),
    inspect(e, { depth: 10, showHidden: true }),
  ].join('\n');
}

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const common = () => ({
  apiKey: SENTINEL,
  baseURL: server.baseURL,
  clientOptions: {
    logLevel: 'off' as const,
    defaultHeaders: { 'X-Proxy-Authorization': `Bearer ${PROXY_TOKEN}` },
  },
  retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 },
});

describe('the API key never leaves the plugin', () => {
  it('LLM: a 401 echoing the key surfaces without it; the key was sent', async () => {
    server.enqueue(CHAT_PATH, echoingKey(401));
    const llm = new LLM({ ...common(), model: 'gpt-test' });
    const { error } = await drain(
      llm.chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }),
    );
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect((error as Error).message).toMatch(/HTTP 401: Incorrect API key provided: \[Redacted\]/u);
    expect((error as Error).message).toContain('check the API key');
    const views = everyView(error);
    expect(views).not.toContain(SENTINEL);
    expect(views).not.toContain(PROXY_TOKEN);
    // The request itself did carry the key: scrubbing is on the way out only.
    expect(server.requestsTo(CHAT_PATH)[0]!.headers.authorization).toBe(`Bearer ${SENTINEL}`);
  });

  it('LLM: a retried 500 echoing the key reports a clean problem, then a clean error', async () => {
    server.enqueue(CHAT_PATH, echoingKey(500), echoingKey(500));
    const problems: ProviderProblem[] = [];
    const llm = new LLM({ ...common(), model: 'gpt-test' });
    const { error } = await drain(
      llm.chat({
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        onProblem: (p) => problems.push(p),
      }),
    );
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(2);
    expect(problems.length).toBeGreaterThanOrEqual(1);
    const all = [everyView(error), ...problems.map((p) => inspect(p, { depth: 10 }) + everyView(p.error))];
    for (const view of all) {
      expect(view).not.toContain(SENTINEL);
      expect(view).not.toContain(PROXY_TOKEN);
    }
  });

  it('STT and TTS: the same 401 surfaces without the key', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, echoingKey(401));
    server.enqueue(SPEECH_PATH, echoingKey(401));
    const stt = new STT(common());
    const frame = new AudioFrame(new Int16Array(1600), 16_000, 1, 1600);
    const sttError = await stt.recognize([frame], { sampleRate: 16_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const tts = new TTS(common());
    const { error: ttsError } = await drain(tts.synthesize('hello'));
    for (const error of [sttError, ttsError]) {
      expect(error).toBeInstanceOf(APIStatusError);
      expect(everyView(error)).not.toContain(SENTINEL);
      expect(everyView(error)).not.toContain(PROXY_TOKEN);
    }
  });
});

describe('SecretScrubber', () => {
  it('replaces the exact secrets, generic credentials and secret-named fields', () => {
    const scrub = new SecretScrubber([SENTINEL, 'short', null, undefined]);
    expect(scrub.text(`key ${SENTINEL}, sk-abcdefghijklmnopqrstuvwx, short words`)).toBe(
      'key [Redacted], [Redacted], short words',
    );
    expect(scrub.value({ a: [`x${SENTINEL}`], token: 'anything', n: 1 })).toEqual({
      a: ['x[Redacted]'],
      token: '[Redacted]',
      n: 1,
    });
    const cause = new Error(`inner ${SENTINEL}`);
    const outer = new Error(`outer ${SENTINEL}`, { cause });
    expect(scrub.error(outer)).toBe(outer);
    expect(inspect(outer, { depth: 5 })).not.toContain(SENTINEL);
  });
});
