import { describe, expect, it } from 'vitest';
import type { Scenario } from '../scenario.js';
import { all, run, said } from './helpers.js';

// Issue #19: audio input and output on and off, and swapping the microphone, on a live session.
const LONG_UTTERANCE = 's0z one two three four five six seven eight nine ten eleven';

function base(overrides: Partial<Scenario>): Scenario {
  return {
    vad: { minSpeechMs: 100, minSilenceMs: 400 },
    stt: { finalDelayMs: 200, interimIntervalMs: 300 },
    llm: { fallback: { ttftMs: 200, text: 'Understood.' } },
    ...overrides,
  };
}

describe('session.input.setAudioEnabled (issue #19)', () => {
  it('off while the user speaks: listening at once, no endpointing, the app commits what was heard', async () => {
    const r = await run(
      base({
        user: [{ startMs: 1000, endMs: 3000, transcript: LONG_UTTERANCE }],
        actions: [
          { atMs: 2000, type: 'set_input_enabled', enabled: false },
          { atMs: 3500, type: 'commit_user_turn' },
        ],
      }),
    );
    const states = all(r.log, 'user_state_changed').map((e) => [e.atMs, e.newState]);
    expect(states).toEqual([
      [expect.any(Number), 'speaking'],
      [2000, 'listening'],
    ]);
    // Nothing commits the turn on audio nobody hears any more; the app's commit does, with what was heard.
    const commits = all(r.log, 'user_turn_committed');
    expect(commits.map((c) => c.atMs)).toEqual([3500]);
    expect(commits[0]!.transcript).toMatch(/^s0z one two three/);
    expect(commits[0]!.transcript).not.toContain('eleven');
    expect(said(r.history)).toEqual(['Understood.']);
    // The agent cannot listen while input is off: idle, not listening.
    expect(all(r.log, 'agent_state_changed').find((e) => e.atMs === 2000)?.newState).toBe('idle');
  });

  it('on again: listening resumes, and what was heard before joins the next turn', async () => {
    const r = await run(
      base({
        user: [
          { startMs: 1000, endMs: 3000, transcript: LONG_UTTERANCE },
          { startMs: 3200, endMs: 3800, transcript: 'unheard words' },
          { startMs: 5000, endMs: 6000, transcript: 's1z and the rest' },
        ],
        actions: [
          { atMs: 2000, type: 'set_input_enabled', enabled: false },
          { atMs: 4500, type: 'set_input_enabled', enabled: true },
        ],
      }),
    );
    const commits = all(r.log, 'user_turn_committed');
    expect(commits).toHaveLength(1);
    expect(commits[0]!.atMs).toBeGreaterThan(6000);
    expect(commits[0]!.transcript).toMatch(/^s0z one two .* s1z and the rest$/);
    expect(commits[0]!.transcript).not.toContain('unheard');
    expect(all(r.log, 'user_state_changed').filter((e) => e.newState === 'speaking')).toHaveLength(2);
    expect(said(r.history)).toEqual(['Understood.']);
  });

  it('a microphone swapped mid-utterance is listened to at once; the recognizer keeps the words', async () => {
    const r = await run(
      base({
        user: [{ startMs: 1000, endMs: 3000, transcript: LONG_UTTERANCE }],
        actions: [{ atMs: 2000, type: 'swap_input' }],
      }),
    );
    expect(all(r.log, 'audio_input_source_changed')).toEqual([
      expect.objectContaining({ atMs: 2000, attached: true }),
    ]);
    const states = all(r.log, 'user_state_changed').map((e) => e.newState);
    expect(states).toEqual(['speaking', 'listening', 'speaking', 'listening']);
    const commits = all(r.log, 'user_turn_committed');
    expect(commits.map((c) => c.transcript)).toEqual([LONG_UTTERANCE]);
    expect(said(r.history)).toEqual(['Understood.']);
  });
});

describe('session.output.setAudioEnabled (issue #19)', () => {
  it('muted: replies are text only, in the history, with no speaking state; unmuted: audio again', async () => {
    const r = await run(
      base({
        user: [
          { startMs: 1000, endMs: 2000, transcript: 's0z first question' },
          { startMs: 6000, endMs: 7000, transcript: 's1z second question' },
        ],
        llm: {
          replies: [
            { match: { user: 's0z' }, ttftMs: 200, text: 'A muted answer.' },
            { match: { user: 's1z' }, ttftMs: 200, text: 'A spoken answer.' },
          ],
        },
        actions: [
          { atMs: 100, type: 'set_output_enabled', enabled: false },
          { atMs: 5000, type: 'set_output_enabled', enabled: true },
        ],
      }),
    );
    expect(r.framesBySpeech.speech_1 ?? []).toEqual([]);
    expect(r.framesBySpeech.speech_2?.length).toBeGreaterThan(0);
    expect(said(r.history)).toEqual(['A muted answer.', 'A spoken answer.']);
    const speaking = all(r.log, 'agent_state_changed').filter((e) => e.newState === 'speaking');
    expect(speaking.every((e) => e.atMs > 7000)).toBe(true);
    expect(all(r.log, 'speech_done').map((e) => e.outcome)).toEqual(['played', 'played']);
    expect(
      all(r.log, 'tts_synthesis')
        .map((e) => e.text)
        .join(''),
    ).toBe('A spoken answer.');
  });
});
