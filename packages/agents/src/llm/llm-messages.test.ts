import { describe, expect, it } from 'vitest';
import type { LLMMessage } from '../providers/llm.js';
import { ChatContext } from './chat-context.js';
import { toConversationTurns, toLLMMessages } from './llm-messages.js';

/** A chat context built in order, one millisecond apart, so items keep the order they are written in. */
function build(write: (ctx: ChatContext, at: () => number) => void): ChatContext {
  const ctx = new ChatContext();
  let now = 0;
  write(ctx, () => ++now);
  return ctx;
}

function call(ctx: ChatContext, at: number, callId: string, name = 'lookup', args = '{}'): void {
  ctx.addFunctionCall({ callId, name, arguments: args, createdAtMs: at });
}

function output(
  ctx: ChatContext,
  at: number,
  callId: string,
  out: string,
  name = 'lookup',
  isError = false,
): void {
  ctx.addFunctionCallOutput({ callId, name, output: out, isError, createdAtMs: at });
}

const user = (text: string): LLMMessage => ({ role: 'user', content: [{ type: 'text', text }] });

describe('toLLMMessages', () => {
  it('converts messages by role, system and developer text as strings, user content as parts', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'system', content: 'Be brief.', createdAtMs: at() });
      c.addMessage({ role: 'developer', content: ['Use ', 'metric units.'], createdAtMs: at() });
      c.addMessage({ role: 'user', content: ['Hi ', 'there'], createdAtMs: at() });
      c.addMessage({ role: 'assistant', content: 'Hello!', createdAtMs: at() });
    });
    expect(toLLMMessages(ctx)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Use metric units.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi ' },
          { type: 'text', text: 'there' },
        ],
      },
      { role: 'assistant', content: 'Hello!', toolCalls: [] },
    ]);
  });

  it('groups consecutive calls into one assistant turn, followed by exactly their outputs', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: 'weather and time?', createdAtMs: at() });
      call(c, at(), 'A', 'weather', '{"city":"Oslo"}');
      call(c, at(), 'B', 'clock');
      output(c, at(), 'B', '12:00', 'clock');
      output(c, at(), 'A', 'sunny', 'weather');
      c.addMessage({ role: 'assistant', content: 'Sunny, noon.', createdAtMs: at() });
    });
    expect(toLLMMessages(ctx)).toEqual([
      user('weather and time?'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { callId: 'A', name: 'weather', arguments: '{"city":"Oslo"}' },
          { callId: 'B', name: 'clock', arguments: '{}' },
        ],
      },
      // In the order of the calls, whatever order the outputs came in.
      { role: 'tool', callId: 'A', toolName: 'weather', output: 'sunny', isError: false },
      { role: 'tool', callId: 'B', toolName: 'clock', output: '12:00', isError: false },
      { role: 'assistant', content: 'Sunny, noon.', toolCalls: [] },
    ]);
  });

  it('keeps calls whose outputs are interleaved in one group, and places each output right after its call', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: 'go', createdAtMs: at() });
      call(c, at(), 'A');
      output(c, at(), 'A', 'one');
      call(c, at(), 'B');
      output(c, at(), 'B', 'two', 'lookup', true);
    });
    expect(toLLMMessages(ctx)).toEqual([
      user('go'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { callId: 'A', name: 'lookup', arguments: '{}' },
          { callId: 'B', name: 'lookup', arguments: '{}' },
        ],
      },
      { role: 'tool', callId: 'A', toolName: 'lookup', output: 'one', isError: false },
      { role: 'tool', callId: 'B', toolName: 'lookup', output: 'two', isError: true },
    ]);
  });

  it('places an output recorded before its call after the call', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: 'go', createdAtMs: at() });
      output(c, at(), 'A', 'early');
      call(c, at(), 'A');
    });
    expect(toLLMMessages(ctx)).toEqual([
      user('go'),
      { role: 'assistant', content: '', toolCalls: [{ callId: 'A', name: 'lookup', arguments: '{}' }] },
      { role: 'tool', callId: 'A', toolName: 'lookup', output: 'early', isError: false },
    ]);
  });

  it('joins a group to the assistant text right before it', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: 'book it', createdAtMs: at() });
      c.addMessage({ role: 'assistant', content: 'Let me check.', createdAtMs: at() });
      call(c, at(), 'A', 'book');
      output(c, at(), 'A', 'booked', 'book');
    });
    expect(toLLMMessages(ctx)).toEqual([
      user('book it'),
      {
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [{ callId: 'A', name: 'book', arguments: '{}' }],
      },
      { role: 'tool', callId: 'A', toolName: 'book', output: 'booked', isError: false },
    ]);
  });

  it('starts a new assistant turn for each step, never joining calls to an earlier turn', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'assistant', content: 'Hello.', createdAtMs: at() });
      c.addMessage({ role: 'user', content: 'look up two things', createdAtMs: at() });
      call(c, at(), 'A');
      output(c, at(), 'A', 'first');
      c.addMessage({ role: 'assistant', content: 'One more.', createdAtMs: at() });
      call(c, at(), 'B');
      output(c, at(), 'B', 'second');
      // A handoff ends a step too: the next calls are a turn of their own.
      c.addHandoff({ oldAgentId: 'a', newAgentId: 'b', createdAtMs: at() });
      call(c, at(), 'C');
      output(c, at(), 'C', 'third');
    });
    expect(toLLMMessages(ctx)).toEqual([
      { role: 'assistant', content: 'Hello.', toolCalls: [] },
      user('look up two things'),
      { role: 'assistant', content: '', toolCalls: [{ callId: 'A', name: 'lookup', arguments: '{}' }] },
      { role: 'tool', callId: 'A', toolName: 'lookup', output: 'first', isError: false },
      {
        role: 'assistant',
        content: 'One more.',
        toolCalls: [{ callId: 'B', name: 'lookup', arguments: '{}' }],
      },
      { role: 'tool', callId: 'B', toolName: 'lookup', output: 'second', isError: false },
      { role: 'assistant', content: '', toolCalls: [{ callId: 'C', name: 'lookup', arguments: '{}' }] },
      { role: 'tool', callId: 'C', toolName: 'lookup', output: 'third', isError: false },
    ]);
  });

  it('drops a call without an output and an output without a call', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: 'go', createdAtMs: at() });
      c.addMessage({ role: 'assistant', content: 'Working.', createdAtMs: at() });
      call(c, at(), 'pending');
      call(c, at(), 'A');
      output(c, at(), 'A', 'done');
      output(c, at(), 'stray', 'from nowhere');
      c.addMessage({ role: 'user', content: 'and?', createdAtMs: at() });
      call(c, at(), 'lonely');
    });
    expect(toLLMMessages(ctx)).toEqual([
      user('go'),
      {
        role: 'assistant',
        content: 'Working.',
        toolCalls: [{ callId: 'A', name: 'lookup', arguments: '{}' }],
      },
      { role: 'tool', callId: 'A', toolName: 'lookup', output: 'done', isError: false },
      user('and?'),
    ]);
  });

  it('keeps an assistant text whose calls were all dropped as a plain reply', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'assistant', content: 'Checking.', createdAtMs: at() });
      call(c, at(), 'never-answered');
    });
    expect(toLLMMessages(ctx)).toEqual([{ role: 'assistant', content: 'Checking.', toolCalls: [] }]);
  });

  it('sends a repeated call, and a repeated output, once', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: 'go', createdAtMs: at() });
      call(c, at(), 'A', 'lookup', '{"n":1}');
      output(c, at(), 'A', 'first answer');
      call(c, at(), 'A', 'lookup', '{"n":2}');
      output(c, at(), 'A', 'second answer');
    });
    expect(toLLMMessages(ctx)).toEqual([
      user('go'),
      { role: 'assistant', content: '', toolCalls: [{ callId: 'A', name: 'lookup', arguments: '{"n":1}' }] },
      { role: 'tool', callId: 'A', toolName: 'lookup', output: 'first answer', isError: false },
    ]);
    // Every tool message answers a call of the assistant message before it, each call exactly once.
    const messages = toLLMMessages(ctx);
    const callIds = messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.callId) : []));
    const answered = messages.flatMap((m) => (m.role === 'tool' ? [m.callId] : []));
    expect(answered).toEqual(callIds);
  });

  it('keeps images of user messages, with their options, among the text', () => {
    const ctx = build((c, at) => {
      c.addMessage({
        role: 'user',
        content: [
          'What is this?',
          { type: 'image', image: 'https://example.com/cat.png' },
          { type: 'image', image: 'data:image/png;base64,AAAA', mimeType: 'image/png', detail: 'low' },
        ],
        createdAtMs: at(),
      });
      // An image alone is a message; an empty text beside it is not a part.
      c.addMessage({
        role: 'user',
        content: ['', { type: 'image', image: 'https://example.com/dog.png' }],
        createdAtMs: at(),
      });
    });
    expect(toLLMMessages(ctx)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', image: 'https://example.com/cat.png' },
          { type: 'image', image: 'data:image/png;base64,AAAA', mimeType: 'image/png', detail: 'low' },
        ],
      },
      { role: 'user', content: [{ type: 'image', image: 'https://example.com/dog.png' }] },
    ]);
  });

  it('drops empty messages of every role, and handoffs', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'system', content: '', createdAtMs: at() });
      c.addMessage({ role: 'developer', content: [], createdAtMs: at() });
      c.addMessage({ role: 'user', content: ['', ''], createdAtMs: at() });
      c.addMessage({ role: 'assistant', content: '', createdAtMs: at() });
      // The text of an assistant message is all it sends: an image alone leaves it empty.
      c.addMessage({
        role: 'assistant',
        content: [{ type: 'image', image: 'https://example.com/x.png' }],
        createdAtMs: at(),
      });
      c.addHandoff({ oldAgentId: undefined, newAgentId: 'front', createdAtMs: at() });
      c.addMessage({ role: 'user', content: 'hello', createdAtMs: at() });
    });
    expect(toLLMMessages(ctx)).toEqual([user('hello')]);
  });

  it('keeps what was heard of an interrupted reply', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'assistant', content: 'Once upon a', interrupted: true, createdAtMs: at() });
    });
    expect(toLLMMessages(ctx)).toEqual([{ role: 'assistant', content: 'Once upon a', toolCalls: [] }]);
  });

  it('gives nothing for an empty context', () => {
    expect(toLLMMessages(new ChatContext())).toEqual([]);
  });
});

