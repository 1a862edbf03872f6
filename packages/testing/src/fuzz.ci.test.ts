import { describe, expect, it } from 'vitest';
import { fuzz } from './fuzz.js';
import { formatViolations } from './invariants/index.js';
import { KNOWN_BUGS } from './known-bugs.js';

/** The CI slice of the fuzzer: fixed seeds, so a red run names a seed anyone can replay. */
const SEEDS = Number(process.env.VOXWIRE_CI_SEEDS ?? 500);
const FROM = Number(process.env.VOXWIRE_CI_FROM ?? 0);

describe('generated scenarios', () => {
  it(`${SEEDS} seeds from ${FROM} keep every invariant, known engine bugs aside`, async () => {
    const report = await fuzz({ seeds: SEEDS, from: FROM, known: KNOWN_BUGS });
    const known = new Map<string, number>();
    for (const f of report.knownFailures)
      for (const id of f.known ?? []) known.set(id, (known.get(id) ?? 0) + 1);
    console.log(
      `fuzz: ${report.seeds} seeds, ${report.failures.length} failing, ${report.knownFailures.length} failing only on known engine bugs (${[...known].map(([id, n]) => `${id}: ${n}`).join(', ') || 'none'}); ${Math.round(report.simulatedMs / report.cpuMs)}x real time per CPU second`,
    );
    const unexplained = report.failures.map((f) => `seed ${f.seed}: ${formatViolations(f.violations)}`);
    expect(unexplained).toEqual([]);
    expect(report.seeds).toBe(SEEDS);
  }, 170_000);
});
