import { describe, expect, it } from 'vitest';
import { ToolTimeoutError } from '../../errors.js';
import { startSession } from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';
import { AgentTask } from '../agent/agent-task.js';
import { AgentSession } from '../session/agent-session.js';
import type { RunContext } from './run-context.js';
import { tool } from './tool.js';

/** A tool that disallows interruptions and never finishes unless its signal aborts. */
function hangingTool(seen: { reason?: unknown }, timeoutMs?: number) {
  return tool({
    name: 'lookup',
    description: '',
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    execute: (_args: unknown, ctx: RunContext) => {
      ctx.disallowInterruptions();
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          seen.reason = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      });
    },
  });
}

async function run(options: { toolTimeoutMs?: number; timeoutMs?: number }) {
  const seen: { reason?: unknown } = {};
  const h = await startSession({
    segments: [{ startMs: 500, endMs: 1000, transcript: 'look it up' }],
    replies: [{ toolCalls: [{ name: 'lookup', args: {} }] }, { text: 'Sorry, that did not work.' }],
    agent: new Agent({ instructions: '', tools: [hangingTool(seen, options.timeoutMs)] }),
    session: options.toolTimeoutMs !== undefined ? { toolTimeoutMs: options.toolTimeoutMs } : {},
    totalMs: 20_000,
  });
  const errors: Array<{ source: string; error: unknown; atMs: number }> = [];
  h.session.on('error', (e) => errors.push(e));
  await h.run(15_000);
  const outputs = h.session.history.items.filter((i) => i.type === 'function_call_output');
  const spoken = h.session.history.items.filter((i) => i.type === 'message' && i.role === 'assistant');
  const state = h.session.agentState;
  await h.session.close();
  return { outputs, errors, spoken, seen, state };
}

describe('tool timeouts', () => {
  it("a hung uninterruptible tool is stopped after its timeoutMs: the model hears a tool error, the app an error event, the tool's signal aborts", async () => {
    const r = await run({ timeoutMs: 3000 });
    expect(r.outputs).toEqual([
      expect.objectContaining({
        name: 'lookup',
        isError: true,
        output: expect.stringContaining('did not finish within 3000 ms'),
      }),
    ]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ source: 'tool' });
    expect(r.errors[0]!.error).toBeInstanceOf(ToolTimeoutError);
    expect(r.errors[0]!.error).toMatchObject({ toolName: 'lookup', timeoutMs: 3000 });
    expect(r.seen.reason).toBe(r.errors[0]!.error);
    expect(r.spoken).toEqual([expect.objectContaining({ content: ['Sorry, that did not work.'] })]);
    expect(r.state).toBe('listening');
  });

  it('the session default applies to tools without their own timeoutMs, and a tool limit wins over it', async () => {
    const byDefault = await run({ toolTimeoutMs: 2000 });
    expect(byDefault.errors.map((e) => (e.error as ToolTimeoutError).timeoutMs)).toEqual([2000]);
    const own = await run({ toolTimeoutMs: 2000, timeoutMs: 4000 });
    expect(own.errors.map((e) => (e.error as ToolTimeoutError).timeoutMs)).toEqual([4000]);
    expect(own.errors[0]!.atMs - byDefault.errors[0]!.atMs).toBe(2000);
  });

  it('without any limit a tool may run as long as it likes (no timeout by default)', async () => {
    const r = await run({});
    expect(r.errors).toEqual([]);
    expect(r.outputs).toEqual([]);
    expect(r.state).toBe('thinking');
  });

  for (const slowExit of [false, true]) {
    it(`a tool that times out while awaiting an AgentTask ends the task: the parent is in charge again and answers${slowExit ? ', even when the task takes a while to exit' : ''}`, async () => {
      class Never extends AgentTask<string> {
        constructor() {
          super({ instructions: 'never done', id: 'never' });
        }
        // A slow exit outlasts the tool's own failure by several steps of the event loop.
        override async onExit(): Promise<void> {
          if (slowExit) for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
        }
      }
      let awaited: unknown;
      const ask = tool({
        name: 'ask',
        description: '',
        timeoutMs: 3000,
        execute: async () => {
          try {
            return await new Never();
          } catch (error) {
            awaited = error;
            throw error;
          }
        },
      });
      const parent = new Agent({ instructions: '', tools: [ask] });
      const h = await startSession({
        segments: [{ startMs: 500, endMs: 1000, transcript: 'ask me' }],
        replies: [{ toolCalls: [{ name: 'ask', args: {} }] }, { text: 'Let us skip that.' }],
        agent: parent,
        totalMs: 20_000,
      });
      const errors: unknown[] = [];
      h.session.on('error', (e) => errors.push(e.error));
      await h.run(10_000);
      expect(errors).toEqual([expect.any(ToolTimeoutError)]);
      expect(awaited).toBe(errors[0]);
      expect(h.session.currentAgent).toBe(parent);
      expect(h.trace.filter((r) => r.type === 'task_finished')).toEqual([
        expect.objectContaining({ taskId: 'never', outcome: 'failed' }),
      ]);
      const spoken = h.session.history.items.filter((i) => i.type === 'message' && i.role === 'assistant');
      expect(spoken).toEqual([expect.objectContaining({ content: ['Let us skip that.'] })]);
      await h.session.close();
    });
  }

  it('refuses limits that cannot be honoured', () => {
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => tool({ name: 't', description: '', timeoutMs: bad, execute: () => 1 })).toThrow(
        RangeError,
      );
      expect(() => new AgentSession({ toolTimeoutMs: bad })).toThrow(RangeError);
    }
    expect(tool({ name: 't', description: '', timeoutMs: 50, execute: () => 1 }).timeoutMs).toBe(50);
  });
});
