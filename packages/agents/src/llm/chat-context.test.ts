import { describe, expect, it } from 'vitest';
import { type ChatItem, ChatContext, type ChatMessage, messageText } from './chat-context.js';

function ids(ctx: ChatContext): string[] {
  return ctx.items.map((item) => item.id);
}

/** instructions, user, assistant call A+B (parallel), outputs A+B, assistant reply, handoff, user. */
function conversation(): ChatContext {
  const ctx = new ChatContext();
  ctx.setInstructions('You are helpful.');
  ctx.addMessage({ id: 'u1', role: 'user', content: 'weather and time?', createdAtMs: 100 });
  ctx.addFunctionCall({ id: 'callA', callId: 'A', name: 'weather', arguments: '{}', createdAtMs: 200 });
  ctx.addFunctionCall({ id: 'callB', callId: 'B', name: 'clock', arguments: '{}', createdAtMs: 200 });
  ctx.addFunctionCallOutput({
    id: 'outA',
    callId: 'A',
    name: 'weather',
    output: 'sunny',
    isError: false,
    createdAtMs: 300,
  });
  ctx.addFunctionCallOutput({
    id: 'outB',
    callId: 'B',
    name: 'clock',
    output: '12:00',
    isError: false,
    createdAtMs: 300,
  });
  ctx.addMessage({ id: 'a1', role: 'assistant', content: 'Sunny, noon.', createdAtMs: 400 });
  ctx.addHandoff({ id: 'h1', oldAgentId: undefined, newAgentId: 'billing', createdAtMs: 500 });
  ctx.addMessage({ id: 'u2', role: 'user', content: 'thanks', createdAtMs: 600 });
  return ctx;
}

describe('ChatContext insertion', () => {
  it('keeps time order, equal timestamps in insertion order', () => {
    const ctx = new ChatContext();
    ctx.addMessage({ id: 'b', role: 'user', content: 'b', createdAtMs: 20 });
    ctx.addMessage({ id: 'a', role: 'user', content: 'a', createdAtMs: 10 });
    ctx.addMessage({ id: 'c', role: 'assistant', content: 'c', createdAtMs: 20 });
    ctx.addMessage({ id: 'd', role: 'user', content: 'd', createdAtMs: 30 });
    // A late STT final that belongs before the assistant's reply.
    ctx.addMessage({ id: 'late', role: 'user', content: 'late', createdAtMs: 15 });
    ctx.addMessage({ id: 'e', role: 'user', content: 'e', createdAtMs: 20 });
    expect(ids(ctx)).toEqual(['a', 'late', 'b', 'c', 'e', 'd']);
  });

  it('stamps items without a time with the latest time, so they append', () => {
    const ctx = new ChatContext();
    ctx.addMessage({ id: 'x', role: 'user', content: 'x', createdAtMs: 50 });
    const y = ctx.addMessage({ id: 'y', role: 'assistant', content: 'y' });
    const call = ctx.addFunctionCall({ callId: 'c1', name: 't', arguments: '{}' });
    expect(y.createdAtMs).toBe(50);
    expect(call.createdAtMs).toBe(50);
    expect(ids(ctx)).toEqual(['x', 'y', call.id]);
  });

  it('generates distinct ids and copies content arrays', () => {
    const ctx = new ChatContext();
    const content = ['hello'];
    const a = ctx.addMessage({ role: 'user', content });
    const b = ctx.addMessage({ role: 'user', content: 'again' });
    content.push('mutated');
    expect(a.id).not.toBe(b.id);
    expect(a.content).toEqual(['hello']);
    expect(b.content).toEqual(['again']);
    expect(a.interrupted).toBe(false);
    expect('transcriptConfidence' in a).toBe(false);
  });

  it('finds, replaces and removes by id', () => {
    const ctx = conversation();
    expect(ctx.getById('a1')?.type).toBe('message');
    expect(ctx.indexById('a1')).toBe(6);
    const replaced: ChatMessage = {
      ...(ctx.getById('a1') as ChatMessage),
      content: ['Sun'],
      interrupted: true,
    };
    expect(ctx.replace(replaced)).toBe(true);
    expect(messageText(ctx.getById('a1') as ChatMessage)).toBe('Sun');
    expect(ctx.remove('a1')).toBe(true);
    expect(ctx.remove('a1')).toBe(false);
    expect(ctx.replace({ ...replaced, id: 'nope' })).toBe(false);
    expect(ctx.getById('a1')).toBeUndefined();
  });

  it('sets instructions first, and replaces them in place', () => {
    const ctx = conversation();
    expect(ctx.items[0]).toMatchObject({ id: 'instructions', role: 'system', content: ['You are helpful.'] });
    ctx.setInstructions('Be brief.');
    expect(ctx.items.filter((item) => item.id === 'instructions')).toHaveLength(1);
    expect(ctx.items[0]).toMatchObject({ content: ['Be brief.'] });
  });

  it('reports whether a call has its output', () => {
    const ctx = conversation();
    expect(ctx.hasOutputFor('A')).toBe(true);
    expect(ctx.hasOutputFor('B')).toBe(true);
    ctx.addFunctionCall({ callId: 'C', name: 'weather', arguments: '{}' });
    expect(ctx.hasOutputFor('C')).toBe(false);
    expect(ctx.hasOutputFor('missing')).toBe(false);
  });

  it('joins text content and leaves images out', () => {
    const ctx = new ChatContext();
    const message = ctx.addMessage({
      role: 'user',
      content: ['look ', { type: 'image', image: 'data:image/png;base64,AAAA' }, 'here'],
    });
    expect(messageText(message)).toBe('look here');
  });
});

