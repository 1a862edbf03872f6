import { defaultTurnHandling } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../log.js';
import { checkInvariants, INVARIANTS, type InvariantId } from './index.js';
import { LogBuilder } from './log-builder.js';

/** Each invariant gets a log that breaks it and a near-identical one that keeps it. */
const CASES: Record<InvariantId, { broken: () => LogEntry[]; kept: () => LogEntry[] }> = {
  L1: {
    broken: () =>
      new LogBuilder()
        .at(1000)
        .sim('user_speech_start', { segment: 0, transcript: 'hello', endMs: 2000 })
        .at(1100)
        .userState('speaking')
        .at(2000)
        .sim('user_speech_end', { segment: 0 })
        .at(4000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .sim('user_speech_start', { segment: 0, transcript: 'hello', endMs: 2000 })
        .at(1100)
        .userState('speaking')
        .at(2000)
        .sim('user_speech_end', { segment: 0 })
        .at(2500)
        .userState('listening')
        .at(4000)
        .end(),
  },
  L2: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'api' })
        .at(5000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'api' })
        .at(1200)
        .trace('speech_done', { speechId: 'speech_1', outcome: 'interrupted' })
        .at(5000)
        .end(),
  },
  L3: {
    broken: () =>
      new LogBuilder()
        .event('speech_created', { speechId: 'speech_1', source: 'say', allowInterruptions: true })
        .at(100)
        .trace('speech_queued', { speechId: 'speech_1', priority: 5 })
        .at(1000)
        .trace('speech_done', { speechId: 'speech_1', outcome: 'played' })
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .event('speech_created', { speechId: 'speech_1', source: 'say', allowInterruptions: true })
        .at(100)
        .trace('speech_queued', { speechId: 'speech_1', priority: 5 })
        .trace('speech_authorized', { speechId: 'speech_1', step: 1 })
        .at(1000)
        .trace('speech_released', { speechId: 'speech_1', step: 1 })
        .trace('speech_done', { speechId: 'speech_1', outcome: 'played' })
        .at(2000)
        .end(),
  },
  L4: {
    broken: () =>
      new LogBuilder()
        .at(1000)
        .trace('endpointing_started', { lastSpeechMs: 500, minDelayMs: 500, maxDelayMs: 6000 })
        .at(8000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .trace('endpointing_started', { lastSpeechMs: 500, minDelayMs: 500, maxDelayMs: 6000 })
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'hi', lastSpeechMs: 500 })
        .at(8000)
        .end(),
  },
  L5: {
    broken: () =>
      new LogBuilder()
        .at(1000)
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'hi', lastSpeechMs: 500 })
        .at(5000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'hi', lastSpeechMs: 500 })
        .trace('user_turn_skipped', { turnId: 'turn_1', reason: 'stop_response' })
        .at(5000)
        .end(),
  },
  L6: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .userState('speaking')
        .trace('speech_paused', { speechId: 'speech_1' })
        .at(1500)
        .userState('listening')
        .at(9000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .userState('speaking')
        .trace('speech_paused', { speechId: 'speech_1' })
        .at(1500)
        .userState('listening')
        .at(3500)
        .event('agent_false_interruption', { speechId: 'speech_1', resumed: true })
        .trace('speech_resumed', { speechId: 'speech_1', falseInterruption: true })
        .at(9000)
        .end(),
  },
  L7: {
    broken: () => new LogBuilder().at(1000).trace('close_requested', { reason: 'bye' }).at(10000).end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .trace('close_requested', { reason: 'bye' })
        .at(1100)
        .event('close', { reason: 'bye' })
        .at(10000)
        .end(),
  },
  L8: {
    broken: () =>
      new LogBuilder()
        .at(1000)
        .event('conversation_item_added', {
          item: {
            type: 'function_call',
            id: 'fnc_1',
            callId: 'call_1',
            name: 'lookup',
            arguments: '{}',
            createdAtMs: 1000,
          },
        })
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .event('conversation_item_added', {
          item: {
            type: 'function_call',
            id: 'fnc_1',
            callId: 'call_1',
            name: 'lookup',
            arguments: '{}',
            createdAtMs: 1000,
          },
        })
        .event('conversation_item_added', {
          item: {
            type: 'function_call_output',
            id: 'out_1',
            callId: 'call_1',
            name: 'lookup',
            output: 'ok',
            isError: false,
            createdAtMs: 1000,
          },
        })
        .at(2000)
        .end(),
  },
  L9: {
    broken: () =>
      new LogBuilder()
        .at(2100)
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'hi', lastSpeechMs: 2000 })
        .trace('user_turn_skipped', { turnId: 'turn_1', reason: 'x' })
        .at(3000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(2500)
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'hi', lastSpeechMs: 2000 })
        .trace('user_turn_skipped', { turnId: 'turn_1', reason: 'x' })
        .at(3000)
        .end(),
  },
  L10: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .frames('speech_1', 3)
        .at(1100)
        .sim('playout_waited', { speechId: 'speech_1', outcome: 'played' })
        .at(1300)
        .sim('output_audio_end', { positionMs: 60, interrupted: false, speechId: 'speech_1' })
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .frames('speech_1', 3)
        .at(1080)
        .sim('output_audio_end', { positionMs: 60, interrupted: false, speechId: 'speech_1' })
        .at(1100)
        .sim('playout_waited', { speechId: 'speech_1', outcome: 'played' })
        .at(2000)
        .end(),
  },
  S1: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('thinking')
        .at(1000)
        .frames('speech_1', 2)
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('thinking')
        .at(1000)
        .frames('speech_1', 1)
        .agentState('speaking', 'thinking')
        .frames('speech_1', 1)
        .at(2000)
        .end(),
  },
  S2: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .frames('speech_1', 1)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'api' })
        .sim('output_audio_end', { positionMs: 20, interrupted: true, speechId: 'speech_1' })
        .at(1040)
        .frames('speech_1', 1)
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .frames('speech_1', 1)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'api' })
        .sim('output_audio_end', { positionMs: 20, interrupted: true, speechId: 'speech_1' })
        .at(2000)
        .end(),
  },
  S3: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1', { allowInterruptions: false })
        .at(1000)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'user_speech' })
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1', { allowInterruptions: false })
        .at(1000)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'forced' })
        .at(2000)
        .end(),
  },
  S4: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .trace('interruption_hold', { speechId: 'speech_1', holds: 1 })
        .trace('task_started', { taskId: 'task_1', parentSpeechId: 'speech_1' })
        .at(1500)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'user_speech' })
        .at(2000)
        .trace('task_finished', { taskId: 'task_1', outcome: 'completed' })
        .trace('interruption_hold', { speechId: 'speech_1', holds: 0 })
        .at(3000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .trace('interruption_hold', { speechId: 'speech_1', holds: 1 })
        .trace('task_started', { taskId: 'task_1', parentSpeechId: 'speech_1' })
        .at(2000)
        .trace('task_finished', { taskId: 'task_1', outcome: 'completed' })
        .trace('interruption_hold', { speechId: 'speech_1', holds: 0 })
        .at(2500)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'user_speech' })
        .at(3000)
        .end(),
  },
  S5: {
    broken: () => {
      const call = {
        type: 'function_call',
        id: 'fnc_1',
        callId: 'call_1',
        name: 'lookup',
        arguments: '{}',
        createdAtMs: 1000,
      };
      const out = {
        type: 'function_call_output',
        id: 'out_1',
        callId: 'call_1',
        name: 'lookup',
        output: 'ok',
        isError: false,
        createdAtMs: 1000,
      };
      return new LogBuilder()
        .at(1000)
        .event('conversation_item_added', { item: call })
        .event('conversation_item_added', { item: out })
        .event('conversation_item_added', { item: call })
        .at(2000)
        .end();
    },
    kept: () => {
      const call = {
        type: 'function_call',
        id: 'fnc_1',
        callId: 'call_1',
        name: 'lookup',
        arguments: '{}',
        createdAtMs: 1000,
      };
      const out = {
        type: 'function_call_output',
        id: 'out_1',
        callId: 'call_1',
        name: 'lookup',
        output: 'ok',
        isError: false,
        createdAtMs: 1000,
      };
      return new LogBuilder()
        .at(1000)
        .event('conversation_item_added', { item: call })
        .event('conversation_item_added', { item: out })
        .at(2000)
        .end();
    },
  },
  S6: {
    broken: () =>
      new LogBuilder()
        .agentState('speaking')
        .at(1000)
        .speech('speech_1', { source: 'user_turn', turnId: 'turn_1' })
        .frames('speech_1', 2)
        .trace('speech_released', { speechId: 'speech_1', step: 1 })
        .at(2000)
        .speech('speech_2', { source: 'user_turn', turnId: 'turn_1' })
        .frames('speech_2', 2)
        .at(3000)
        .end(),
    kept: () =>
      new LogBuilder()
        .agentState('speaking')
        .at(1000)
        .speech('speech_1', { source: 'user_turn', turnId: 'turn_1' })
        .frames('speech_1', 2)
        .trace('speech_released', { speechId: 'speech_1', step: 1 })
        .at(2000)
        .speech('speech_2', { source: 'user_turn', turnId: 'turn_2' })
        .frames('speech_2', 2)
        .at(3000)
        .end(),
  },
  S7: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .userState('speaking')
        .at(1100)
        .frames('speech_1', 2)
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1', { allowInterruptions: false })
        .agentState('speaking')
        .at(1000)
        .userState('speaking')
        .at(1100)
        .frames('speech_1', 2)
        .at(2000)
        .end(),
  },
  S8: {
    broken: () =>
      new LogBuilder()
        .at(1000)
        .userState('away', 'listening')
        .at(1500)
        .trace('tool_started', { speechId: 'speech_1', callId: 'call_1', name: 'lookup' })
        .at(1600)
        .userState('listening', 'away')
        .at(2000)
        .trace('tool_finished', { speechId: 'speech_1', callId: 'call_1', name: 'lookup', outcome: 'ok' })
        .at(3000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .userState('away', 'listening')
        .at(1500)
        .userState('listening', 'away')
        .trace('tool_started', { speechId: 'speech_1', callId: 'call_1', name: 'lookup' })
        .at(2000)
        .trace('tool_finished', { speechId: 'speech_1', callId: 'call_1', name: 'lookup', outcome: 'ok' })
        .at(3000)
        .end(),
  },
  S9: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .sim('user_speech_start', { segment: 0, transcript: 'hmm', endMs: 2000 })
        .at(1100)
        .trace('speech_interrupted', {
          speechId: 'speech_1',
          reason: 'user_speech',
          userSpeechMs: 100,
          userWords: 0,
        })
        .at(3000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .sim('user_speech_start', { segment: 0, transcript: 'hmm', endMs: 2000 })
        .at(1600)
        .trace('speech_interrupted', {
          speechId: 'speech_1',
          reason: 'user_speech',
          userSpeechMs: 600,
          userWords: 0,
        })
        .at(3000)
        .end(),
  },
  S10: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .trace('speech_paused', { speechId: 'speech_1' })
        .at(3000)
        .trace('speech_resumed', { speechId: 'speech_1', falseInterruption: true })
        .at(4000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .trace('speech_paused', { speechId: 'speech_1' })
        .at(3000)
        .event('agent_false_interruption', { speechId: 'speech_1', resumed: true })
        .trace('speech_resumed', { speechId: 'speech_1', falseInterruption: true })
        .at(4000)
        .end(),
  },
  S11: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(1000)
        .event('error', {
          source: 'session',
          recoverable: true,
          error: { name: 'TypeError', message: 'x is not a function' },
        })
        .trace('speech_done', {
          speechId: 'speech_1',
          outcome: 'failed',
          error: 'TypeError: x is not a function',
        })
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .at(900)
        .sim('llm_error', { message: 'LLM connection dropped' })
        .at(1000)
        .event('error', {
          source: 'llm',
          recoverable: true,
          error: { name: 'APIConnectionError', message: 'LLM connection dropped' },
        })
        .trace('speech_done', { speechId: 'speech_1', outcome: 'failed', error: 'APIConnectionError' })
        .at(2000)
        .end(),
  },
  S12: {
    broken: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .frames('speech_1', 1)
        .sim('output_overrun', { aheadMs: 900, speechId: 'speech_1' })
        .at(2000)
        .end(),
    kept: () =>
      new LogBuilder()
        .speech('speech_1')
        .agentState('speaking')
        .at(1000)
        .frames('speech_1', 2)
        .at(2000)
        .end(),
  },
  S13: {
    // A late final corrects a turn committed from an interim, and drops what the turn already held.
    broken: () =>
      new LogBuilder()
        .at(1000)
        .event('user_input_transcribed', { transcript: 'book a table', isFinal: true })
        .at(2000)
        .event('user_input_transcribed', { transcript: 'for', isFinal: false })
        .trace('user_turn_committed', {
          turnId: 'turn_1',
          transcript: 'book a table for',
          lastSpeechMs: 1500,
        })
        .at(2300)
        .event('user_input_transcribed', { transcript: 'for two', isFinal: true })
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'for two', lastSpeechMs: 1500 })
        .at(4000)
        .end(),
    kept: () =>
      new LogBuilder()
        .at(1000)
        .event('user_input_transcribed', { transcript: 'book a table', isFinal: true })
        .at(2000)
        .event('user_input_transcribed', { transcript: 'for', isFinal: false })
        .trace('user_turn_committed', {
          turnId: 'turn_1',
          transcript: 'book a table for',
          lastSpeechMs: 1500,
        })
        .at(2300)
        .event('user_input_transcribed', { transcript: 'for two', isFinal: true })
        .trace('user_turn_committed', {
          turnId: 'turn_1',
          transcript: 'book a table for two',
          lastSpeechMs: 1500,
        })
        .at(4000)
        .end(),
  },
};

