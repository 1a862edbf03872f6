import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatItem } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import type { EntryOf, LogEntry, LogEntryType } from './log.js';
import type { Scenario } from './scenario.js';
import { type SimulationResult, simulate } from './simulate.js';

// Issue #13, "Interruptions": each scenario fails on the engine before the fix (and on the S9 check).
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

function said(history: readonly ChatItem[]): string[] {
  return history
    .filter(
      (i): i is Extract<ChatItem, { type: 'message' }> => i.type === 'message' && i.role === 'assistant',
    )
    .map((i) => `${i.content.join('')}${i.interrupted ? ' [interrupted]' : ''}`);
}

describe('interruptions (issue #13)', () => {
  it('a backchannel shorter than minInterruptionDuration pauses the reply but never cuts it, whatever its words', async () => {
    const r = await run('int1-short-backchannel-keeps-reply');
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(all(r.log, 'agent_false_interruption').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(said(r.history)).toEqual([expect.stringMatching(/^Once upon a time .* dawn\.$/), 'Okay.']);
  });

  it("with turnDetection 'stt', the speech of the committed turn never cuts the reply to it", async () => {
    const r = await run('int2-stt-commit-in-vad-silence');
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(all(r.log, 'speech_done')).toEqual([
      expect.objectContaining({ speechId: 'speech_1', outcome: 'played' }),
    ]);
    expect(said(r.history)).toEqual(["It is twelve o'clock."]);
    // Held while the VAD still counted the turn's speech (S7), then played.
    expect(r.framesBySpeech.speech_1?.length).toBeGreaterThan(0);
  });

  it('a step that begins while the user talks is held, cut only by speech after it began; the tool result stays for the next reply', async () => {
    const r = await run('int3-tool-reply-over-user');
    const min = r.scenario.session!.turnHandling!.minInterruptionDuration!;
    const step2 = all(r.log, 'speech_authorized').find((e) => e.speechId === 'speech_1' && e.step === 2)!;
    const cuts = all(r.log, 'speech_interrupted').filter((e) => e.speechId === 'speech_1');
    expect(cuts).toHaveLength(1);
    expect(cuts[0]!.atMs - step2.atMs).toBeGreaterThanOrEqual(min);
    expect(all(r.log, 'speech_paused').map((e) => e.speechId)).toContain('speech_1');
    expect(r.framesBySpeech.speech_1 ?? []).toEqual([]);
    // The tool's result is in the conversation, once, before the user's next turn: the next reply has it.
    const kinds = r.history.map((i) => (i.type === 'message' ? `${i.role}` : i.type));
    expect(r.history.filter((i) => i.type === 'function_call_output')).toEqual([
      expect.objectContaining({ name: 'weather', output: 'sunny', isError: false }),
    ]);
    expect(kinds.indexOf('function_call_output')).toBeLessThan(kinds.lastIndexOf('user'));
    expect(said(r.history)).toEqual(['Wear something light.']);
  });

  it("a pause that begins after a reply's audio played does not extend the playout watchdog of a silent sink", async () => {
    const r = await run('int4-pause-after-audio-ended');
    const frames = r.framesBySpeech.speech_1!;
    expect(frames.length).toBeGreaterThan(0);
    const sentMs = frames.reduce((sum, f) => sum + f.durationMs, 0);
    const firstFrameAt = frames[0]!.atMs;
    const done = all(r.log, 'speech_done').find((e) => e.speechId === 'speech_1')!;
    expect(done.outcome).toBe('played');
    // Flushed by the first frame + its audio; the watchdog allows the audio's length + the slack.
    expect(done.atMs).toBeLessThanOrEqual(firstFrameAt + 2 * sentMs + 2000 + 100);
    expect(all(r.log, 'speech_paused').map((e) => e.atMs)).toEqual([4100]);
  });
});
