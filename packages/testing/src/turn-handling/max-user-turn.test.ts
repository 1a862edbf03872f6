import { describe, expect, it } from 'vitest';
import type { AgentSpec, Scenario } from '../scenario.js';
import { all, run, said } from './helpers.js';

// Issue #19: `turnHandling.maxUserTurnDuration` and the agent's `onUserTurnExceeded` hook.
const MONOLOGUE =
  's0z and then I went to the shop and then I saw my friend and then we talked about the weather';

function monologue(agent: AgentSpec, overrides: Partial<Scenario> = {}): Scenario {
  return {
    session: { turnHandling: { maxUserTurnDuration: 3000 } },
    agents: [agent],
    vad: { minSpeechMs: 100, minSilenceMs: 400 },
    stt: { finalDelayMs: 200, interimIntervalMs: 300 },
    user: [{ startMs: 1000, endMs: 9000, transcript: MONOLOGUE }],
    llm: { fallback: { ttftMs: 200, text: 'Let me stop you there.' } },
    ...overrides,
  };
}

describe('maxUserTurnDuration (issue #19)', () => {
  it('the hook may speak over a user who talks too long; the turn is still answered at its end', async () => {
    const r = await run(
      monologue(
        { name: 'assistant', onUserTurnExceeded: { say: 'Sorry to cut in.', allowInterruptions: false } },
        { session: { turnHandling: { maxUserTurnDuration: 3000, discardAudioIfUninterruptible: false } } },
      ),
    );
    const vadStart = all(r.log, 'vad_start_of_speech')[0]!;
    const exceeded = all(r.log, 'user_turn_exceeded');
    expect(exceeded).toEqual([
      expect.objectContaining({ atMs: vadStart.atMs + 3000, durationMs: 3000, userSpeaking: true }),
    ]);
    expect(exceeded[0]!.transcript).toMatch(/^s0z and then/);
    const says = all(r.log, 'speech_created').filter((e) => e.source === 'say');
    expect(says.map((e) => [e.atMs, e.allowInterruptions])).toEqual([[vadStart.atMs + 3000, false]]);
    expect(all(r.log, 'speech_done').find((e) => e.speechId === says[0]!.speechId)?.outcome).toBe('played');
    expect(r.framesBySpeech[says[0]!.speechId]![0]!.atMs).toBeLessThan(9000);
    expect(said(r.history)).toEqual(['Sorry to cut in.', 'Let me stop you there.']);
    expect(said(r.history, 'user')).toEqual([MONOLOGUE]);
  });

  it('the hook may answer what was said so far: the turn is committed at the limit', async () => {
    const r = await run(
      monologue(
        { name: 'assistant', onUserTurnExceeded: 'commit' },
        { user: [{ startMs: 1000, endMs: 4500, transcript: MONOLOGUE }] },
      ),
    );
    const exceededAt = all(r.log, 'user_turn_exceeded')[0]!.atMs;
    const commits = all(r.log, 'user_turn_committed');
    expect(commits[0]!.atMs).toBe(exceededAt);
    expect(commits[0]!.transcript.length).toBeLessThan(MONOLOGUE.length);
    expect(all(r.log, 'reply_started')[0]!.turnId).toBe(commits[0]!.turnId);
  });

  it('by default the agent keeps listening, and the limit counts once per turn', async () => {
    const r = await run(monologue({ name: 'assistant' }));
    expect(all(r.log, 'user_turn_exceeded')).toHaveLength(1);
    expect(all(r.log, 'turn_exceeded_hook').map((e) => e.decision)).toEqual(['listen']);
    const commits = all(r.log, 'user_turn_committed');
    expect(commits.map((c) => c.transcript)).toEqual([MONOLOGUE]);
    expect(commits[0]!.atMs).toBeGreaterThan(9000);
    expect(said(r.history)).toEqual(['Let me stop you there.']);
  });
});
