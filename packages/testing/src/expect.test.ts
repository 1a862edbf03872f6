import { Agent, type RunContext, tool, VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTextSession, ExpectationError, runTurn } from './expect.js';
import { FakeLLM } from './fakes/llm.js';

function shop(clock: VirtualClock) {
  const llm = new FakeLLM({
    clock,
    replies: [
      {
        match: { user: 'order' },
        text: 'Let me check.',
        toolCalls: [{ name: 'lookup_order', args: { orderId: '42' } }],
      },
      { match: { afterTool: 'lookup_order' }, text: 'Your order ships tomorrow.' },
      { match: { user: 'human' }, toolCalls: [{ name: 'transfer' }] },
    ],
    fallback: { text: 'Sorry?' },
  });
  const support = new Agent({ id: 'support', instructions: 'You are support.' });
  const lookupOrder = tool({
    name: 'lookup_order',
    description: 'Finds an order.',
    parameters: z.object({ orderId: z.string() }),
    execute: async ({ orderId }, ctx: RunContext) => {
      ctx.session.say('One moment.');
      await clock.sleep(500);
      return `order ${orderId}: ships tomorrow`;
    },
  });
  const transfer = tool({ name: 'transfer', description: 'Hands over to a human.', execute: () => support });
  const agent = new Agent({ id: 'shop', instructions: 'You sell things.', tools: [lookupOrder, transfer] });
  return { llm, agent };
}

describe('runTurn and expectations', () => {
  it('collects the events of a turn with tools, in order', async () => {
    const clock = new VirtualClock();
    const { llm, agent } = shop(clock);
    const session = await createTextSession(agent, { llm, clock });
    const result = await runTurn(session, 'where is my order?');
    result.expect.nextEvent().isMessage({ role: 'assistant', content: 'Let me check.' });
    result.expect.nextEvent().isMessage({ role: 'assistant', content: 'One moment.' });
    result.expect.nextEvent().isFunctionCall({ name: 'lookup_order', args: { orderId: '42' } });
    result.expect.nextEvent().isFunctionCallOutput({ output: /ships tomorrow/, isError: false });
    result.expect.nextEvent().isMessage({ role: 'assistant', content: /ships tomorrow/ });
    result.expect.noMoreEvents();
    expect(result.speeches).toHaveLength(2);
    expect(result.speeches.every((s) => s.done())).toBe(true);
    await session.close();
  });

  it('finds events anywhere and follows handoffs', async () => {
    const clock = new VirtualClock();
    const { llm, agent } = shop(clock);
    const session = await createTextSession(agent, { llm, clock });
    const result = await runTurn(session, 'I want a human');
    result.expect.containsFunctionCall({ name: 'transfer' });
    result.expect.nextEvent('agent_handoff').isAgentHandoff({ newAgentId: 'support' });
    expect(session.currentAgent?.id).toBe('support');
    const next = await runTurn(session, 'hello?');
    next.expect.nextEvent().isMessage({ role: 'assistant', content: 'Sorry?' });
    next.expect.noMoreEvents();
    await session.close();
  });

  it('fails with a message that shows the turn', async () => {
    const clock = new VirtualClock();
    const { llm, agent } = shop(clock);
    const session = await createTextSession(agent, { llm, clock });
    const result = await runTurn(session, 'where is my order?');
    expect(() => result.expect.nextEvent().isFunctionCall({ name: 'lookup_order' })).toThrow(
      ExpectationError,
    );
    expect(() =>
      result.expect.containsFunctionCall({ name: 'lookup_order', args: { orderId: '7' } }),
    ).toThrow(/no event of the turn matches[\s\S]*lookup_order\(\{"orderId":"42"\}\)/);
    expect(() => result.expect.noMoreEvents()).toThrow(/expected no more events/);
    expect(() => result.expect.skipNext(10)).toThrow(ExpectationError);
    await session.close();
  });

  it('gives up on a turn that never ends', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM({ clock, replies: [{ hang: true }] });
    const session = await createTextSession(new Agent({ id: 'a', instructions: 'x' }), { llm, clock });
    await expect(runTurn(session, 'hi', { timeoutMs: 5000 })).rejects.toThrow(
      /did not finish within 5000 ms/,
    );
    expect(clock.now()).toBe(5000);
    await session.close();
  });
});
