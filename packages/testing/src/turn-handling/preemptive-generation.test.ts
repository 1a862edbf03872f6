import { describe, expect, it } from 'vitest';
import type { Scenario } from '../scenario.js';
import type { SimulationResult } from '../simulate.js';
import { all, run, said } from './helpers.js';

// Issue #19: `turnHandling.preemptiveGeneration` starts the LLM on a final transcript before the commit.
function question(preemptiveGeneration: boolean, overrides: Partial<Scenario> = {}): Scenario {
  return {
    session: { turnHandling: { preemptiveGeneration, minEndpointingDelay: 800 } },
    vad: { minSpeechMs: 100, minSilenceMs: 400 },
    stt: { finalDelayMs: 200, interimIntervalMs: 300 },
    user: [{ startMs: 1000, endMs: 2000, transcript: 's0z what time is it' }],
    llm: {
      replies: [{ match: { user: 's0z' }, ttftMs: 300, text: "It's noon." }],
      fallback: { ttftMs: 300, text: 'Go on.' },
    },
    ...overrides,
  };
}

/** From the end of the user's speech to the first frame of the reply to it. */
function latency(r: SimulationResult, speechId = 'speech_1'): number {
  return r.framesBySpeech[speechId]![0]!.atMs - 2000;
}

describe('preemptive generation (issue #19)', () => {
  it('off by default; on, the reply streams the request made at the final transcript, earlier', async () => {
    const off = await run(question(false));
    const on = await run(question(true));
    expect(all(off.log, 'preemptive_generation_started')).toEqual([]);
    const started = all(on.log, 'preemptive_generation_started');
    expect(started.map((e) => [e.atMs, e.transcript])).toEqual([[2200, 's0z what time is it']]);
    expect(all(on.log, 'preemptive_generation_used').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(said(on.history)).toEqual(said(off.history));
    // The request started at the final (2200 ms) instead of the commit (2800 ms); its first token (300 ms
    // later) was ready before the commit, so the reply starts speaking the whole TTFT earlier.
    console.log(
      `end of speech -> first audio: ${latency(off)} ms without, ${latency(on)} ms with preemptive generation`,
    );
    expect(latency(off) - latency(on)).toBe(300);
  });

  it("starts on the recognizer's eager end of turn (a preflight transcript), before the final", async () => {
    const eager = question(true, {
      user: [
        {
          startMs: 1000,
          endMs: 2000,
          transcript: 's0z what time is it',
          sttDelayMs: 600,
          sttPreflightMs: 250,
        },
      ],
    });
    const r = await run(eager);
    const started = all(r.log, 'preemptive_generation_started');
    // The final comes 600 ms after the speech; the eager end of turn 250 ms after it.
    expect(started.map((e) => [e.atMs, e.transcript])).toEqual([[2250, 's0z what time is it']]);
    expect(all(r.log, 'preemptive_generation_used').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(all(r.log, 'user_turn_committed').map((e) => e.transcript)).toEqual(['s0z what time is it']);
    expect(said(r.history)).toEqual(["It's noon."]);
    // The preflight ends nothing: the turn still commits at the min delay after the speech.
    expect(all(r.log, 'user_turn_committed')[0]!.atMs).toBe(2800);
  });

  it('the user going on discards it; the next final starts it again, and the turn gets one reply', async () => {
    const r = await run(
      question(true, {
        user: [
          { startMs: 1000, endMs: 2000, transcript: 's0z what time is it' },
          { startMs: 2500, endMs: 3200, transcript: 'in tokyo' },
        ],
      }),
    );
    expect(all(r.log, 'preemptive_generation_discarded').map((e) => e.reason)).toContain('user_went_on');
    expect(all(r.log, 'speech_created')).toHaveLength(1);
    expect(all(r.log, 'user_turn_committed').map((e) => e.transcript)).toEqual([
      's0z what time is it in tokyo',
    ]);
    expect(all(r.log, 'preemptive_generation_used').map((e) => e.speechId)).toEqual(['speech_1']);
    expect(said(r.history)).toEqual(["It's noon."]);
  });

  it('a skipped turn discards its request, which holds nothing', async () => {
    const r = await run(question(true, { agents: [{ name: 'assistant', skipTurnsContaining: ['time'] }] }));
    expect(all(r.log, 'preemptive_generation_discarded').map((e) => e.reason)).toEqual(['turn_skipped']);
    expect(all(r.log, 'speech_created')).toEqual([]);
    expect(said(r.history)).toEqual([]);
  });
});
