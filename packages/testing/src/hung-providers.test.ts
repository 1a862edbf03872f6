// Issue #13, "nothing waits forever": providers and sinks that hang without an error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatItem } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import type { EntryOf, LogEntry, LogEntryType } from './log.js';
import type { Scenario } from './scenario.js';
import { type SimulationResult, simulate } from './simulate.js';

const DIR = join(import.meta.dirname, '..', 'scenarios', 'hung');

async function run(name: string): Promise<SimulationResult> {
  const scenario = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Scenario;
  const result = await simulate(scenario);
  expect(formatViolations(result.violations, result.log)).toBe('no violations');
  return result;
}

function all<T extends LogEntryType>(log: readonly LogEntry[], type: T): Array<EntryOf<T>> {
  return log.filter((e): e is EntryOf<T> => e.type === type);
}

function said(history: readonly ChatItem[], role: 'user' | 'assistant'): string[] {
  return history
    .filter((i): i is Extract<ChatItem, { type: 'message' }> => i.type === 'message' && i.role === role)
    .map((i) => `${i.content.join('')}${i.interrupted ? ' [interrupted]' : ''}`);
}

function errors(r: SimulationResult): string[] {
  return all(r.log, 'error').map((e) => `${e.source} ${e.error.name}${e.recoverable ? '' : ' (fatal)'}`);
}

describe('hung providers and sinks', () => {
  it('a model that stops mid-reply: the step fails with an llm error after the chunk deadline', async () => {
    const r = await run('llm-stalls-mid-reply');
    expect(errors(r)).toEqual(['llm APITimeoutError']);
    const stall = all(r.log, 'provider_stall')[0]!;
    const error = all(r.log, 'error')[0]!;
    // The second word came 40 ms before the stall; nothing for 4 s after it.
    expect(error.atMs - stall.atMs).toBeGreaterThanOrEqual(4000 - 100);
    expect(error.atMs - stall.atMs).toBeLessThanOrEqual(4000);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['failed', 'played']);
    const assistant = said(r.history, 'assistant');
    expect(assistant[0]).toMatch(/^Today.* \[interrupted\]$/);
    expect(assistant[1]).toBe('Yes, I am here.');
  });

  it('a synthesizer that never yields frees the uninterruptible say() and the reply behind it', async () => {
    const r = await run('tts-never-yields');
    expect(errors(r)).toEqual(['tts APITimeoutError']);
    const error = all(r.log, 'error')[0]!;
    expect(error.atMs).toBeLessThanOrEqual(3000 + 50);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['failed', 'played']);
    expect(said(r.history, 'assistant')).toEqual(['Hi, how can I help?']);
    expect(all(r.log, 'agent_state_changed').at(-2)?.newState).toBe('listening');
  });

  it('a synthesizer that goes quiet mid-reply: the user talking over the silence ends the wait at once', async () => {
    const r = await run('tts-stalls-user-barges-in');
    // The synthesizer's deadline (30 s) never comes into it: the interrupt alone ends the speech.
    expect(errors(r)).toEqual([]);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['interrupted', 'played']);
    const interrupted = all(r.log, 'speech_interrupted')[0]!;
    const done = all(r.log, 'speech_done')[0]!;
    expect(done.atMs).toBe(interrupted.atMs);
    // The audio had run dry long before: the stall came at 3.6 s, the barge-in at 6 s.
    expect(r.framesBySpeech.speech_1!.at(-1)!.atMs).toBeLessThan(3600);
    expect(interrupted.atMs).toBeGreaterThan(6000);
    expect(said(r.history, 'assistant')).toEqual(['Today it is [interrupted]', 'Yes, go on.']);
  });

  it('a recognizer that goes silent is restarted, and later speech is heard again', async () => {
    const r = await run('stt-goes-silent');
    expect(errors(r)).toEqual(['stt APITimeoutError']);
    const error = all(r.log, 'error')[0]!;
    const ended = all(r.log, 'vad_end_of_speech').find((e) => e.atMs >= 7000)!;
    expect(error.atMs - ended.atMs).toBeGreaterThanOrEqual(4000);
    expect(error.atMs - ended.atMs).toBeLessThanOrEqual(4000 + 40);
    expect(all(r.log, 'stt_restarted')).toHaveLength(1);
    expect(said(r.history, 'user')).toEqual(['s0z good morning', 's2z heard again']);
    expect(said(r.history, 'assistant')).toEqual(['Good morning.', 'Yes, I hear you.']);
  });

  it('a sink whose captureFrame never returns fails the step once its audio was due, plus the grace', async () => {
    const r = await run('capture-frame-stuck');
    expect(errors(r)).toEqual(['audio_output AudioOutputTimeoutError']);
    const stuck = all(r.log, 'output_capture_stalled')[0]!;
    const error = all(r.log, 'error')[0]!;
    // The sink held at most 400 ms of audio ahead of the stuck frame (its buffer and the frame itself).
    expect(error.atMs - stuck.atMs).toBeLessThanOrEqual(200 + 40 + 1000 + 40);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['failed', 'played']);
    const assistant = said(r.history, 'assistant');
    expect(assistant[0]).toMatch(/^Once.* \[interrupted\]$/);
    expect(assistant[1]).toBe('I am here.');
  });

  it('a sink that never reports playback finished: each speech ends when its audio is due plus the grace', async () => {
    const r = await run('silent-sink-many-speeches');
    expect(errors(r)).toEqual(Array(3).fill('audio_output AudioOutputTimeoutError'));
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['played', 'played', 'played']);
    for (const speechId of Object.keys(r.framesBySpeech)) {
      const frames = r.framesBySpeech[speechId]!;
      const audioMs = frames.reduce((ms, f) => ms + f.durationMs, 0);
      const firstAt = frames[0]!.atMs;
      const listening = all(r.log, 'agent_state_changed').find(
        (e) => e.atMs > firstAt && e.newState === 'listening',
      )!;
      expect(listening.atMs - firstAt).toBeGreaterThanOrEqual(audioMs);
      expect(listening.atMs - firstAt).toBeLessThanOrEqual(audioMs + 800 + 40);
    }
  });

  it('a speech cut after its audio left a paused sink leaves the sink playing for the next speech', async () => {
    const r = await run('sink-left-paused-after-cut');
    expect(errors(r)).toEqual([]);
    const done = all(r.log, 'speech_done');
    expect(done.map((e) => e.outcome)).toEqual(['interrupted', 'played']);
    // The reply to the second turn reached the sink and played to its end.
    const last = done[1]!.speechId;
    expect(r.framesBySpeech[last]?.length).toBeGreaterThan(0);
  });
});
