// The two timing races this engine exists to beat, replayed deterministically on virtual time.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LLMMessage } from '../../providers/llm.js';
import { tool } from '../tools/tool.js';
import { Agent } from '../agent/agent.js';
import { AgentTask } from '../agent/agent-task.js';
import {
  dumpTimeline,
  historyText,
  type ScriptedReply,
  startSession,
} from '../../test-support/session-harness.js';

function last(messages: readonly LLMMessage[]): LLMMessage | undefined {
  return messages[messages.length - 1];
}

/** The text of a message; '' for a tool output (or nothing). */
function textOf(message: LLMMessage | undefined): string {
  if (!message || message.role === 'tool') return '';
  if (message.role === 'user') return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  return message.content;
}

function instructionsOf(messages: readonly LLMMessage[]): string {
  const first = messages[0];
  return first?.role === 'system' ? first.content : '';
}

describe('race: user speaks between the tool call and the tool run', () => {
  it('keeps userState live, plays the uninterruptible say once, the tool reply, and answers the next turn', async () => {
    let toolRuns = 0;
    const book = tool({
      name: 'book_table',
      description: 'books a table',
      execute: async (_args, ctx) => {
        toolRuns++;
        ctx.disallowInterruptions();
        await ctx.session.clock.sleep(400);
        await ctx.session.say('One moment while I book it.', { allowInterruptions: false });
        return 'booked for 8pm';
      },
    });
    const respond = (messages: readonly LLMMessage[]): ScriptedReply => {
      const item = last(messages);
      if (item?.role === 'tool') return { text: 'Your table is booked for 8pm.' };
      if (item?.role === 'user' && textOf(item).includes('book')) {
        return { toolCalls: [{ name: 'book_table', args: {}, callId: 'call_book' }], ttftMs: 150 };
      }
      return { text: 'Sure, anything else?' };
    };
    const segments = [
      { startMs: 500, endMs: 1200, transcript: 'book a table' },
      // Starts just before the tool call arrives (commit ~1700 + 150 ms time to first token).
      { startMs: 1760, endMs: 2600, transcript: 'for two people' },
      { startMs: 9000, endMs: 9600, transcript: 'thanks' },
    ];
    const h = await startSession({
      segments: segments,
      replies: [],
      agent: new Agent({ instructions: 'host', tools: [book] }),
      totalMs: 20_000,
      respond: respond,
    });
    await h.run(14_000);

    if (process.env.DUMP) console.log(dumpTimeline(h));
    expect(toolRuns).toBe(1);
    // userState is listening again within the VAD's min silence (300 ms) + one frame after 2600.
    const backToListening = h.events.find(
      (e) =>
        e.name === 'user_state_changed' && e.atMs > 2600 && JSON.parse(e.detail).newState === 'listening',
    );
    expect(backToListening?.atMs).toBeLessThanOrEqual(2600 + 300 + 20);
    const says = h.trace.filter((r) => r.type === 'speech_done').map((r) => r.speechId);
    expect(new Set(says).size).toBe(says.length);
    const history = historyText(h.session);
    expect(history.filter((line) => line === 'assistant: One moment while I book it.')).toHaveLength(1);
    expect(history).toContain('output book_table: booked for 8pm');
    expect(history).toContain('assistant: Your table is booked for 8pm.');
    expect(history.filter((l) => l.startsWith('call book_table'))).toHaveLength(1);
    // The next user turn is answered.
    const thanksAt = history.indexOf('user: thanks');
    expect(thanksAt).toBeGreaterThan(0);
    expect(history.slice(thanksAt + 1)).toContain('assistant: Sure, anything else?');
    expect(h.events.filter((e) => e.name === 'error')).toEqual([]);
    await h.session.close();
  });
});

describe('race: tool awaits an AgentTask while its text is paused by the user', () => {
  it('does not cancel the tool, plays the task speech, records the call once, never resumes silently', async () => {
    class EmailTask extends AgentTask<string> {
      constructor() {
        super({
          instructions: 'email task',
          tools: [
            tool({
              name: 'record_email',
              description: 'records the email',
              parameters: z.object({ email: z.string() }),
              execute: ({ email }) => {
                this.complete(email);
                return 'recorded';
              },
            }),
          ],
        });
      }
      override async onEnter(): Promise<void> {
        this.session.generateReply();
      }
    }
    let toolOutcome = 'pending';
    const order = tool({
      name: 'collect_email',
      description: 'asks for the email',
      execute: async () => {
        try {
          const email = await new EmailTask();
          toolOutcome = 'ok';
          return `email is ${email}`;
        } catch (error) {
          toolOutcome = `failed: ${String(error)}`;
          throw error;
        }
      },
    });
    const respond = (messages: readonly LLMMessage[]): ScriptedReply => {
      const item = last(messages);
      const text = textOf(item);
      if (instructionsOf(messages).startsWith('email task')) {
        if (text.includes('alice'))
          return {
            toolCalls: [{ name: 'record_email', args: { email: 'alice@example.com' }, callId: 'call_rec' }],
          };
        if (item?.role === 'tool') return { text: '' };
        return { text: 'What is your email address?' };
      }
      if (item?.role === 'tool') return { text: 'Thanks, I have your email.' };
      if (text.includes('order')) {
        return {
          text: 'Great, I will place the order, but first I need a few details from you.',
          toolCalls: [{ name: 'collect_email', args: {}, callId: 'call_email' }],
          msPerWord: 45,
        };
      }
      return { text: 'Okay.' };
    };
    const segments = [
      { startMs: 500, endMs: 1200, transcript: 'I want to order' },
      // Talks over the text (playing from ~1.85 s) just before the tool call arrives (~2.39 s); the
      // word is recognized (~2.5 s) only once the tool awaits the task and holds interruptions.
      { startMs: 2300, endMs: 2400, transcript: 'uh' },
      { startMs: 9600, endMs: 10_600, transcript: 'alice at example dot com' },
    ];
    const h = await startSession({
      segments: segments,
      replies: [],
      agent: new Agent({ instructions: 'shop', tools: [order] }),
      totalMs: 20_000,
      respond: respond,
    });
    await h.run(16_000);
    const history = historyText(h.session);

    if (process.env.DUMP) console.log(dumpTimeline(h));
    expect(toolOutcome).toBe('ok');
    expect(h.trace.filter((r) => r.type === 'tool_finished' && r.name === 'collect_email')).toMatchObject([
      { outcome: 'ok' },
    ]);
    expect(history).toContain('assistant: What is your email address?');
    expect(history.filter((l) => l.startsWith('call collect_email'))).toHaveLength(1);
    expect(history.filter((l) => l.startsWith('output collect_email'))).toEqual([
      'output collect_email: email is alice@example.com',
    ]);
    expect(history).toContain('assistant: Thanks, I have your email.');
    const pauses = h.trace.filter((r) => r.type === 'speech_paused');
    expect(pauses.length).toBeGreaterThan(0);
    const resumes = h.trace.filter((r) => r.type === 'speech_resumed');
    expect(resumes.every((r) => r.type === 'speech_resumed' && r.falseInterruption)).toBe(true);
    const falseInterruptions = h.events.filter((e) => e.name === 'agent_false_interruption');
    expect(falseInterruptions).toHaveLength(resumes.length);
    expect(h.events.filter((e) => e.name === 'error')).toEqual([]);
    await h.session.close();
  });
});
