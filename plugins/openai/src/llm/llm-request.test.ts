import { tool, toolDefinitions } from '@voxwire/agents';
import {
  type LLMMessage,
  type LLMToolCall,
  SPECIFICATION_VERSION,
  type ToolDefinition,
} from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHAT_PATH,
  type FakeOpenAIServer,
  RESPONSES_PATH,
  responsesSSE,
  responsesTextEvents,
  sse,
  startFakeOpenAIServer,
  textAnswer,
} from '../testing/fake-openai-server.js';
import { drain } from '../testing/helpers.js';
import {
  toChatMessages,
  toChatTools,
  toResponsesInput,
  toResponsesTools,
  toStrictSchema,
} from './convert.js';
import { LLM } from './llm.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const weather = tool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string().describe('City name'), unit: z.enum(['c', 'f']).nullable() }),
  execute: () => 'sunny',
});
const hangUp = tool({ name: 'hang_up', description: 'End the call', execute: () => 'bye' });
/** What the session sends for the two tools above. */
const tools = toolDefinitions([weather, hangUp]);

const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] },
  },
  required: ['city', 'unit'],
};

const paris: LLMToolCall = {
  callId: 'call_1',
  name: 'get_weather',
  arguments: '{"city":"Paris","unit":null}',
};
const rome: LLMToolCall = { callId: 'call_2', name: 'get_weather', arguments: '{"city":"Rome","unit":null}' };

/** A conversation with every kind of message, as the core sends it. */
function conversation(): LLMMessage[] {
  return [
    { role: 'system', content: 'You are terse.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this and the weather in Paris and Rome?' },
        { type: 'image', image: 'https://x/cat.png', detail: 'low' },
      ],
    },
    // Text and calls of one turn, in one message.
    { role: 'assistant', content: 'Checking.', toolCalls: [paris, rome] },
    { role: 'tool', callId: 'call_1', toolName: 'get_weather', output: 'sunny', isError: false },
    { role: 'tool', callId: 'call_2', toolName: 'get_weather', output: 'Invalid city', isError: true },
    { role: 'assistant', content: 'Paris is sunny.', toolCalls: [] },
    { role: 'developer', content: 'Say goodbye before hanging up.' },
    // A turn that only called a tool.
    { role: 'assistant', content: '', toolCalls: [{ callId: 'call_3', name: 'hang_up', arguments: '' }] },
    { role: 'tool', callId: 'call_3', toolName: 'hang_up', output: 'bye', isError: false },
    { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
  ];
}

describe('LLMMessage conversion to Chat Completions', () => {
  it('maps every kind of message, in order', () => {
    expect(toChatMessages(conversation())).toEqual([
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this and the weather in Paris and Rome?' },
          { type: 'image_url', image_url: { url: 'https://x/cat.png', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":null}' },
          },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome","unit":null}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: Invalid city' },
      { role: 'assistant', content: 'Paris is sunny.' },
      { role: 'developer', content: 'Say goodbye before hanging up.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'hang_up', arguments: '' } }],
      },
      { role: 'tool', tool_call_id: 'call_3', content: 'bye' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('marks a tool error output, and passes a successful one verbatim', () => {
    const outputs: LLMMessage[] = [
      { role: 'tool', callId: 'a', toolName: 'x', output: 'Unknown tool "x".', isError: true },
      { role: 'tool', callId: 'b', toolName: 'x', output: '{"ok":true}', isError: false },
      { role: 'tool', callId: 'c', toolName: 'x', output: '', isError: false },
    ];
    expect(toChatMessages(outputs)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'Error: Unknown tool "x".' },
      { role: 'tool', tool_call_id: 'b', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'c', content: '' },
    ]);
  });

  it('sends text-only user content as one string and mixed content as parts', () => {
    const messages: LLMMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one ' },
          { type: 'text', text: 'two' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'image', image: 'data:image/jpeg;base64,BBBB' },
          { type: 'text', text: 'and this?' },
          { type: 'image', image: 'https://x/dog.png', detail: 'high' },
        ],
      },
    ];
    expect(toChatMessages(messages)).toEqual([
      { role: 'user', content: 'one two' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } },
          { type: 'text', text: 'and this?' },
          { type: 'image_url', image_url: { url: 'https://x/dog.png', detail: 'high' } },
        ],
      },
    ]);
  });

  it('wraps bare base64 images with their mime type', () => {
    const messages: LLMMessage[] = [
      { role: 'user', content: [{ type: 'image', image: 'AAAA', mimeType: 'image/png' }] },
    ];
    expect(toChatMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ]);
  });
});

