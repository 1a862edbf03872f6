import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatItem } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import type { EntryOf, LogEntry, LogEntryType } from './log.js';
import type { Scenario } from './scenario.js';
import { type SimulationResult, simulate } from './simulate.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');

function load(name: string): Scenario {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Scenario;
}

async function run(name: string): Promise<SimulationResult> {
  const result = await simulate(load(name));
  // Printed on failure, so a red test shows which invariant broke and where.
  expect(formatViolations(result.violations, result.log)).toBe('no violations');
  return result;
}

function said(history: readonly ChatItem[], role: 'user' | 'assistant'): string[] {
  return history
    .filter((i): i is Extract<ChatItem, { type: 'message' }> => i.type === 'message' && i.role === role)
    .map((i) => `${i.content.join('')}${i.interrupted ? ' [interrupted]' : ''}`);
}

function all<T extends LogEntryType>(log: readonly LogEntry[], type: T): Array<EntryOf<T>> {
  return log.filter((e): e is EntryOf<T> => e.type === type);
}

function speechOf(result: SimulationResult, predicate: (e: EntryOf<'speech_created'>) => boolean): string[] {
  return all(result.log, 'speech_created')
    .filter(predicate)
    .map((e) => e.speechId);
}

describe('engine issue scenarios', () => {
  it('user speaks between a tool call and its work; the tool disallows interruptions and says something uninterruptible', async () => {
    const r = await run('tool-gap-uninterruptible-say');
    const vad = r.scenario.vad!;
    // The user stopped at 3600 ms while the uninterruptible say played: back to listening in time.
    const back = all(r.log, 'user_state_changed').find((e) => e.atMs >= 3600 && e.newState === 'listening');
    expect(back?.atMs).toBeLessThanOrEqual(3600 + vad.minSilenceMs! + 60);
    const says = speechOf(r, (e) => e.source === 'say');
    expect(says).toHaveLength(1);
    expect(all(r.log, 'speech_done').filter((e) => e.speechId === says[0])).toEqual([
      expect.objectContaining({ outcome: 'played' }),
    ]);
    expect(r.framesBySpeech[says[0]!]?.length).toBeGreaterThan(0);
    expect(said(r.history, 'assistant')).toEqual([
      'Your table for two is booked.',
      'Done, see you then.',
      expect.any(String),
      'You are welcome.',
    ]);
    expect(r.history.filter((i) => i.type === 'function_call_output')).toEqual([
      expect.objectContaining({ name: 'book', output: 'booked', isError: false }),
    ]);
  });

  it('a tool awaits an AgentTask while its text is paused by the user', async () => {
    const r = await run('task-during-paused-text');
    expect(all(r.log, 'tool_finished')).toEqual([
      expect.objectContaining({ name: 'register', outcome: 'ok' }),
    ]);
    expect(all(r.log, 'task_await_end')).toEqual([expect.objectContaining({ outcome: 'result' })]);
    expect(all(r.log, 'error')).toEqual([]);
    // Paused by the noise, resumed with exactly one false-interruption event.
    expect(all(r.log, 'speech_paused').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(all(r.log, 'agent_false_interruption').map((e) => e.speechId)).toEqual(['speech_1']);
    const question = speechOf(r, (e) => e.source === 'say');
    expect(r.framesBySpeech[question[0]!]?.length).toBeGreaterThan(0);
    expect(said(r.history, 'assistant')).toEqual([
      'Sure, I will need your email address.',
      'What is your email?',
      'You are registered.',
    ]);
    const calls = r.history.filter((i) => i.type === 'function_call');
    const outputs = r.history.filter((i) => i.type === 'function_call_output');
    expect(calls).toHaveLength(1);
    expect(outputs).toEqual([
      expect.objectContaining({
        callId: 'call_1',
        output: 'registered; email_task: s2z john at example dot com',
      }),
    ]);
  });
});

describe('no lost words', () => {
  it('a reply whose TTS fails after part of it played keeps what was heard, marked interrupted', async () => {
    const r = await run('regressions/failure-mid-reply-keeps-played-text');
    expect(all(r.log, 'error')).toEqual([expect.objectContaining({ source: 'tts', atMs: 4200 })]);
    expect(all(r.log, 'speech_done')).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    const heard = said(r.history, 'assistant');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatch(/^It is noon.* \[interrupted\]$/);
    expect(heard[0]!.length).toBeLessThan(
      'It is noon in Lisbon, and the weather is sunny with a light breeze from the sea. [interrupted]'.length,
    );
  });
});

describe('no lost words without a text output', () => {
  it('a reply paused by a cough, resumed, then cut keeps about what was heard, the pause not counted', async () => {
    // simulate() attaches no text output, so no caption tick runs: what was heard comes from the playout.
    const r = await run('regressions/paused-then-cut-keeps-heard-text');
    const full =
      'Once upon a time a small fox lived near a river, and every morning it went down to the water to drink and to watch the fish.';
    const at = (type: 'speech_paused' | 'speech_resumed') => all(r.log, type).map((e) => e.atMs);
    const [coughAt, cutAt] = at('speech_paused') as [number, number];
    const [resumedAt] = at('speech_resumed') as [number];
    expect(all(r.log, 'agent_false_interruption')).toHaveLength(1);
    const startedAt = (r.framesBySpeech.speech_1 as Array<{ atMs: number }>)[0]!.atMs;
    const heardMs = coughAt - startedAt + (cutAt - resumedAt);
    const msPerChar = r.scenario.tts!.msPerChar!;
    const [story] = said(r.history, 'assistant');
    expect(story).toMatch(/ \[interrupted\]$/);
    const kept = story!.replace(/ \[interrupted\]$/, '');
    expect(full.startsWith(kept)).toBe(true);
    expect(full[kept.length]).toBe(' '); // cut at a word boundary
    // Never more than was heard; at least what was heard before the cough.
    expect(kept.length).toBeLessThanOrEqual(heardMs / msPerChar);
    expect(kept.length).toBeGreaterThanOrEqual((coughAt - startedAt) / msPerChar);
    expect(said(r.history, 'assistant').at(-1)).toBe('Sure.');
  });
});

describe('bad input never ends the session', () => {
  it('one malformed input frame is dropped and reported; the question after it is heard and answered', async () => {
    const r = await run('regressions/bad-frame-keeps-microphone');
    expect(all(r.log, 'error')).toEqual([
      expect.objectContaining({ source: 'audio_input', recoverable: true, atMs: 500 }),
    ]);
    expect(all(r.log, 'audio_input_ended')).toEqual([]);
    expect(said(r.history, 'user')).toEqual(['what time is it']);
    expect(said(r.history, 'assistant')).toEqual(['It is noon.']);
  });
});

describe('hand-written scenarios', () => {
  it('greets, answers from a tool, answers a follow-up', async () => {
    const r = await run('basic-tool-call');
    expect(said(r.history, 'user')).toEqual(['s0z what is the weather in Paris', 's1z thank you']);
    expect(said(r.history, 'assistant')).toEqual([
      'Hello, how can I help?',
      'It is sunny in Paris.',
      'Anytime.',
    ]);
    expect(r.history.map((i) => i.type)).toEqual([
      'message',
      'message',
      'function_call',
      'function_call_output',
      'message',
      'message',
      'message',
    ]);
    expect(all(r.log, 'function_tools_executed')).toHaveLength(1);
  });

  it('barge-in with words cuts the answer and records what was heard', async () => {
    const r = await run('barge-in');
    const assistant = said(r.history, 'assistant');
    expect(assistant).toHaveLength(2);
    expect(assistant[0]).toMatch(/^Once upon a time.* \[interrupted\]$/);
    expect(assistant[0]!.length).toBeLessThan('Once upon a time a small fox lived near a river'.length);
    expect(assistant[1]).toBe('Sure, stopping.');
    expect(all(r.log, 'speech_interrupted')).toEqual([
      expect.objectContaining({ speechId: 'speech_1', reason: 'user_words' }),
    ]);
  });

  it('counts the words of a Chinese barge-in as the session does, one a character', async () => {
    const scenario = load('barge-in');
    scenario.session = { turnHandling: { minInterruptionWords: 4 } };
    scenario.user![1]!.transcript = 's1z 等一下别说了';
    const result = await simulate(scenario);
    expect(formatViolations(result.violations, result.log)).toBe('no violations');
    expect(all(result.log, 'speech_interrupted')).toEqual([
      expect.objectContaining({ speechId: 'speech_1', reason: 'user_words' }),
    ]);
  });

  it('a cough is a false interruption: paused, resumed once, played to the end', async () => {
    const r = await run('false-interruption');
    expect(all(r.log, 'speech_paused')).toHaveLength(1);
    expect(all(r.log, 'agent_false_interruption')).toHaveLength(1);
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(said(r.history, 'assistant')).toEqual(['Once upon a time a small fox lived near a river.']);
    expect(all(r.log, 'user_turn_skipped')).toEqual([
      expect.objectContaining({ reason: 'empty_transcript' }),
    ]);
  });

  it('an uninterruptible say plays over the user; the STT hears silence meanwhile', async () => {
    const r = await run('uninterruptible-say');
    expect(said(r.history, 'assistant')).toEqual(['Please listen to the following important notice.']);
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(all(r.log, 'stt_fed_silence')).toHaveLength(1);
    expect(said(r.history, 'user')).toEqual([]);
  });

  it('an LLM outage fails one reply with an error event; the next turn is answered', async () => {
    const r = await run('llm-outage');
    expect(all(r.log, 'error')).toEqual([expect.objectContaining({ source: 'llm' })]);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['failed', 'played']);
    expect(said(r.history, 'assistant')).toEqual(['Here is the second answer.']);
  });

  it('a sink that never reports playback still lets every speech end', async () => {
    const r = await run('silent-sink');
    expect(all(r.log, 'error').map((e) => e.source)).toEqual(['audio_output', 'audio_output']);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['played', 'played']);
    expect(said(r.history, 'assistant')).toEqual(['Hello there.', 'Yes, I am here.']);
  });

  it('closing while a tool awaits an AgentTask ends in time and releases the tool', async () => {
    const r = await run('close-during-task');
    const requested = all(r.log, 'close_requested')[0]!;
    const closed = all(r.log, 'close')[0]!;
    expect(closed.atMs - requested.atMs).toBeLessThanOrEqual(2000);
    expect(all(r.log, 'task_await_end')).toEqual([
      expect.objectContaining({ outcome: expect.stringMatching(/^error/) }),
    ]);
    expect(said(r.history, 'assistant')).toEqual(['What is your name?']);
    expect(r.history.filter((i) => i.type === 'function_call_output')).toHaveLength(1);
  });

  it('a tool hands the conversation to another agent', async () => {
    const r = await run('handoff');
    expect(r.history.filter((i) => i.type === 'agent_handoff')).toEqual([
      expect.objectContaining({ oldAgentId: 'assistant', newAgentId: 'billing' }),
    ]);
    expect(said(r.history, 'assistant')).toEqual([
      'Billing here, how can I help?',
      'Let me check your invoices.',
    ]);
  });

  it('an unlikely end of turn waits for the max endpointing delay', async () => {
    const r = await run('slow-turn-detector');
    const committed = all(r.log, 'user_turn_committed')[0]!;
    expect(committed.atMs - committed.lastSpeechMs!).toBe(2500);
    expect(said(r.history, 'assistant')).toEqual(['Take your time.']);
  });

  it('an STT disconnect mid-utterance is recovered and the turn answered', async () => {
    const r = await run('stt-disconnect');
    expect(all(r.log, 'error')).toEqual([expect.objectContaining({ source: 'stt' })]);
    expect(said(r.history, 'user')).toHaveLength(1);
    expect(said(r.history, 'assistant')).toEqual(['I will call you back.']);
  });
});