describe('ChatContext.copy', () => {
  it('copies share frozen items: an item cannot be edited in place, and adding to a copy leaves the original alone', () => {
    const ctx = conversation();
    const copy = ctx.copy();
    expect(copy.items).toEqual(ctx.items);
    expect(() => (copy.items[1] as ChatMessage).content.push('changed')).toThrow(TypeError);
    copy.addMessage({ role: 'user', content: 'more' });
    expect((ctx.items[1] as ChatMessage).content).toEqual(['weather and time?']);
    expect(ctx.items).toHaveLength(9);
  });

  it('filters function calls, instructions and handoffs', () => {
    const ctx = conversation();
    expect(ids(ctx.copy({ excludeFunctionCalls: true }))).toEqual(['instructions', 'u1', 'a1', 'h1', 'u2']);
    expect(ids(ctx.copy({ excludeInstructions: true }))).toEqual([
      'u1',
      'callA',
      'callB',
      'outA',
      'outB',
      'a1',
      'h1',
      'u2',
    ]);
    expect(ids(ctx.copy({ excludeHandoffs: true }))).not.toContain('h1');
    expect(ids(ctx.copy({ toolNames: ['clock'] }))).toEqual([
      'instructions',
      'u1',
      'callB',
      'outB',
      'a1',
      'h1',
      'u2',
    ]);
    expect(ids(ctx.copy({ toolNames: [] }))).toEqual(['instructions', 'u1', 'a1', 'h1', 'u2']);
  });

  it('treats developer messages as instructions too', () => {
    const ctx = new ChatContext();
    ctx.addMessage({ id: 'dev', role: 'developer', content: 'rules' });
    ctx.addMessage({ id: 'u', role: 'user', content: 'hi' });
    expect(ids(ctx.copy({ excludeInstructions: true }))).toEqual(['u']);
  });
});

