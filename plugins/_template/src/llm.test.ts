import { APIConnectionError, APIError, APIStatusError, APITimeoutError } from '@voxwire/agents';
import type {
  LLMChatOptions,
  LLMMessage,
  LLMStreamPart,
  ToolDefinition,
} from '@voxwire/agents/provider-utils';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EchoLLM } from './llm.js';
import { type FakeServer, startFakeServer } from './testing/fake-server.js';

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.faults = {};
});

const user = (text: string): LLMMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function collect(options: LLMChatOptions, llm = new EchoLLM({ baseUrl: fake.url })) {
  const parts: LLMStreamPart[] = [];
  try {
    for await (const part of llm.chat(options)) parts.push(part);
  } catch (error) {
    return { parts, error };
  }
  return { parts, error: undefined };
}

describe('EchoLLM', () => {
  it('streams text deltas and a finish; SSE lines and UTF-8 characters split across chunks survive', async () => {
    const llm = new EchoLLM({ baseUrl: fake.url, apiKey: 'key', model: 'echo-2' });
    const messages = [{ role: 'system', content: 'Be brief.' } as const, user('Où est le café 🙂')];
    const { parts, error } = await collect({ messages, extra: { temperature: 0.2 } }, llm);

    expect(error).toBeUndefined();
    expect(parts).toEqual([
      ...['Où ', 'est ', 'le ', 'café ', '🙂 '].map((text) => ({ type: 'text_delta', text })),
      { type: 'finish', reason: 'stop' },
    ]);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ path: '/v1/chat', headers: { authorization: 'Bearer key' } });
    expect(request.body).toEqual({ temperature: 0.2, model: 'echo-2', messages, tools: [] });
    expect(llm.label).toBe('echo-speech/echo-2');
  });

  it('sends tool definitions as they are and yields a whole tool call', async () => {
    const { parts } = await collect({ messages: [user('Weather in Paris?')], tools: [weather] });
    expect(parts).toEqual([
      { type: 'text_delta', text: 'Let me check.' },
      { type: 'tool_call', callId: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    expect(fake.requests.at(-1)!.body).toMatchObject({ tools: [weather] });
  });

  it('sends the assistant tool calls and tool results as they are', async () => {
    const messages: LLMMessage[] = [
      user('Weather in Paris?'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ callId: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      { role: 'tool', callId: 'call_0', toolName: 'get_weather', output: 'sunny', isError: false },
    ];
    const { parts } = await collect({ messages, tools: [weather] });
    expect(parts.at(0)).toEqual({ type: 'text_delta', text: 'It is sunny.' });
    expect(fake.requests.at(-1)!.body).toMatchObject({ messages, tools: [weather] });
  });

  it("toolChoice 'none' sends no tools", async () => {
    const { parts } = await collect({ messages: [user('Hi')], tools: [weather], toolChoice: 'none' });
    expect(parts.map((part) => part.type)).toEqual(['text_delta', 'finish']);
    expect(fake.requests.at(-1)!.body).toMatchObject({ tools: [] });
  });

  it.each([
    [429, true],
    [500, true],
    [400, false],
  ])('HTTP %s is an APIStatusError (retryable %s)', async (status, retryable) => {
    fake.faults = { status };
    const { parts, error } = await collect({ messages: [user('Hi')] });
    expect(parts).toEqual([]);
    expect(error).toBeInstanceOf(APIStatusError);
    expect(error).toMatchObject({ statusCode: status, retryable, body: { retryAfter: '3' } });
  });

  it('a connection dropped mid-stream throws a retryable APIConnectionError after the parts received', async () => {
    fake.faults = { drop: true };
    const { parts, error } = await collect({ messages: [user('one two three')] });
    expect(parts).toEqual([{ type: 'text_delta', text: 'one ' }]);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ retryable: true });
  });

  it('a malformed event is a non-retryable APIError that quotes it', async () => {
    fake.faults = { malformed: true };
    const { parts, error } = await collect({ messages: [user('one two three')] });
    expect(parts).toEqual([{ type: 'text_delta', text: 'one ' }]);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ retryable: false, message: expect.stringContaining('"type":"text"') });
  });

  it('a server too slow to answer is a retryable APITimeoutError', async () => {
    fake.faults = { slowMs: 300 };
    const { error } = await collect(
      { messages: [user('Hi')] },
      new EchoLLM({ baseUrl: fake.url, timeoutMs: 50 }),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toMatchObject({ retryable: true });
  });

  it('abort mid-stream ends iteration quietly and closes the request', async () => {
    fake.faults = { slowMs: 5 };
    const controller = new AbortController();
    const llm = new EchoLLM({ baseUrl: fake.url });
    const parts: LLMStreamPart[] = [];
    for await (const part of llm.chat({ messages: [user('one two three')], signal: controller.signal })) {
      parts.push(part);
      controller.abort();
    }
    expect(parts).toEqual([{ type: 'text_delta', text: 'one ' }]);
    expect(await fake.requests.at(-1)!.outcome).toBe('aborted');
  });
});
