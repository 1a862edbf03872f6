/**
 * How to unit-test an agent: start a session with no audio, send the user's turns as text with
 * `session.run({ userInput })`, and assert what each turn set off with `result.expect`. The LLM here is
 * the offline scripted one, so the test is deterministic; pass a real LLM to test your prompt.
 */
import { AgentSession, VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { ScriptedOrderLLM } from './offline/scripted-order-llm.js';
import { OrderDesk } from './order-desk.js';

describe('the order desk, turn by turn', () => {
  it('places an order, collects the email in an AgentTask, and confirms', async () => {
    // A VirtualClock makes the run instant; with a real LLM, leave it out.
    const session = new AgentSession({ llm: new ScriptedOrderLLM(), clock: new VirtualClock() });
    await session.start({ agent: new OrderDesk() });

    // A run records everything until the conversation rests: the greeting still under way comes first.
    const order = await session.run({ userInput: 'a margherita please' });
    order.expect.nextEvent().isMessage({ role: 'assistant', content: /What would you like to order/ });
    // place_order awaits the CollectEmail task, which takes over and asks; the call is recorded when
    // it returns, in the next turn.
    order.expect.nextEvent().isAgentHandoff({ via: 'task' });
    order.expect.nextEvent().isMessage({ role: 'assistant', content: /email address/ });
    order.expect.noMoreEvents();

    // The task answers this turn, completes, and hands the conversation back to the desk. (`contains*`
    // finds an event anywhere in the turn: the order of the two tools' records is not the point here.)
    const email = await session.run({ userInput: 'ada@example.com' });
    email.expect.containsFunctionCall({ name: 'confirm_email', args: { email: 'ada@example.com' } });
    email.expect.containsFunctionCallOutput({ name: 'confirm_email', output: 'Confirmed ada@example.com.' });
    email.expect.containsAgentHandoff({ via: 'task' });
    email.expect.containsFunctionCall({ name: 'place_order', args: { items: ['a margherita please'] } });
    email.expect.containsFunctionCallOutput({
      name: 'place_order',
      output: /receipt goes to ada@example.com/,
    });
    email.expect.at(-1).isMessage({ role: 'assistant', content: /Order #\d+ placed/ });
    expect(session.currentAgent).toBeInstanceOf(OrderDesk);
    await session.close();
  });
});
