import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatItem } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import type { EntryOf, LogEntry, LogEntryType } from './log.js';
import type { Scenario } from './scenario.js';
import { type SimulationResult, simulate } from './simulate.js';

// Issue #13, "Tools and sub-tasks": each scenario fails on the engine before the fix.
const DIR = join(import.meta.dirname, '..', 'scenarios', 'regressions');

async function run(name: string): Promise<SimulationResult> {
  const scenario = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Scenario;
  const result = await simulate(scenario);
  expect(formatViolations(result.violations, result.log)).toBe('no violations');
  return result;
}

function all<T extends LogEntryType>(log: readonly LogEntry[], type: T): Array<EntryOf<T>> {
  return log.filter((e): e is EntryOf<T> => e.type === type);
}

/** The conversation as short lines: `user: ...`, `assistant: ...`, `call <id> <name>`, `output <id> ...`. */
function transcript(history: readonly ChatItem[]): string[] {
  return history.flatMap((i) => {
    if (i.type === 'message')
      return [`${i.role}: ${i.content.join('')}${i.interrupted ? ' [interrupted]' : ''}`];
    if (i.type === 'function_call') return [`call ${i.callId} ${i.name}`];
    if (i.type === 'function_call_output') return [`output ${i.callId} ${i.output}`];
    return [];
  });
}

describe('tools and sub-tasks (issue #13)', () => {
  it('parallel tool calls that each await an AgentTask run the tasks one at a time, in call order, each with its own answer', async () => {
    const r = await run('tool1-parallel-tasks-one-at-a-time');
    const tasks = r.log.filter((e) => e.type === 'task_started' || e.type === 'task_finished');
    expect(tasks.map((e) => `${e.type} ${(e as { taskId: string }).taskId}`)).toEqual([
      'task_started email_task_1',
      'task_finished email_task_1',
      'task_started phone_task_2',
      'task_finished phone_task_2',
    ]);
    expect(transcript(r.history)).toEqual([
      'user: s0z please register me',
      'assistant: What is your email?',
      'user: ann at example dot com',
      'assistant: What is your phone number?',
      'user: five five five one two',
      'call call_1 get_email',
      'output call_1 email; email_task: ann at example dot com',
      'call call_2 get_phone',
      'output call_2 phone; phone_task: five five five one two',
      'assistant: You are registered.',
    ]);
  });

  it('a model that reuses call ids every turn still gets its tools run, their outputs recorded and an answer', async () => {
    const r = await run('tool2-ids-reused-every-turn');
    expect(transcript(r.history)).toEqual([
      'user: s0z what time is it',
      'call call_0 clock',
      'output call_0 noon',
      'assistant: It is noon.',
      'user: s1z and now',
      'call call_0_2 clock',
      'output call_0_2 noon',
      'assistant: It is noon.',
    ]);
    expect(all(r.log, 'tool_started').map((e) => e.callId)).toEqual(['call_0', 'call_0_2']);
    expect(all(r.log, 'tool_call_renamed')).toEqual([
      expect.objectContaining({
        speechId: 'speech_2',
        modelCallId: 'call_0',
        callId: 'call_0_2',
        name: 'clock',
      }),
    ]);
    expect(all(r.log, 'function_tools_executed').map((e) => e.callIds)).toEqual([['call_0'], ['call_0_2']]);
  });

  it('a call the model re-emits in the same turn (same id, name and arguments) is not run again', async () => {
    const r = await run('tool3-reemitted-call-not-rerun');
    expect(all(r.log, 'tool_started').map((e) => e.callId)).toEqual(['call_7']);
    expect(all(r.log, 'tool_call_skipped')).toEqual([
      expect.objectContaining({
        callId: 'call_7',
        name: 'book',
        reason: 'already_answered',
        speechId: 'speech_2',
      }),
    ]);
    expect(all(r.log, 'function_tools_executed').map((e) => e.callIds)).toEqual([['call_7']]);
    expect(transcript(r.history)).toEqual([
      'user: s0z book a table for two',
      'call call_7 book',
      'output call_7 booked',
      expect.stringMatching(/^assistant: .* \[interrupted\]$/),
      'assistant: Sorry, as I said:',
    ]);
  });

  it('a call cut with its speech and called again in the next turn runs, its result is recorded once and answered', async () => {
    const r = await run('tool4-cancelled-call-called-again');
    expect(all(r.log, 'tool_finished').map((e) => [e.callId, e.outcome])).toEqual([
      ['call_b', 'cancelled'],
      ['call_b_2', 'ok'],
    ]);
    // Never an event with nothing in it, and every batch that ran is reported.
    expect(all(r.log, 'function_tools_executed').map((e) => e.callIds)).toEqual([['call_b'], ['call_b_2']]);
    expect(transcript(r.history)).toEqual([
      'user: s0z book a table for two',
      'call call_b book',
      'output call_b The tool call was cancelled because the user interrupted.',
      'user: s1z sorry go on',
      'call call_b_2 book',
      'output call_b_2 booked for two',
      'assistant: Your table for two is booked.',
    ]);
  });

  it('the turn that completes an AgentTask from its onUserTurnCompleted is answered by the agent in charge afterwards', async () => {
    const r = await run('tool5-completing-turn-answered-by-parent');
    const reply = all(r.log, 'reply_started').find((e) => e.turnId === 'turn_1')!;
    const finished = all(r.log, 'task_finished')[0]!;
    expect(r.log.indexOf(finished)).toBeLessThan(r.log.indexOf(reply));
    // The request for the reply carries the assistant's instructions, not the finished task's.
    // ...and the assistant's context ends with the user's answer.
    expect(all(r.log, 'llm_request').map((e) => [e.agent, e.lastItem])).toEqual([
      ['assistant', 'user: s0z ann at example dot com'],
    ]);
    expect(transcript(r.history)).toEqual([
      'assistant: What is your email?',
      'user: s0z ann at example dot com',
      'assistant: Got your email, thank you.',
    ]);
  });

  it('a hung tool after disallowInterruptions() times out: tool error for the model, error event, signal aborted, next turn answered', async () => {
    const r = await run('tool6-hung-tool-times-out');
    expect(all(r.log, 'error')).toEqual([
      expect.objectContaining({
        source: 'tool',
        error: expect.objectContaining({ name: 'ToolTimeoutError' }),
        atMs: 5700,
      }),
    ]);
    expect(all(r.log, 'tool_step').filter((e) => e.step === 'signal_aborted')).toEqual([
      expect.objectContaining({ detail: 'ToolTimeoutError', atMs: 5700 }),
    ]);
    expect(all(r.log, 'speech_done').map((e) => [e.speechId, e.outcome])).toEqual([
      ['speech_1', 'played'],
      ['speech_2', 'played'],
    ]);
    const lines = transcript(r.history);
    expect(lines).toContain('assistant: Sorry, the lookup did not work.');
    expect(lines.filter((l) => l.startsWith('assistant:'))).toHaveLength(2);
  });
});
