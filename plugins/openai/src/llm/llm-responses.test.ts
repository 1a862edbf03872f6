import { APIConnectionError, APIError, APIStatusError } from '@voxwire/agents';
import type {
  LLMMessage,
  LLMStreamPart,
  ProviderProblem,
  ToolDefinition,
} from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeEvent,
  type FakeOpenAIServer,
  RESPONSES_PATH,
  errorResponse,
  responsesCompleted,
  responsesSSE,
  responsesTextEvents,
  startFakeOpenAIServer,
} from '../testing/fake-openai-server.js';
import { drain, textOf } from '../testing/helpers.js';
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
    apiKey: 'k',
    baseURL: server.baseURL,
    model: 'gpt-test',
    api: 'responses',
    retry: { initialDelayMs: 1, jitter: 0 },
    clientOptions: { logLevel: 'off' },
    ...options,
  });
}

function messages(): LLMMessage[] {
  return [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
  ];
}

const lookup: ToolDefinition = {
  name: 'lookup',
  description: 'Look up',
  parameters: { type: 'object', properties: {} },
};

function functionCallEvents(
  outputIndex: number,
  callId: string,
  name: string,
  pieces: string[],
): FakeEvent[] {
  const itemId = `fc_${outputIndex}`;
  const item = {
    id: itemId,
    type: 'function_call',
    call_id: callId,
    name,
    arguments: '',
    status: 'in_progress',
  };
  return [
    { type: 'response.output_item.added', sequence_number: 1, output_index: outputIndex, item },
    ...pieces.map((delta) => ({
      type: 'response.function_call_arguments.delta',
      sequence_number: 2,
      item_id: itemId,
      output_index: outputIndex,
      delta,
    })),
    {
      type: 'response.function_call_arguments.done',
      sequence_number: 3,
      item_id: itemId,
      output_index: outputIndex,
      name,
      arguments: pieces.join(''),
    },
    {
      type: 'response.output_item.done',
      sequence_number: 4,
      output_index: outputIndex,
      item: { ...item, arguments: pieces.join(''), status: 'completed' },
    },
  ];
}

describe('LLM (Responses API)', () => {
  it('streams text, usage and finish, and sends input items with store off', async () => {
    server.enqueue(RESPONSES_PATH, responsesSSE(responsesTextEvents(['Hel', 'lo'], { input: 9, output: 2 })));
    const { items, error } = await drain(
      makeLLM({ maxTokens: 50 }).chat({ messages: messages(), tools: [lookup], toolChoice: 'auto' }),
    );
    expect(error).toBeUndefined();
    expect(items).toEqual<LLMStreamPart[]>([
      { type: 'text_delta', text: 'Hel' },
      { type: 'text_delta', text: 'lo' },
      {
        type: 'usage',
        usage: { promptTokens: 9, completionTokens: 2, totalTokens: 11, cachedPromptTokens: 0 },
      },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(server.requestsTo(RESPONSES_PATH)[0]!.json).toEqual({
      model: 'gpt-test',
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        { type: 'message', role: 'user', content: 'Hi' },
      ],
      stream: true,
      store: false,
      max_output_tokens: 50,
      tools: [
        {
          type: 'function',
          name: 'lookup',
          description: 'Look up',
          parameters: { type: 'object', properties: {} },
          strict: false,
        },
      ],
      tool_choice: 'auto',
    });
  });

  it('assembles parallel function calls from argument deltas', async () => {
    server.enqueue(
      RESPONSES_PATH,
      responsesSSE([
        {
          type: 'response.created',
          sequence_number: 0,
          response: { id: 'r', status: 'in_progress', output: [] },
        },
        ...functionCallEvents(0, 'call_1', 'lookup', ['{"q":', '"a"}']),
        ...functionCallEvents(1, 'call_2', 'lookup', ['{"q":"b"}']),
        responsesCompleted(5, 7),
      ]),
    );
    const { items, error } = await drain(
      makeLLM().chat({
        messages: messages(),
        tools: [lookup],
        toolChoice: { type: 'function', name: 'lookup' },
      }),
    );
    expect(error).toBeUndefined();
    expect(items.filter((p) => p.type === 'tool_call')).toEqual([
      { type: 'tool_call', callId: 'call_1', name: 'lookup', arguments: '{"q":"a"}' },
      { type: 'tool_call', callId: 'call_2', name: 'lookup', arguments: '{"q":"b"}' },
    ]);
    expect(items.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    expect((server.requests[0]!.json as { tool_choice: unknown }).tool_choice).toEqual({
      type: 'function',
      name: 'lookup',
    });
  });

  it('maps an incomplete response to a length finish', async () => {
    server.enqueue(
      RESPONSES_PATH,
      responsesSSE([
        ...responsesTextEvents(['cut']).slice(0, -1),
        {
          type: 'response.incomplete',
          sequence_number: 9,
          response: {
            id: 'r',
            status: 'incomplete',
            output: [],
            incomplete_details: { reason: 'max_output_tokens' },
          },
        },
      ]),
    );
    const { items } = await drain(makeLLM().chat({ messages: messages() }));
    expect(textOf(items)).toBe('cut');
    expect(items.at(-1)).toEqual({ type: 'finish', reason: 'length' });
  });

  it('surfaces a failed response after text, without retrying', async () => {
    server.enqueue(
      RESPONSES_PATH,
      responsesSSE([
        ...responsesTextEvents(['partial']).slice(0, -1),
        {
          type: 'response.failed',
          sequence_number: 9,
          response: {
            id: 'r',
            status: 'failed',
            output: [],
            error: { code: 'server_error', message: 'boom' },
          },
        },
      ]),
      responsesSSE(responsesTextEvents(['duplicate'])),
    );
    const { items, error } = await drain(makeLLM().chat({ messages: messages() }));
    expect(textOf(items)).toBe('partial');
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('boom');
    expect((error as APIError).retryable).toBe(true);
    expect(server.requestsTo(RESPONSES_PATH)).toHaveLength(1);
  });

  it('retries an error event before any output', async () => {
    server.enqueue(
      RESPONSES_PATH,
      responsesSSE([
        { type: 'error', sequence_number: 0, code: 'server_error', message: 'hiccup', param: null },
      ]),
      responsesSSE(responsesTextEvents(['ok'])),
    );
    const problems: ProviderProblem[] = [];
    const { items, error } = await drain(
      makeLLM().chat({ messages: messages(), onProblem: (problem) => problems.push(problem) }),
    );
    expect(error).toBeUndefined();
    expect(textOf(items)).toBe('ok');
    expect(server.requestsTo(RESPONSES_PATH)).toHaveLength(2);
    expect(problems).toEqual([{ type: 'retrying', attempt: 1, delayMs: 1, error: expect.any(APIError) }]);
    expect((problems[0] as { error: Error }).error.message).toContain('hiccup');
  });

  it('maps HTTP errors and truncated streams to typed errors', async () => {
    server.enqueue(RESPONSES_PATH, errorResponse(401, 'bad key'));
    const unauthorized = await drain(makeLLM().chat({ messages: messages() }));
    expect(unauthorized.error).toBeInstanceOf(APIStatusError);
    expect((unauthorized.error as APIStatusError).retryable).toBe(false);

    server.enqueue(RESPONSES_PATH, responsesSSE(responsesTextEvents(['half']).slice(0, -1)));
    const truncated = await drain(makeLLM({ retry: { maxRetries: 0 } }).chat({ messages: messages() }));
    expect(textOf(truncated.items)).toBe('half');
    expect(truncated.error).toBeInstanceOf(APIConnectionError);
  });
});
