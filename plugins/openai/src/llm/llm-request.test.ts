import { ChatContext, tool } from '@voxwire/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHAT_PATH,
  type FakeOpenAIServer,
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

/** A conversation with every kind of item, in the order the session records them. */
function conversation(): ChatContext {
  const ctx = new ChatContext();
  ctx.setInstructions('You are terse.');
  ctx.addMessage({
    role: 'user',
    content: [
      'What is this and the weather in Paris and Rome?',
      { type: 'image', image: 'https://x/cat.png', detail: 'low' },
    ],
  });
  ctx.addMessage({ role: 'assistant', content: 'Checking.' });
  ctx.addFunctionCall({ callId: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","unit":null}' });
  ctx.addFunctionCall({ callId: 'call_2', name: 'get_weather', arguments: '{"city":"Rome","unit":null}' });
  ctx.addFunctionCallOutput({ callId: 'call_1', name: 'get_weather', output: 'sunny', isError: false });
  ctx.addFunctionCallOutput({ callId: 'call_2', name: 'get_weather', output: 'Invalid city', isError: true });
  ctx.addHandoff({ oldAgentId: 'a', newAgentId: 'b' });
  ctx.addMessage({ role: 'assistant', content: 'Paris is sunny.' });
  ctx.addFunctionCall({ callId: 'call_3', name: 'hang_up', arguments: '' });
  ctx.addFunctionCallOutput({ callId: 'call_3', name: 'hang_up', output: 'bye', isError: false });
  ctx.addMessage({ role: 'user', content: 'thanks' });
  return ctx;
}

describe('ChatContext conversion', () => {
  it('groups one turn of calls into one assistant message, each followed by its outputs', () => {
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
      { role: 'tool', tool_call_id: 'call_2', content: 'Invalid city' },
      {
        role: 'assistant',
        content: 'Paris is sunny.',
        tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'hang_up', arguments: '' } }],
      },
      { role: 'tool', tool_call_id: 'call_3', content: 'bye' },
      { role: 'user', content: 'thanks' },
    ]);
  });

  it('keeps outputs right after their calls and drops calls or outputs without a partner', () => {
    const ctx = new ChatContext();
    ctx.addFunctionCallOutput({ callId: 'orphan', name: 'x', output: 'lost', isError: false });
    ctx.addFunctionCall({ callId: 'a', name: 'x', arguments: '{}' });
    ctx.addMessage({ role: 'user', content: 'interjection' });
    ctx.addFunctionCallOutput({ callId: 'a', name: 'x', output: 'late', isError: false });
    ctx.addFunctionCall({ callId: 'pending', name: 'x', arguments: '{}' });
    ctx.addMessage({ role: 'assistant', content: '' });
    ctx.addMessage({ role: 'developer', content: 'be nice' });
    expect(toChatMessages(ctx)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'a', content: 'late' },
      { role: 'user', content: 'interjection' },
      { role: 'developer', content: 'be nice' },
    ]);
  });

  it('wraps bare base64 images with their mime type', () => {
    const ctx = new ChatContext();
    ctx.addMessage({ role: 'user', content: [{ type: 'image', image: 'AAAA', mimeType: 'image/png' }] });
    expect(toChatMessages(ctx)).toEqual([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ]);
  });

  it('converts to Responses API input items', () => {
    const input = toResponsesInput(conversation());
    expect(input).toEqual([
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
      { type: 'function_call_output', call_id: 'call_2', output: 'Invalid city' },
      { type: 'message', role: 'assistant', content: 'Paris is sunny.' },
      { type: 'function_call', call_id: 'call_3', name: 'hang_up', arguments: '' },
      { type: 'function_call_output', call_id: 'call_3', output: 'bye' },
      { type: 'message', role: 'user', content: 'thanks' },
    ]);
  });
});

describe('Chat Completions request body', () => {
  it('sends messages, tools as JSON schema, tool_choice and the sampling options', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      model: 'gpt-test',
      temperature: 0.2,
      maxCompletionTokens: 256,
      parallelToolCalls: true,
      extraBody: { seed: 7, user: 'constructor' },
    });
    const { error } = await drain(
      llm.chat({
        chatCtx: conversation(),
        tools: [weather, hangUp],
        toolChoice: { type: 'function', name: 'get_weather' },
        parallelToolCalls: false,
        temperature: 0.5,
        extra: { user: 'call' },
      }),
    );
    expect(error).toBeUndefined();
    const body = server.requestsTo(CHAT_PATH)[0]!.json as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'gpt-test',
      temperature: 0.5,
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
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string', description: 'City name' },
              unit: { anyOf: [{ type: 'string', enum: ['c', 'f'] }, { type: 'null' }] },
            },
            required: ['city', 'unit'],
          },
        },
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

  it('sends strict tools, max_tokens and string tool choices when asked', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      strictTools: true,
      maxTokens: 99,
      toolChoice: 'required',
    });
    await drain(llm.chat({ chatCtx: conversation(), tools: [hangUp] }));
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
    const nested = tool({
      name: 'book',
      description: 'Book',
      parameters: z.object({ who: z.object({ name: z.string() }), when: z.string() }),
      execute: () => 'ok',
    });
    const optional = tool({
      name: 'maybe',
      description: 'Maybe',
      parameters: z.object({ note: z.string().optional() }),
      execute: () => 'ok',
    });
    expect(toStrictSchema(nested.jsonSchema)).toEqual({
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
    expect(toStrictSchema(optional.jsonSchema)).toBeUndefined();
    const [chatTool] = toChatTools([optional], true);
    expect(chatTool!.function).not.toHaveProperty('strict');
    const [responsesTool] = toResponsesTools([optional], true);
    expect(responsesTool).toMatchObject({ strict: false, parameters: optional.jsonSchema });
  });

  it('leaves tool options out when there are no tools', async () => {
    server.enqueue(CHAT_PATH, sse(textAnswer(['ok'])));
    const llm = new LLM({
      apiKey: 'k',
      baseURL: server.baseURL,
      toolChoice: 'auto',
      parallelToolCalls: true,
    });
    await drain(llm.chat({ chatCtx: conversation() }));
    const body = server.requestsTo(CHAT_PATH)[0]!.json as Record<string, unknown>;
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
    expect(body).not.toHaveProperty('temperature');
  });
});
