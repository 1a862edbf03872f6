import { APIStatusError, AudioFrame, type Clock, realClock } from '@voxwire/agents';
import type { LLMMessage } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LLM, type LLMOptions } from './llm/llm.js';
import { STT } from './stt.js';
import {
  CHAT_PATH,
  errorResponse,
  type FakeOpenAIServer,
  jsonResponse,
  sse,
  startFakeOpenAIServer,
  TRANSCRIPTIONS_PATH,
  textAnswer,
} from './testing/fake-openai-server.js';
import { drain, textOf } from './testing/helpers.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

/** The real clock, except that backoff sleeps are recorded and skipped. */
function recordingClock(): { clock: Clock; sleeps: number[] } {
  const real = realClock();
  const sleeps: number[] = [];
  return {
    sleeps,
    clock: {
      now: () => real.now(),
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return real.sleep(0, signal);
      },
      setTimer: (ms, callback) => real.setTimer(ms, callback),
      setRepeatingTimer: (ms, callback) => real.setRepeatingTimer(ms, callback),
    },
  };
}

function makeLLM(options: LLMOptions): LLM {
  return new LLM({
    apiKey: 'test-key',
    baseURL: server.baseURL,
    model: 'gpt-test',
    clientOptions: { logLevel: 'off' },
    ...options,
  });
}

function userMessages(): LLMMessage[] {
  return [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
}

const fastRetry = { initialDelayMs: 1, maxDelayMs: 1, jitter: 0 };

describe('retry-after', () => {
  it('waits as long as the server asks, beyond maxDelayMs', async () => {
    const { clock, sleeps } = recordingClock();
    server.enqueue(
      CHAT_PATH,
      errorResponse(429, 'Rate limit reached', { 'retry-after': '1.5' }),
      sse(textAnswer(['ok'])),
    );
    const { items, error } = await drain(
      makeLLM({ clock, retry: fastRetry }).chat({ messages: userMessages() }),
    );
    expect(error).toBeUndefined();
    expect(textOf(items)).toBe('ok');
    expect(sleeps).toEqual([1_500]);
  });

  it('reads the HTTP-date form against the response Date header', async () => {
    const { clock, sleeps } = recordingClock();
    server.enqueue(
      CHAT_PATH,
      errorResponse(503, 'Overloaded', {
        date: 'Sun, 06 Nov 1994 08:49:37 GMT',
        'retry-after': 'Sun, 06 Nov 1994 08:49:39 GMT',
      }),
      sse(textAnswer(['ok'])),
    );
    const { error } = await drain(makeLLM({ clock, retry: fastRetry }).chat({ messages: userMessages() }));
    expect(error).toBeUndefined();
    expect(sleeps).toEqual([2_000]);
  });

  it('fails at once, without shortening the wait, when the server asks for more than maxRetryAfterMs', async () => {
    const { clock, sleeps } = recordingClock();
    server.enqueue(CHAT_PATH, errorResponse(429, 'Quota exceeded', { 'retry-after': '3600' }));
    const { error } = await drain(makeLLM({ clock, retry: fastRetry }).chat({ messages: userMessages() }));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(429);
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(1);
    expect(sleeps).toEqual([]);

    server.enqueue(CHAT_PATH, errorResponse(429, 'Slow down', { 'retry-after-ms': '50' }));
    const strict = makeLLM({ clock, retry: { ...fastRetry, maxRetryAfterMs: 10 } });
    expect((await drain(strict.chat({ messages: userMessages() }))).error).toBeInstanceOf(APIStatusError);
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(2);
  });

  it('is honoured by one-shot requests too', async () => {
    const { clock, sleeps } = recordingClock();
    server.enqueue(
      TRANSCRIPTIONS_PATH,
      errorResponse(503, 'Busy', { 'retry-after-ms': '40' }),
      jsonResponse(200, { text: 'hello' }),
    );
    const stt = new STT({
      apiKey: 'k',
      baseURL: server.baseURL,
      clock,
      retry: { ...fastRetry, maxRetries: 1 },
    });
    const result = await stt.recognize([new AudioFrame(new Int16Array(160), 16_000, 1, 160)], {
      sampleRate: 16_000,
    });
    expect(result[0]!.text).toBe('hello');
    expect(sleeps).toEqual([40]);
  });
});
