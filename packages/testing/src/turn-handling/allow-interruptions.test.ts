import { describe, expect, it } from 'vitest';
import type { Scenario } from '../scenario.js';
import { all, run, STORY, said } from './helpers.js';

// Issue #19: `new Agent({ allowInterruptions })` is the default of the speeches the agent creates.
function story(overrides: Partial<Scenario> = {}): Scenario {
  return {
    name: 'uninterruptible agent',
    agents: [{ name: 'assistant', allowInterruptions: false }],
    vad: { minSpeechMs: 100, minSilenceMs: 400 },
    stt: { finalDelayMs: 200, interimIntervalMs: 300 },
    user: [
      { startMs: 1000, endMs: 1800, transcript: 's0z tell me a long story' },
      { startMs: 4000, endMs: 5500, transcript: 's1z wait what about the boats' },
    ],
    llm: {
      replies: [{ match: { user: 's0z' }, ttftMs: 200, text: STORY }],
      // The turn said over the story is answered after it, so the story is the last item the model sees.
      fallback: { ttftMs: 200, text: 'The boats were blue.' },
    },
    ...overrides,
  };
}

describe('agent-level allowInterruptions (issue #19)', () => {
  it("an agent's replies are uninterruptible when it says so: the user is heard and answered afterwards", async () => {
    const r = await run(story({ session: { turnHandling: { discardAudioIfUninterruptible: false } } }));
    const created = all(r.log, 'speech_created');
    expect(created.map((c) => [c.speechId, c.source, c.allowInterruptions])).toEqual([
      ['speech_1', 'user_turn', false],
      ['speech_2', 'user_turn', false],
    ]);
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(all(r.log, 'speech_paused')).toEqual([]);
    // The VAD heard the user over the reply: speaking at 4000 ms, listening once they stopped.
    const states = all(r.log, 'user_state_changed').map((e) => [e.atMs, e.newState]);
    expect(states).toContainEqual([expect.closeTo(4100, -2), 'speaking']);
    const back = states.find(([at, s]) => (at as number) > 5500 && s === 'listening');
    expect(back?.[0]).toBeLessThanOrEqual(5500 + 400 + 60);
    // The second turn is answered after the story played to its end.
    const done1 = all(r.log, 'speech_done').find((e) => e.speechId === 'speech_1')!;
    expect(done1.outcome).toBe('played');
    const firstFrame2 = r.framesBySpeech.speech_2![0]!.atMs;
    expect(firstFrame2).toBeGreaterThanOrEqual(r.framesBySpeech.speech_1!.at(-1)!.atMs);
    expect(said(r.history)).toEqual([STORY, 'The boats were blue.']);
    expect(said(r.history, 'user')).toEqual(['s0z tell me a long story', 's1z wait what about the boats']);
  });

  it('with discardAudioIfUninterruptible (the default) the words said over the reply are dropped, visibly', async () => {
    const r = await run(story());
    expect(all(r.log, 'speech_interrupted')).toEqual([]);
    expect(said(r.history)).toEqual([STORY]);
    expect(all(r.log, 'stt_fed_silence').length).toBeGreaterThan(0);
    expect(all(r.log, 'user_turn_skipped').map((e) => e.reason)).toEqual(['empty_transcript']);
  });

  it('a call overrides the agent default: an interruptible say of an uninterruptible agent is cut', async () => {
    const r = await run(
      story({
        user: [{ startMs: 1500, endMs: 3000, transcript: 's1z wait what about the boats' }],
        actions: [{ atMs: 200, type: 'say', text: STORY, allowInterruptions: true }],
      }),
    );
    expect(all(r.log, 'speech_created').map((c) => [c.source, c.allowInterruptions])).toEqual([
      ['say', true],
      ['user_turn', false],
    ]);
    expect(all(r.log, 'speech_interrupted').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(said(r.history).at(-1)).toBe('The boats were blue.');
  });

  it('say() and generateReply() without the option follow the agent in charge, also in its onEnter', async () => {
    const r = await run(
      story({
        agents: [{ name: 'assistant', allowInterruptions: false, onEnter: { say: 'Hello there, welcome.' } }],
        user: [{ startMs: 4000, endMs: 5000, transcript: 's1z hi' }],
        actions: [
          { atMs: 2000, type: 'say', text: 'Still here.' },
          { atMs: 2500, type: 'generate_reply', instructions: 'more' },
        ],
      }),
    );
    expect(all(r.log, 'speech_created').map((c) => [c.source, c.allowInterruptions])).toEqual([
      ['say', false],
      ['say', false],
      ['generate_reply', false],
      ['user_turn', false],
    ]);
  });
});
