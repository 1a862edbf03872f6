import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatContext, ChatMessage } from '../../llm/chat-context.js';
import { messageText } from '../../llm/chat-context.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { FakeLLM } from '../../test-support/session-harness.js';
import { Agent, StopResponse } from '../agent/agent.js';
import { AgentTask } from '../agent/agent-task.js';
import { AgentSession } from '../session/agent-session.js';
import { tool } from '../tools/tool.js';
import { ExpectationError } from './run-result.js';

/** Asks for an email, takes the user's next turn as the answer. */
class EmailTask extends AgentTask<string> {
  constructor() {
    super({ id: 'email_task', instructions: 'Get the email.' });
  }
  override async onEnter(): Promise<void> {
    this.session.say('What is your email?');
  }
  override async onUserTurnCompleted(_ctx: ChatContext, message: ChatMessage): Promise<void> {
    this.complete(messageText(message));
    throw new StopResponse();
  }
}

function lastUser(messages: readonly { role: string; content?: unknown }[]): string {
  const user = [...messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

async function textSession(agent: Agent, clock: VirtualClock, llm: FakeLLM): Promise<AgentSession> {
  const session = new AgentSession({ clock, llm });
  await session.start({ agent });
  return session;
}

describe('session.run()', () => {
  it('runs a text turn through the session and records the reply, calls and outputs in order', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM(clock, [
      { text: 'Checking.', toolCalls: [{ name: 'lookup', args: { id: '7' } }] },
      { text: 'It ships today.' },
    ]);
    const lookup = tool({
      name: 'lookup',
      description: 'Looks an order up.',
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }) => `order ${id} ships today`,
    });
    const session = await textSession(new Agent({ instructions: 'Shop.', tools: [lookup] }), clock, llm);
    const result = await session.run({ userInput: 'where is order 7?' });
    result.expect.nextEvent().isMessage({ role: 'assistant', content: 'Checking.' });
    result.expect.nextEvent().isFunctionCall({ name: 'lookup', args: { id: '7' } });
    result.expect.nextEvent().isFunctionCallOutput({ output: 'order 7 ships today', isError: false });
    result.expect.nextEvent().isMessage({ role: 'assistant', content: 'It ships today.' });
    result.expect.noMoreEvents();
    expect(result.expect.at(-1).event.type).toBe('message');
    expect(result.speeches).toHaveLength(1);
    expect(() => result.expect.containsAgentHandoff()).toThrow(ExpectationError);
    expect(session.history.items.map((i) => i.type)).toEqual([
      'message',
      'message',
      'function_call',
      'function_call_output',
      'message',
    ]);
    await session.close();
  });

  it('a run while an AgentTask waits for the user is answered by the task, then by its parent', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM(clock, [], (messages) =>
      messages.at(-1)?.role === 'user' && lastUser(messages).includes('book')
        ? { toolCalls: [{ name: 'book', args: {} }] }
        : { text: 'Booked, a confirmation goes to you.' },
    );
    const book = tool({
      name: 'book',
      description: 'Books a table.',
      execute: async () => `booked for ${await new EmailTask()}`,
    });
    const session = await textSession(
      new Agent({ id: 'host', instructions: 'Host.', tools: [book] }),
      clock,
      llm,
    );
    const first = await session.run({ userInput: 'book a table' });
    first.expect.nextEvent().isAgentHandoff({ newAgentId: 'email_task', via: 'task' });
    first.expect.nextEvent().isMessage({ role: 'assistant', content: 'What is your email?' });
    first.expect.noMoreEvents();
    expect(session.currentAgent?.id).toBe('email_task');

    const second = await session.run({ userInput: 'me@example.com' });
    second.expect.nextEvent().isAgentHandoff({ newAgentId: 'host', via: 'task' });
    second.expect.nextEvent().isFunctionCall({ name: 'book' });
    second.expect.nextEvent().isFunctionCallOutput({ output: 'booked for me@example.com' });
    second.expect.nextEvent().isMessage({ role: 'assistant', content: /^Booked/ });
    second.expect.noMoreEvents();
    await session.close();
  });

  it('a run that starts while a handoff is under way is answered by the incoming agent', async () => {
    const clock = new VirtualClock();
    class SlowExit extends Agent {
      override async onExit(): Promise<void> {
        await clock.sleep(500);
      }
    }
    const old = new SlowExit({
      id: 'old',
      instructions: 'Old.',
      llm: new FakeLLM(clock, [{ text: 'Old agent here.' }]),
    });
    const next = new Agent({
      id: 'next',
      instructions: 'Next.',
      llm: new FakeLLM(clock, [{ text: 'New agent here.' }]),
    });
    const session = await textSession(old, clock, new FakeLLM(clock));
    const handoff = session.updateAgent(next);
    const result = await session.run({ userInput: 'hello?' });
    await handoff;
    result.expect.nextEvent().isAgentHandoff({ newAgentId: 'next', via: 'handoff' });
    result.expect.nextEvent().isMessage({ role: 'assistant', content: 'New agent here.' });
    result.expect.noMoreEvents();
    await session.close();
  });

  it('an empty input is skipped visibly, and a run gives up at its timeout', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM(clock, [{ ttftMs: 100_000, text: 'Too late.' }]);
    const session = await textSession(new Agent({ instructions: '' }), clock, llm);
    const empty = await session.run({ userInput: '  ' });
    empty.expect.noMoreEvents();
    await expect(session.run({ userInput: 'hi', timeoutMs: 2000 })).rejects.toThrow(
      /did not finish within 2000 ms/,
    );
    await session.close();
    await expect(session.run({ userInput: 'hi' })).rejects.toThrow(/closed session/);
  });
});
