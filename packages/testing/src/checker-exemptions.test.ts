import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatViolations } from './invariants/index.js';
import type { Scenario } from './scenario.js';
import { simulate } from './simulate.js';

// Timelines the fuzzer flagged where the engine did what INVARIANTS.md allows: the checker now follows
// the rule as written. Each stays as a scenario so the exemption cannot widen unnoticed.
const DIR = join(import.meta.dirname, '..', 'scenarios', 'regressions');

async function check(name: string) {
  const scenario = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Scenario;
  const result = await simulate(scenario);
  expect(formatViolations(result.violations, result.log)).toBe('no violations');
  return result;
}

describe('checker rules as INVARIANTS.md states them', () => {
  it('S13: the late final of a visibly skipped backchannel turn is not a lost word', async () => {
    const r = await check('chk1-late-final-of-skipped-backchannel');
    const skipped = r.log.filter((e) => e.type === 'user_turn_skipped');
    expect(skipped.map((e) => ('reason' in e ? e.reason : ''))).toContain('backchannel');
  });

  it('L6: a pause waits for an end-of-turn decision that a late final started after the user stopped', async () => {
    const r = await check('chk2-pause-held-by-late-stt-endpointing');
    const started = r.log.filter((e) => e.type === 'endpointing_started');
    expect(started.length).toBeGreaterThan(0);
    const resolved = r.log.find(
      (e) => (e.type === 'speech_resumed' || e.type === 'speech_interrupted') && 'speechId' in e,
    );
    expect(resolved).toBeDefined();
  });
});