describe('toConversationTurns', () => {
  it('keeps the spoken turns of user and assistant, oldest first', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'system', content: 'Be brief.', createdAtMs: at() });
      c.addMessage({ role: 'user', content: ['I would ', 'like a table'], createdAtMs: at() });
      call(c, at(), 'A', 'book');
      output(c, at(), 'A', 'booked', 'book');
      c.addHandoff({ oldAgentId: 'front', newAgentId: 'host', createdAtMs: at() });
      c.addMessage({ role: 'developer', content: 'internal', createdAtMs: at() });
      c.addMessage({ role: 'assistant', content: 'For how many?', createdAtMs: at() });
      c.addMessage({ role: 'user', content: 'two', createdAtMs: at() });
    });
    expect(toConversationTurns(ctx)).toEqual([
      { role: 'user', text: 'I would like a table' },
      { role: 'assistant', text: 'For how many?' },
      { role: 'user', text: 'two' },
    ]);
  });

  it('leaves out turns without words and the images of the others, keeping the text as it is', () => {
    const ctx = build((c, at) => {
      c.addMessage({ role: 'user', content: '   ', createdAtMs: at() });
      c.addMessage({ role: 'assistant', content: '', createdAtMs: at() });
      c.addMessage({
        role: 'user',
        content: [{ type: 'image', image: 'https://example.com/a.png' }],
        createdAtMs: at(),
      });
      c.addMessage({
        role: 'user',
        content: [' look at ', { type: 'image', image: 'https://example.com/b.png' }, 'this '],
        createdAtMs: at(),
      });
      c.addMessage({ role: 'assistant', content: 'Once upon a', interrupted: true, createdAtMs: at() });
    });
    expect(toConversationTurns(ctx)).toEqual([
      { role: 'user', text: ' look at this ' },
      { role: 'assistant', text: 'Once upon a' },
    ]);
  });

  it('gives nothing for an empty context', () => {
    expect(toConversationTurns(new ChatContext())).toEqual([]);
  });
});