describe('checkInvariants', () => {
  it('has a case for every invariant of INVARIANTS.md', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(INVARIANTS).sort());
  });

  for (const id of Object.keys(CASES) as InvariantId[]) {
    it(`${id} fails on a log that breaks it: ${INVARIANTS[id]}`, () => {
      const violations = checkInvariants(CASES[id].broken(), { only: [id] });
      expect(violations.length).toBeGreaterThan(0);
      expect(violations.every((v) => v.id === id)).toBe(true);
      expect(violations[0]!.message).not.toBe('');
    });

    it(`${id} passes on the same log kept correct`, () => {
      expect(checkInvariants(CASES[id].kept(), { only: [id] })).toEqual([]);
    });
  }

  it('points at the offending entries', () => {
    const log = CASES.S2.broken();
    const [violation] = checkInvariants(log, { only: ['S2'] });
    expect(violation?.entries.map((i) => log[i]?.type)).toEqual(['speech_interrupted', 'output_frame']);
  });
});

describe('S9 as issue #13 defines it', () => {
  const s9 = (log: LogEntry[]) => checkInvariants(log, { only: ['S9'] });
  /** A reply held by the user's speech 1000..2000 (500 ms minimum, no word requirement by default). */
  const userSays = (b: LogBuilder, transcript: string) =>
    b
      .at(1000)
      .sim('user_speech_start', { segment: 0, transcript, endMs: 2000 })
      .at(1100)
      .userState('speaking');

  it('a word does not make up for the minimum duration (0 words means no word requirement)', () => {
    const cut = (atMs: number, userSpeechMs: number) =>
      userSays(new LogBuilder().speech('speech_1'), 'mm')
        .at(atMs - 10)
        .event('user_input_transcribed', { transcript: 'mm', isFinal: false })
        .at(atMs)
        .trace('speech_interrupted', {
          speechId: 'speech_1',
          reason: 'user_words',
          userSpeechMs,
          userWords: 1,
        })
        .at(3000)
        .end();
    expect(s9(cut(1300, 300))).toHaveLength(1);
    expect(s9(cut(1600, 600))).toEqual([]);
  });

  it('a word threshold, when set, is required on top of the duration', () => {
    const log = (transcript: string) =>
      new LogBuilder({ turnHandling: { ...defaultTurnHandling, minInterruptionWords: 2 } })
        .speech('speech_1')
        .at(1000)
        .sim('user_speech_start', { segment: 0, transcript, endMs: 2000 })
        .at(1100)
        .userState('speaking')
        .at(1590)
        .event('user_input_transcribed', { transcript, isFinal: false })
        .at(1600)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'user_speech', userSpeechMs: 600 })
        .at(3000)
        .end();
    expect(s9(log('mm'))).toHaveLength(1);
    expect(s9(log('wait stop'))).toEqual([]);
  });

  it('speech of a turn committed while the user still counts as speaking never cuts the reply to it', () => {
    const log = (cutAt: number) =>
      userSays(new LogBuilder(), 'what time is it')
        .at(1900)
        .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'what time is it', lastSpeechMs: 1900 })
        .speech('speech_1', { source: 'user_turn', turnId: 'turn_1' })
        .at(cutAt)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'user_speech', userSpeechMs: 900 })
        .at(4000)
        .end();
    expect(s9(log(1910))).toHaveLength(1);
  });

  it('a step that takes the output while the user talks is cut only by the speech after it began', () => {
    const log = (cutAt: number) =>
      userSays(new LogBuilder(), 'and what should i wear')
        .at(1400)
        .speech('speech_1')
        .at(cutAt)
        .trace('speech_interrupted', { speechId: 'speech_1', reason: 'user_speech', userSpeechMs: 600 })
        .at(4000)
        .end();
    expect(s9(log(1550))).toHaveLength(1);
    expect(s9(log(1900))).toEqual([]);
  });
});

