import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import { FIXED_BUGS, KNOWN_BUGS } from './known-bugs.js';
import type { Scenario } from './scenario.js';
import { simulate } from './simulate.js';

const ROOT = join(import.meta.dirname, '..');

function load(path: string): Scenario {
  return JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Scenario;
}

describe('engine bugs found by the simulator, now fixed: their minimal scenarios stay green', () => {
  for (const bug of FIXED_BUGS) {
    it(`${bug.id} (${bug.invariant}): ${bug.diagnosis}`, async () => {
      const result = await simulate(load(bug.scenario));
      expect(formatViolations(result.violations, result.log)).toBe('no violations');
      expect(result.history.length).toBeGreaterThan(0);
    });
  }
});

// Open engine bugs: each must still reproduce its signature, and is expected to break an invariant.
describe.skipIf(KNOWN_BUGS.length === 0)('open engine bugs (it.fails until the engine is fixed)', () => {
  for (const bug of KNOWN_BUGS) {
    it(`${bug.id} reproduces its signature (${bug.invariant})`, async () => {
      const { violations } = await simulate(load(bug.scenario!));
      expect(violations.some((v) => v.id === bug.invariant && bug.pattern.test(v.message))).toBe(true);
    });
    it.fails(`${bug.id} keeps every invariant: ${bug.diagnosis}`, async () => {
      const { violations } = await simulate(load(bug.scenario!));
      expect(formatViolations(violations)).toBe('no violations');
    });
  }
});
