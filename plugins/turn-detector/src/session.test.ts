import type { ChatItem } from '@voxwire/agents';
import {
  type EntryOf,
  formatViolations,
  type Scenario,
  type SimulationResult,
  simulate,
} from '@voxwire/testing';
import { describe, expect, it } from 'vitest';
import { EndOfTurnModel } from './detector.js';
import { ENDPOINTING_PRESET } from './preset.js';

/** VAD-only endpointing at LiveKit's defaults: 550 ms of silence, then 500 ms. */
const VAD_ONLY = {
  vad: { minSilenceMs: 550 },
  session: { turnHandling: { minEndpointingDelay: 500, maxEndpointingDelay: 3000 } },
};
const WITH_MODEL = {
  vad: { minSilenceMs: ENDPOINTING_PRESET.vadMinSilenceDurationMs },
  session: { turnHandling: { ...ENDPOINTING_PRESET.turnHandling } },
};

function scenario(base: Pick<Scenario, 'vad' | 'session'>, user: Scenario['user'], reply: string): Scenario {
  return {
    ...base,
    stt: { finalDelayMs: 150 },
    user,
    llm: { fallback: { text: reply, ttftMs: 100 } },
  };
}

async function run(s: Scenario, withModel: boolean): Promise<SimulationResult> {
  const result = await simulate(s, withModel ? { turnDetector: await EndOfTurnModel.load() } : {});
  expect(formatViolations(result.violations, result.log)).toBe('no violations');
  return result;
}

function commits(r: SimulationResult): Array<EntryOf<'user_turn_committed'>> {
  return r.log.filter((e): e is EntryOf<'user_turn_committed'> => e.type === 'user_turn_committed');
}

function speakingAt(r: SimulationResult): number {
  const speaking = r.log.find((e) => e.type === 'agent_state_changed' && e.newState === 'speaking');
  expect(speaking).toBeDefined();
  return speaking!.atMs;
}

function userTurns(history: readonly ChatItem[]): string[] {
  return history
    .filter((i): i is Extract<ChatItem, { type: 'message' }> => i.type === 'message' && i.role === 'user')
    .map((i) => i.content.join(''));
}

describe('a session endpointing with the bundled model', () => {
  const complete = [{ startMs: 500, endMs: 2000, transcript: "I'd like a large latte, please." }];

  it('commits a complete turn sooner than VAD-only endpointing does', async () => {
    const slow = await run(scenario(VAD_ONLY, complete, 'Coming up.'), false);
    const baseline = commits(slow)[0]!;
    const fast = await run(scenario(WITH_MODEL, complete, 'Coming up.'), true);
    const commit = commits(fast)[0]!;
    expect(commit.lastSpeechMs).toBe(2000);
    // The model judged it complete: committed once the VAD heard the silence (200 ms, plus the
    // detection lag of its windows) and the 250 ms minimum delay, under the 300 ms goal.
    expect(commit.atMs - 2000).toBeLessThan(300);
    expect(baseline.atMs - 2000).toBeGreaterThanOrEqual(550);
    expect(commit.atMs).toBeLessThan(baseline.atMs - 250);
    // And so the reply: the agent starts speaking as much sooner.
    expect(speakingAt(fast)).toBeLessThan(speakingAt(slow) - 250);
    const prediction = fast.log.find((e) => e.type === 'end_of_turn_prediction');
    expect(prediction).toMatchObject({ delayMs: ENDPOINTING_PRESET.turnHandling.minEndpointingDelay });
  });

  it('does not cut off "I\'d like to order, um" during a pause that VAD-only endpointing would cut', async () => {
    const paused = [
      { startMs: 500, endMs: 1800, transcript: "I'd like to order, um" },
      { startMs: 3000, endMs: 4200, transcript: 'a large latte, please.' },
    ];
    const baseline = await run(scenario(VAD_ONLY, paused, 'Sure.'), false);
    // Silence alone commits the first half: the user is cut off.
    expect(userTurns(baseline.history)[0]).toBe("I'd like to order, um");
    const r = await run(scenario(WITH_MODEL, paused, 'Sure.'), true);
    expect(userTurns(r.history)).toEqual(["I'd like to order, um a large latte, please."]);
    const [commit] = commits(r);
    expect(commit!.lastSpeechMs).toBe(4200);
    expect(commit!.atMs - 4200).toBeLessThan(300);
    const first = r.log.find((e) => e.type === 'end_of_turn_prediction');
    expect(first).toMatchObject({ delayMs: ENDPOINTING_PRESET.turnHandling.maxEndpointingDelay });
  });
});