describe('ChatContext.truncate', () => {
  it('leaves a short context untouched and returns itself', () => {
    const ctx = conversation();
    expect(ctx.truncate(100)).toBe(ctx);
    expect(ctx.items).toHaveLength(9);
  });

  it('keeps the last items plus the instructions', () => {
    const ctx = conversation().truncate(3);
    expect(ids(ctx)).toEqual(['instructions', 'a1', 'h1', 'u2']);
  });

  it('does not duplicate instructions that are already in the tail', () => {
    const ctx = new ChatContext();
    ctx.addMessage({ id: 'u0', role: 'user', content: 'old', createdAtMs: 0 });
    ctx.addMessage({ id: 'sys', role: 'system', content: 'rules', createdAtMs: 1 });
    ctx.addMessage({ id: 'u1', role: 'user', content: 'new', createdAtMs: 2 });
    expect(ids(ctx.truncate(2))).toEqual(['sys', 'u1']);
  });

  it('never starts with a function output whose call was cut off', () => {
    const ctx = conversation().truncate(5);
    // The tail would start at outA and outB; both calls are gone.
    expect(ids(ctx)).toEqual(['instructions', 'a1', 'h1', 'u2']);
    expect(ctx.items.find((item) => item.type !== 'message' || item.role !== 'system')?.type).not.toBe(
      'function_call_output',
    );
  });

  it('drops every output whose call was cut off, not only leading ones (parallel calls)', () => {
    const ctx = conversation().truncate(6);
    // The tail [callB, outA, outB, a1, h1, u2] holds outA without callA.
    expect(ids(ctx)).toEqual(['instructions', 'callB', 'outB', 'a1', 'h1', 'u2']);
    for (const item of ctx.items) {
      if (item.type !== 'function_call_output') continue;
      expect(ctx.items.some((other) => other.type === 'function_call' && other.callId === item.callId)).toBe(
        true,
      );
    }
  });

  it('keeps only the instructions for a limit of 0', () => {
    expect(ids(conversation().truncate(0))).toEqual(['instructions']);
    const bare = new ChatContext();
    bare.addMessage({ role: 'user', content: 'hi' });
    expect(bare.truncate(0).items).toEqual([]);
  });

  it('rejects a negative or fractional limit', () => {
    expect(() => conversation().truncate(-1)).toThrow(RangeError);
    expect(() => conversation().truncate(1.5)).toThrow(RangeError);
  });
});

describe('ChatContext JSON', () => {
  it('round-trips through JSON text', () => {
    const ctx = conversation();
    ctx.addMessage({
      id: 'img',
      role: 'user',
      content: [{ type: 'image', image: 'https://x/y.png', detail: 'low' }, 'caption'],
      transcriptConfidence: 0.9,
      interrupted: true,
    });
    const restored = ChatContext.fromJSON(JSON.parse(JSON.stringify(ctx)));
    expect(restored.items).toStrictEqual(ctx.items);
    expect(restored.toJSON()).toStrictEqual(ctx.toJSON());
  });

  it('gives independent copies both ways', () => {
    const ctx = conversation();
    const json = ctx.toJSON();
    (json.items[1] as ChatMessage).content[0] = 'changed';
    expect(messageText(ctx.items[1] as ChatMessage)).toBe('weather and time?');
    const restored = ChatContext.fromJSON(json);
    (json.items[1] as ChatMessage).content[0] = 'again';
    expect(messageText(restored.items[1] as ChatMessage)).toBe('changed');
  });

  it('rejects items that are not chat items, naming the bad one', () => {
    const bad = {
      items: [{ type: 'message', id: 'm', role: 'robot', content: [], interrupted: false, createdAtMs: 0 }],
    };
    expect(() => ChatContext.fromJSON(bad as unknown as { items: ChatItem[] })).toThrow(/items\.0\.role/);
    expect(() =>
      ChatContext.fromJSON({ items: [{ type: 'nope' }] } as unknown as { items: ChatItem[] }),
    ).toThrow(TypeError);
    expect(() => ChatContext.fromJSON(null as unknown as { items: ChatItem[] })).toThrow(TypeError);
  });
});
