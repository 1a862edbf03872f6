import { describe, expect, it } from 'vitest';
import type { Scenario } from '../scenario.js';
import { all, run, STORY, said } from './helpers.js';

// Issue #19: with the local InterruptionDetector, acknowledgements over the agent resume it.
function over(probe: { transcript: string; durationMs: number }): Scenario {
  return {
    session: { interruptionDetector: 'local' },
    vad: { minSpeechMs: 100, minSilenceMs: 400 },
    stt: { finalDelayMs: 300, interimIntervalMs: 200 },
    user: [
      { startMs: 1000, endMs: 1800, transcript: 's0z tell me a long story' },
      { startMs: 4000, endMs: 4000 + probe.durationMs, transcript: probe.transcript },
    ],
    llm: { replies: [{ match: { user: 's0z' }, ttftMs: 200, text: STORY }], fallback: { text: 'Sure.' } },
  };
}

describe('LocalInterruptionDetector in a session (issue #19)', () => {
  it('a long "yeah okay" pauses the story, resumes it, and gets no reply of its own', async () => {
    const r = await run(over({ transcript: 'yeah okay', durationMs: 1000 }));
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(all(r.log, 'backchannel_detected').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(all(r.log, 'agent_false_interruption').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(all(r.log, 'user_turn_skipped').map((e) => e.reason)).toEqual(['backchannel']);
    expect(said(r.history)).toEqual([STORY]);
    expect(said(r.history, 'user')).toEqual(['s0z tell me a long story']);
  });

  it('a real barge-in cuts the story and is answered', async () => {
    const r = await run(over({ transcript: 'wait stop', durationMs: 700 }));
    const cut = all(r.log, 'speech_interrupted').find((e) => e.speechId === 'speech_1');
    expect(cut?.reason).toBe('user_words');
    expect(cut!.atMs - 4000).toBeLessThanOrEqual(600);
    expect(said(r.history).at(-1)).toBe('Sure.');
    expect(said(r.history, 'user').at(-1)).toBe('wait stop');
  });

  it('an "okay" said while the agent is silent is an answer, not a backchannel', async () => {
    const r = await run({
      ...over({ transcript: 'okay', durationMs: 400 }),
      user: [{ startMs: 1000, endMs: 1400, transcript: 'okay' }],
    });
    expect(all(r.log, 'user_turn_skipped')).toEqual([]);
    expect(said(r.history)).toEqual(['Sure.']);
  });
});
