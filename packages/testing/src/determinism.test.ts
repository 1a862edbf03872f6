import { describe, expect, it } from 'vitest';
import { generateScenario } from './generator.js';
import { serializeLog } from './log.js';
import { Rng } from './prng.js';
import { shrinkScenario } from './shrink.js';
import { simulate } from './simulate.js';

describe('determinism', () => {
  it('the same scenario and seed give a byte-identical log', async () => {
    for (const seed of [3, 17, 42]) {
      const scenario = generateScenario(seed);
      const a = await simulate(scenario, { seed });
      const b = await simulate(structuredClone(scenario), { seed });
      expect(serializeLog(a.log)).toBe(serializeLog(b.log));
      expect(JSON.stringify(a.history)).toBe(JSON.stringify(b.history));
    }
  });

  it('jitter follows the seed', async () => {
    const scenario = { ...generateScenario(8, { faults: false, actions: false }), jitter: 0.3 };
    const a = await simulate(scenario, { seed: 1 });
    const again = await simulate(scenario, { seed: 1 });
    const other = await simulate(scenario, { seed: 2 });
    expect(serializeLog(again.log)).toBe(serializeLog(a.log));
    expect(serializeLog(other.log)).not.toBe(serializeLog(a.log));
  });

  it('the generator is a pure function of the seed, and seeds differ', () => {
    expect(generateScenario(123)).toEqual(generateScenario(123));
    expect(JSON.stringify(generateScenario(123))).not.toBe(JSON.stringify(generateScenario(124)));
    const json = JSON.stringify(generateScenario(5));
    expect(JSON.parse(json)).toEqual(generateScenario(5));
  });

  it('the PRNG replays and stays in range', () => {
    const a = new Rng(9);
    const b = new Rng(9);
    const xs = Array.from({ length: 1000 }, () => a.next());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b.next()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs.map((x) => Math.floor(x * 10))).size).toBe(10);
  });
});

describe('shrinking', () => {
  it('finds a minimal scenario that keeps failing', async () => {
    const scenario = generateScenario(11, { faults: false, actions: false });
    // A synthetic failure: any scenario whose user says something with "s1z".
    const fails = async (s: typeof scenario): Promise<boolean> =>
      (s.user ?? []).some((u) => u.transcript.includes('s1z'));
    expect(await fails(scenario)).toBe(true);
    const { scenario: small, steps } = await shrinkScenario(scenario, fails);
    expect(steps).toBeGreaterThan(0);
    expect(small.user).toHaveLength(1);
    expect(small.user![0]!.transcript).toContain('s1z');
    expect(small.tools ?? []).toEqual([]);
    expect(small.llm?.replies ?? []).toEqual([]);
  });
});
