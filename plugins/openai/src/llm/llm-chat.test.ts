import {
  APIConnectionError,
  APIError,
  APIStatusError,
  APITimeoutError,
  type Clock,
  realClock,
} from '@voxwire/agents';
import type { LLMMessage, LLMStreamPart, ProviderProblem } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LLMMetrics } from '../metrics.js';
import {
  CHAT_PATH,
  type FakeOpenAIServer,
  errorResponse,
  finishChunk,
  sse,
  startFakeOpenAIServer,
  textAnswer,
  textChunk,
  toolCallChunk,
  usageChunk,
} from '../testing/fake-openai-server.js';
import { drain, textOf, withTimeout } from '../testing/helpers.js';
import { LLM, type LLMOptions } from './llm.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

function makeLLM(options: LLMOptions = {}): LLM {
  return new LLM({
    apiKey: 'test-key',
    baseURL: server.baseURL,
    model: 'gpt-test',
    retry: { initialDelayMs: 1, jitter: 0 },
    clientOptions: { logLevel: 'off' },
    ...options,
  });
}

function userMessages(text = 'Hi'): LLMMessage[] {
  return [{ role: 'user', content: [{ type: 'text', text }] }];
}

describe('LLM (Chat Completions) streaming', () => {
  it('streams text deltas, then usage, then finish', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['Hel', 'lo', ' there'], { prompt: 12, completion: 3 })));
    const metrics: LLMMetrics[] = [];
    const llm = makeLLM({ onMetrics: (m) => metrics.push(m) });
    const { items, error } = await drain(llm.chat({ messages: userMessages() }));
    expect(error).toBeUndefined();
    expect(items).toEqual<LLMStreamPart[]>([
      { type: 'text_delta', text: 'Hel' },
      { type: 'text_delta', text: 'lo' },
      { type: 'text_delta', text: ' there' },
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } },
      { type: 'finish', reason: 'stop' },
    ]);
    const body = server.requestsTo(CHAT_PATH)[0]!.json as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } });
    expect(body).not.toHaveProperty('tools');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({
      model: 'gpt-test',
      attempts: 1,
      cancelled: false,
      error: undefined,
      usage: { completionTokens: 3 },
    });
    expect(metrics[0]!.ttftMs).toBeGreaterThanOrEqual(0);
    expect(metrics[0]!.durationMs).toBeGreaterThanOrEqual(metrics[0]!.ttftMs!);
    expect(metrics[0]!.tokensPerSecond).toBeGreaterThan(0);
  });

  it('measures metrics on the injected clock', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['a', 'b'], { prompt: 5, completion: 4 })));
    const real = realClock();
    let now = 0;
    // Each reading advances 100 ms: start, first token, end.
    const clock: Clock = {
      now: () => (now += 100),
      sleep: (ms, signal) => real.sleep(ms, signal),
      setTimer: (ms, callback) => real.setTimer(ms, callback),
      setRepeatingTimer: (ms, callback) => real.setRepeatingTimer(ms, callback),
    };
    const metrics: LLMMetrics[] = [];
    const llm = makeLLM({ clock });
    const unsubscribe = llm.onMetrics((m) => metrics.push(m));
    await drain(llm.chat({ messages: userMessages() }));
    unsubscribe();
    server.enqueue(CHAT_PATH, sse(textAnswer(['c'])));
    await drain(llm.chat({ messages: userMessages() }));
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ startedAtMs: 100, ttftMs: 100, durationMs: 200, tokensPerSecond: 40 });
  });

  it('assembles parallel tool calls whose arguments are split across chunks', async () => {
    server.enqueue(
      CHAT_PATH,
      sse([
        toolCallChunk({ index: 0, id: 'call_a', name: 'get_weather', arguments: '{"ci' }),
        toolCallChunk({ index: 1, id: 'call_b', name: 'get_time', arguments: '' }),
        toolCallChunk({ index: 0, arguments: 'ty":"Par' }),
        toolCallChunk({ index: 1, arguments: '{"tz":"CET"}' }, { index: 0, arguments: 'is"}' }),
        finishChunk('tool_calls'),
        usageChunk(40, 20, 32),
      ]),
    );
    const { items, error } = await drain(makeLLM().chat({ messages: userMessages() }));
    expect(error).toBeUndefined();
    expect(items).toEqual<LLMStreamPart[]>([
      { type: 'tool_call', callId: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', callId: 'call_b', name: 'get_time', arguments: '{"tz":"CET"}' },
      {
        type: 'usage',
        usage: { promptTokens: 40, completionTokens: 20, totalTokens: 60, cachedPromptTokens: 32 },
      },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('emits a tool call with invalid JSON arguments as is, for the tool runner to report', async () => {
    server.enqueue(
      CHAT_PATH,
      sse([
        toolCallChunk({ index: 0, id: 'call_x', name: 'lookup', arguments: '{"q": "un' }),
        finishChunk('tool_calls'),
      ]),
    );
    const { items, error } = await drain(makeLLM().chat({ messages: userMessages() }));
    expect(error).toBeUndefined();
    expect(items).toEqual<LLMStreamPart[]>([
      { type: 'tool_call', callId: 'call_x', name: 'lookup', arguments: '{"q": "un' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('reports tool calls as the finish reason when a local server says stop', async () => {
    server.enqueue(
      CHAT_PATH,
      sse([toolCallChunk({ index: 0, id: 'c1', name: 'noop', arguments: '{}' }), finishChunk('stop')]),
    );
    const { items } = await drain(makeLLM({ includeUsage: false }).chat({ messages: userMessages() }));
    expect(items.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    expect(server.requests[0]!.json).not.toHaveProperty('stream_options');
  });
});

describe('LLM (Chat Completions) failures', () => {
  it('retries a 429 before the first token, then streams once', async () => {
    server.enqueue(
      CHAT_PATH,
      errorResponse(429, 'Rate limit reached', { 'retry-after-ms': '5' }),
      sse(textAnswer(['ok'])),
    );
    const metrics: LLMMetrics[] = [];
    const { items, error } = await drain(
      makeLLM({ onMetrics: (m) => metrics.push(m) }).chat({ messages: userMessages() }),
    );
    expect(error).toBeUndefined();
    expect(textOf(items)).toBe('ok');
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(2);
    expect(metrics[0]!.attempts).toBe(2);
  });

  it('reports each retry to onProblem with its attempt, delay and error', async () => {
    server.enqueue(
      CHAT_PATH,
      errorResponse(429, 'Rate limit reached', { 'retry-after-ms': '30' }),
      errorResponse(503, 'busy'),
      sse(textAnswer(['ok'])),
    );
    const problems: ProviderProblem[] = [];
    const { items, error } = await drain(
      makeLLM({ retry: { initialDelayMs: 2, multiplier: 2, jitter: 0 } }).chat({
        messages: userMessages(),
        onProblem: (problem) => problems.push(problem),
      }),
    );
    expect(error).toBeUndefined();
    expect(textOf(items)).toBe('ok');
    expect(problems).toEqual([
      // Stretched to what the server asked for.
      { type: 'retrying', attempt: 1, delayMs: 30, error: expect.any(APIStatusError) },
      { type: 'retrying', attempt: 2, delayMs: 4, error: expect.any(APIStatusError) },
    ]);
    expect(problems[0]).toMatchObject({ error: { statusCode: 429 } });
    expect(problems[1]).toMatchObject({ error: { statusCode: 503 } });
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(3);
  });

  it('reports nothing to onProblem for a failure it does not retry, and survives a throwing listener', async () => {
    server.enqueue(CHAT_PATH, errorResponse(400, 'bad request'));
    const problems: ProviderProblem[] = [];
    const refused = await drain(
      makeLLM().chat({ messages: userMessages(), onProblem: (problem) => problems.push(problem) }),
    );
    expect(refused.error).toBeInstanceOf(APIStatusError);
    expect(problems).toEqual([]);

    server.enqueue(CHAT_PATH, errorResponse(500, 'oops'), sse(textAnswer(['fine'])));
    const { items, error } = await drain(
      makeLLM().chat({
        messages: userMessages(),
        onProblem: () => {
          throw new Error('faulty listener');
        },
      }),
    );
    expect(error).toBeUndefined();
    expect(textOf(items)).toBe('fine');
  });

  it('gives up after maxRetries with the last typed error', async () => {
    server.enqueue(
      CHAT_PATH,
      errorResponse(503, 'busy'),
      errorResponse(503, 'busy'),
      errorResponse(503, 'busy'),
    );
    const { error } = await drain(
      makeLLM({ retry: { maxRetries: 2, initialDelayMs: 1 } }).chat({ messages: userMessages() }),
    );
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(503);
    expect((error as APIStatusError).retryable).toBe(true);
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(3);
  });

  it.each([401, 403, 400])('does not retry a %i and reports it typed', async (status) => {
    server.enqueue(
      CHAT_PATH,
      errorResponse(status, 'Incorrect API key provided'),
      sse(textAnswer(['never'])),
    );
    const metrics: LLMMetrics[] = [];
    const { items, error } = await drain(
      makeLLM({ onMetrics: (m) => metrics.push(m) }).chat({ messages: userMessages() }),
    );
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(APIStatusError);
    const statusError = error as APIStatusError;
    expect(statusError.statusCode).toBe(status);
    expect(statusError.retryable).toBe(false);
    expect(statusError.message).toContain('Incorrect API key provided');
    if (status === 401) expect(statusError.message).toContain('OPENAI_API_KEY');
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ error: statusError, cancelled: false, attempts: 1 });
  });

  it('surfaces a server error after text without retrying or repeating text', async () => {
    server.enqueue(
      CHAT_PATH,
      sse([
        textChunk('Part one'),
        { error: { message: 'The server had an error', type: 'server_error', code: 500 } },
      ]),
      sse(textAnswer(['duplicate'])),
    );
    const { items, error } = await drain(makeLLM().chat({ messages: userMessages() }));
    expect(textOf(items)).toBe('Part one');
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('The server had an error');
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(1);
  });

  it('surfaces a dropped connection after text as a connection error, without a retry', async () => {
    server.enqueue(
      CHAT_PATH,
      sse([textChunk('Hello')], { ending: 'destroy', delayMs: 50 }),
      sse(textAnswer(['duplicate'])),
    );
    const { items, error } = await drain(makeLLM().chat({ messages: userMessages() }));
    expect(textOf(items)).toBe('Hello');
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(1);
  });

  it('treats a stream that ends without a finish reason as broken', async () => {
    server.enqueue(CHAT_PATH, sse([textChunk('Hel')], { done: false }));
    const { items, error } = await drain(
      makeLLM({ retry: { maxRetries: 0 } }).chat({ messages: userMessages() }),
    );
    expect(textOf(items)).toBe('Hel');
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toContain('ended before');
  });

  it('fails a stream that stalls after text with APITimeoutError', async () => {
    server.enqueue(CHAT_PATH, sse([textChunk('Hi')], { ending: 'stall' }));
    const llm = makeLLM({ timeoutMs: 400 });
    const { items, error } = await withTimeout(
      drain(llm.chat({ messages: userMessages() })),
      5_000,
      'stalled stream',
    );
    expect(textOf(items)).toBe('Hi');
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(1);
  });

  it('times out a server that never sends the response headers', async () => {
    server.enqueue(CHAT_PATH, { steps: [{ kind: 'stall' }] });
    const llm = makeLLM({ timeoutMs: 400, retry: { maxRetries: 0 } });
    const { items, error } = await withTimeout(
      drain(llm.chat({ messages: userMessages() })),
      3_000,
      'silent server',
    );
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as APITimeoutError).retryable).toBe(true);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });

  it('reports a refused connection as a retryable connection error', async () => {
    const port = server.port;
    await server.close();
    const llm = new LLM({ apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1`, retry: { maxRetries: 0 } });
    const { error } = await drain(llm.chat({ messages: userMessages() }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).retryable).toBe(true);
    server = await startFakeOpenAIServer();
  });

  it('retries a request that stalls before the first token', async () => {
    server.enqueue(CHAT_PATH, sse([], { ending: 'stall' }), sse(textAnswer(['fresh'])));
    const { items, error } = await drain(makeLLM({ timeoutMs: 400 }).chat({ messages: userMessages() }));
    expect(error).toBeUndefined();
    expect(textOf(items)).toBe('fresh');
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(2);
  });

  it('does not count a slow consumer as a stalled server', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['a', 'b', 'c'])));
    const parts: LLMStreamPart[] = [];
    for await (const part of makeLLM({ timeoutMs: 300 }).chat({ messages: userMessages() })) {
      parts.push(part);
      await new Promise((resolve) => setTimeout(resolve, 350));
    }
    expect(textOf(parts)).toBe('abc');
  });

  it('turns a malformed frame into a clear non-retryable error', async () => {
    server.enqueue(CHAT_PATH, sse([textChunk('A'), '{"choices": [ nope'], { ending: 'stall' }));
    const { items, error } = await withTimeout(
      drain(makeLLM({ timeoutMs: 5_000 }).chat({ messages: userMessages() })),
      4_000,
      'malformed stream',
    );
    expect(textOf(items)).toBe('A');
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/malformed stream frame/);
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(1);
  });

  it('turns a frame of the wrong shape into a clear error', async () => {
    server.enqueue(CHAT_PATH, sse([{ choices: [{ index: 0, delta: { tool_calls: [null] } }] }]));
    const { error } = await drain(makeLLM().chat({ messages: userMessages() }));
    expect(error).toBeInstanceOf(APIError);
    expect((error as Error).message).toMatch(/unexpected stream frame/);
  });
});

describe('LLM (Chat Completions) cancellation', () => {
  it('ends quietly on abort mid-stream and closes the HTTP connection at once', async () => {
    server.enqueue(CHAT_PATH, sse([textChunk('first')], { ending: 'stall' }));
    const controller = new AbortController();
    const metrics: LLMMetrics[] = [];
    const llm = makeLLM({ timeoutMs: 10_000, onMetrics: (m) => metrics.push(m) });
    const parts: LLMStreamPart[] = [];
    const run = (async () => {
      for await (const part of llm.chat({ messages: userMessages(), signal: controller.signal })) {
        parts.push(part);
        if (part.type === 'text_delta') controller.abort();
      }
    })();
    await withTimeout(run, 2_000, 'aborted stream');
    expect(parts).toEqual([{ type: 'text_delta', text: 'first' }]);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
    expect(metrics[0]).toMatchObject({ cancelled: true, error: undefined });
  });

  it('ends quietly when aborted while waiting for the response to start', async () => {
    server.enqueue(CHAT_PATH, sse([], { ending: 'stall' }));
    const controller = new AbortController();
    const llm = makeLLM({ timeoutMs: 10_000 });
    // Abort once the server holds the request, not after a fixed time: on a loaded machine the request
    // may not have left yet after 50 ms, and the test would then check the no-request path instead.
    void (async () => {
      while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
    })();
    const { items, error } = await withTimeout(
      drain(llm.chat({ messages: userMessages(), signal: controller.signal })),
      2_000,
      'aborted request',
    );
    expect(items).toEqual([]);
    expect(error).toBeUndefined();
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });

  it('makes no request when the signal is already aborted', async () => {
    const { items, error } = await drain(
      makeLLM().chat({ messages: userMessages(), signal: AbortSignal.abort() }),
    );
    expect(items).toEqual([]);
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(0);
  });

  it('closes the connection when the consumer stops iterating', async () => {
    server.enqueue(CHAT_PATH, sse([textChunk('one'), textChunk('two')], { ending: 'stall' }));
    for await (const part of makeLLM({ timeoutMs: 10_000 }).chat({ messages: userMessages() })) {
      expect(part).toEqual({ type: 'text_delta', text: 'one' });
      break;
    }
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });
});