describe('LLMMessage conversion to Responses API input', () => {
  it('maps every kind of message to input items, in order', () => {
    expect(toResponsesInput(conversation())).toEqual([
      { type: 'message', role: 'system', content: 'You are terse.' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is this and the weather in Paris and Rome?' },
          { type: 'input_image', image_url: 'https://x/cat.png', detail: 'low' },
        ],
      },
      { type: 'message', role: 'assistant', content: 'Checking.' },
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Paris","unit":null}',
      },
      {
        type: 'function_call',
        call_id: 'call_2',
        name: 'get_weather',
        arguments: '{"city":"Rome","unit":null}',
      },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      { type: 'function_call_output', call_id: 'call_2', output: 'Error: Invalid city' },
      { type: 'message', role: 'assistant', content: 'Paris is sunny.' },
      { type: 'message', role: 'developer', content: 'Say goodbye before hanging up.' },
      // No empty assistant message before the calls of a tools-only turn.
      { type: 'function_call', call_id: 'call_3', name: 'hang_up', arguments: '' },
      { type: 'function_call_output', call_id: 'call_3', output: 'bye' },
      { type: 'message', role: 'user', content: 'thanks' },
    ]);
  });

  it('sends images as input_image parts, bare base64 wrapped, detail defaulting to auto', () => {
    const messages: LLMMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'compare' },
          { type: 'image', image: 'AAAA', mimeType: 'image/png' },
          { type: 'image', image: 'https://x/dog.png', detail: 'high' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ];
    expect(toResponsesInput(messages)).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'compare' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
          { type: 'input_image', image_url: 'https://x/dog.png', detail: 'high' },
        ],
      },
      { type: 'message', role: 'user', content: 'ab' },
    ]);
  });

  it('marks a tool error output', () => {
    expect(
      toResponsesInput([
        { role: 'tool', callId: 'a', toolName: 'x', output: 'The tool call was cancelled.', isError: true },
      ]),
    ).toEqual([
      { type: 'function_call_output', call_id: 'a', output: 'Error: The tool call was cancelled.' },
    ]);
  });
});