describe('tools and sub-tasks as issue #13 defines them', () => {
  const ids = (log: LogEntry[], id: InvariantId) =>
    checkInvariants(log)
      .filter((v) => v.id === id)
      .map((v) => v.message);

  it('S4: tasks awaited by tools of one speech never run at the same time; one after the other is fine', () => {
    const overlapping = new LogBuilder()
      .speech('speech_1')
      .at(1000)
      .trace('task_started', { taskId: 'task_1', parentSpeechId: 'speech_1' })
      .trace('task_started', { taskId: 'task_2', parentSpeechId: 'speech_1' })
      .at(2000)
      .trace('task_finished', { taskId: 'task_1', outcome: 'completed' })
      .trace('task_finished', { taskId: 'task_2', outcome: 'completed' })
      .at(3000)
      .end();
    expect(ids(overlapping, 'S4')).toEqual([
      'task_2 started while task_1, awaited by the same speech speech_1, still ran',
    ]);
    const inTurn = new LogBuilder()
      .speech('speech_1')
      .at(1000)
      .trace('task_started', { taskId: 'task_1', parentSpeechId: 'speech_1' })
      .at(2000)
      .trace('task_finished', { taskId: 'task_1', outcome: 'completed' })
      .trace('task_started', { taskId: 'task_2', parentSpeechId: 'speech_1' })
      .at(3000)
      .trace('task_finished', { taskId: 'task_2', outcome: 'completed' })
      .at(4000)
      .end();
    expect(ids(inTurn, 'S4')).toEqual([]);
  });

  it('S4: a finished task never asks for a reply; while it runs it may', () => {
    const log = new LogBuilder()
      .at(1000)
      .trace('task_started', { taskId: 'ask_1', parentSpeechId: undefined })
      .sim('llm_request', { reply: 0, lastItem: 'user: hi', agent: 'ask' })
      .at(2000)
      .trace('task_finished', { taskId: 'ask_1', outcome: 'completed' })
      .sim('llm_request', { reply: 0, lastItem: 'user: my email', agent: 'ask' })
      .sim('llm_request', { reply: 1, lastItem: 'user: my email', agent: 'assistant' })
      .at(3000)
      .end();
    expect(ids(log, 'S4')).toEqual(['the finished task ask asked the LLM for a reply']);
  });

  it('S5: a function_tools_executed event that reports no call is a violation', () => {
    const log = new LogBuilder()
      .speech('speech_1')
      .at(1000)
      .event('function_tools_executed', { speechId: 'speech_1', callIds: [], outputs: [] })
      .at(2000)
      .end();
    expect(ids(log, 'S5')).toEqual(['function_tools_executed for speech_1 reported no call']);
  });
});
