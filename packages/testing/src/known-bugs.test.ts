import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import { KNOWN_BUGS } from './known-bugs.js';
import type { Scenario } from './scenario.js';
import { simulate } from './simulate.js';

const ROOT = join(import.meta.dirname, '..');

describe('known engine bugs (each scenario reproduces one; it.fails until the engine is fixed)', () => {
  for (const bug of KNOWN_BUGS) {
    const scenario = JSON.parse(readFileSync(join(ROOT, bug.scenario!), 'utf8')) as Scenario;

    it(`${bug.id} reproduces its signature (${bug.invariant})`, async () => {
      const { violations } = await simulate(scenario);
      expect(violations.some((v) => v.id === bug.invariant && bug.pattern.test(v.message))).toBe(true);
    });

    // Engine bug (see KNOWN_BUGS): remove the entry and this marker once the engine passes.
    it.fails(`${bug.id} keeps every invariant: ${bug.diagnosis}`, async () => {
      const result = await simulate(scenario);
      expect(formatViolations(result.violations)).toBe('no violations');
    });
  }
});