describe('Chat Completions request body', () => {
  it('declares specification v1 and tool support (configurable)', () => {
    const llm = new LLM({ apiKey: 'k', baseURL: server.baseURL });
    expect(llm.specificationVersion).toBe(SPECIFICATION_VERSION);
    expect(llm.supportsToolCalls).toBe(true);
    expect(
      new LLM({ apiKey: 'k', baseURL: server.baseURL, supportsToolCalls: false }).supportsToolCalls,
    ).toBe(false);
  });

  it('sends messages, tool definitions, tool_choice and the constructor sampling options', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      model: 'gpt-test',
      temperature: 0.2,
      maxCompletionTokens: 256,
      parallelToolCalls: false,
      toolChoice: 'none',
      extraBody: { seed: 7, user: 'constructor' },
    });
    const { error } = await drain(
      llm.chat({
        messages: conversation(),
        tools,
        toolChoice: { type: 'function', name: 'get_weather' },
        extra: { user: 'call' },
      }),
    );
    expect(error).toBeUndefined();
    const body = server.requestsTo(CHAT_PATH)[0]!.json as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'gpt-test',
      temperature: 0.2,
      max_completion_tokens: 256,
      parallel_tool_calls: false,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      seed: 7,
      user: 'call',
    });
    expect(body).not.toHaveProperty('max_tokens');
    expect(body.messages).toEqual(toChatMessages(conversation()));
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA },
      },
      {
        type: 'function',
        function: {
          name: 'hang_up',
          description: 'End the call',
          parameters: { type: 'object', properties: {} },
        },
      },
    ]);
  });

  it('sends a hand-written tool definition as it is', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])));
    const definition: ToolDefinition = {
      name: 'transfer',
      description: 'Transfer the call',
      parameters: {
        type: 'object',
        properties: { department: { type: 'string', enum: ['sales', 'support'] } },
        required: ['department'],
        additionalProperties: false,
      },
    };
    await drain(
      new LLM({ apiKey: 'k', baseURL: server.baseURL }).chat({
        messages: conversation(),
        tools: [definition],
      }),
    );
    const body = server.requestsTo(CHAT_PATH)[0]!.json as Record<string, unknown>;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'transfer',
          description: 'Transfer the call',
          parameters: definition.parameters,
        },
      },
    ]);
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('sends strict tools, max_tokens and string tool choices when asked', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      strictTools: true,
      maxTokens: 99,
      toolChoice: 'required',
    });
    await drain(llm.chat({ messages: conversation(), tools: toolDefinitions([hangUp]) }));
    const body = server.requestsTo(CHAT_PATH)[0]!.json as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'gpt-4.1-mini', max_tokens: 99, tool_choice: 'required' });
    expect(body).not.toHaveProperty('parallel_tool_calls');
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'hang_up',
          description: 'End the call',
          parameters: { type: 'object', properties: {}, additionalProperties: false },
          strict: true,
        },
      },
    ]);
  });

  it('makes strict schemas closed and leaves tools with optional fields non-strict', () => {
    const [nested, optional] = toolDefinitions([
      tool({
        name: 'book',
        description: 'Book',
        parameters: z.object({ who: z.object({ name: z.string() }), when: z.string() }),
        execute: () => 'ok',
      }),
      tool({
        name: 'maybe',
        description: 'Maybe',
        parameters: z.object({ note: z.string().optional() }),
        execute: () => 'ok',
      }),
    ]);
    expect(toStrictSchema(nested!.parameters)).toEqual({
      type: 'object',
      properties: {
        who: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
          additionalProperties: false,
        },
        when: { type: 'string' },
      },
      required: ['who', 'when'],
      additionalProperties: false,
    });
    expect(toStrictSchema(optional!.parameters)).toBeUndefined();
    const [chatTool] = toChatTools([optional!], true);
    expect(chatTool!.function).not.toHaveProperty('strict');
    const [responsesTool] = toResponsesTools([optional!], true);
    expect(responsesTool).toMatchObject({ strict: false, parameters: optional!.parameters });
  });

  it('leaves tool options out when there are no tools', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])), sse(textAnswer(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      toolChoice: 'auto',
      parallelToolCalls: true,
    });
    await drain(llm.chat({ messages: conversation() }));
    await drain(llm.chat({ messages: conversation(), tools: [], toolChoice: 'required' }));
    for (const request of server.requestsTo(CHAT_PATH)) {
      const body = request.json as Record<string, unknown>;
      expect(body).not.toHaveProperty('tools');
      expect(body).not.toHaveProperty('tool_choice');
      expect(body).not.toHaveProperty('parallel_tool_calls');
      expect(body).not.toHaveProperty('temperature');
    }
    expect(server.requestsTo(CHAT_PATH)).toHaveLength(2);
  });
});

describe('Responses request body', () => {
  it('sends input items, tool definitions and the constructor options', async () => {
    server.enqueue(RESPONSES_PATH, responsesSSE(responsesTextEvents(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      model: 'gpt-test',
      api: 'responses',
      temperature: 0.3,
      parallelToolCalls: true,
      maxCompletionTokens: 64,
      extraBody: { store: true, seed: 1 },
    });
    const { error } = await drain(
      llm.chat({ messages: conversation(), tools, toolChoice: 'required', extra: { seed: 2 } }),
    );
    expect(error).toBeUndefined();
    expect(server.requestsTo(RESPONSES_PATH)[0]!.json).toEqual({
      model: 'gpt-test',
      input: toResponsesInput(conversation()),
      stream: true,
      store: true,
      seed: 2,
      temperature: 0.3,
      max_output_tokens: 64,
      parallel_tool_calls: true,
      tool_choice: 'required',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: WEATHER_SCHEMA,
          strict: false,
        },
        {
          type: 'function',
          name: 'hang_up',
          description: 'End the call',
          parameters: { type: 'object', properties: {} },
          strict: false,
        },
      ],
    });
  });
});
