import { generateScenario, type GeneratorOptions } from './generator.js';
import type { Violation } from './invariants/index.js';
import type { Scenario } from './scenario.js';
import { shrinkScenario } from './shrink.js';
import { simulate } from './simulate.js';

/** A known engine bug: violations matching it are counted and reported, not failed. */
export interface KnownBug {
  id: string;
  invariant: string;
  /** Matched against the violation message. */
  pattern: RegExp;
  scenario?: string;
  diagnosis: string;
}

export interface SeedOutcome {
  seed: number;
  violations: Violation[];
  /** Known bug ids matching every violation, when all of them are known. */
  known: string[] | undefined;
  simulatedMs: number;
}

export interface FuzzOptions {
  seeds: number;
  from?: number;
  generator?: GeneratorOptions;
  known?: readonly KnownBug[];
  onSeed?(outcome: SeedOutcome): void;
}

export interface FuzzReport {
  seeds: number;
  from: number;
  failures: SeedOutcome[];
  knownFailures: SeedOutcome[];
  simulatedMs: number;
  cpuMs: number;
  wallMs: number;
}

/** Which known bugs explain all of these violations (undefined when one is unexplained). */
export function classify(violations: readonly Violation[], known: readonly KnownBug[]): string[] | undefined {
  const ids = new Set<string>();
  for (const v of violations) {
    const bug = known.find((k) => k.invariant === v.id && k.pattern.test(v.message));
    if (!bug) return undefined;
    ids.add(bug.id);
  }
  return [...ids];
}

export async function runSeed(
  seed: number,
  options: Pick<FuzzOptions, 'generator' | 'known'> = {},
): Promise<SeedOutcome> {
  const scenario = generateScenario(seed, options.generator);
  const result = await simulate(scenario, { seed });
  const known = result.violations.length > 0 ? classify(result.violations, options.known ?? []) : undefined;
  return { seed, violations: result.violations, known, simulatedMs: result.simulatedMs };
}

/** Runs generated scenarios for consecutive seeds; reports failures and speed. */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const from = options.from ?? 0;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const report: FuzzReport = {
    seeds: 0,
    from,
    failures: [],
    knownFailures: [],
    simulatedMs: 0,
    cpuMs: 0,
    wallMs: 0,
  };
  for (let seed = from; seed < from + options.seeds; seed++) {
    const outcome = await runSeed(seed, options);
    report.seeds++;
    report.simulatedMs += outcome.simulatedMs;
    if (outcome.violations.length > 0) (outcome.known ? report.knownFailures : report.failures).push(outcome);
    options.onSeed?.(outcome);
  }
  const cpu = process.cpuUsage(cpu0);
  report.cpuMs = (cpu.user + cpu.system) / 1000;
  report.wallMs = performance.now() - wall0;
  return report;
}

/** Shrinks the scenario of a failing seed to a minimal one that still violates the same invariant(s). */
export async function shrinkSeed(
  seed: number,
  ids?: readonly string[],
  generator?: GeneratorOptions,
): Promise<Scenario> {
  const original = generateScenario(seed, generator);
  const target = new Set(ids ?? (await simulate(original, { seed })).violations.map((v) => v.id));
  const { scenario } = await shrinkScenario(original, async (candidate) => {
    const r = await simulate(candidate, { seed });
    return r.violations.some((v) => target.has(v.id));
  });
  return {
    ...scenario,
    name: `seed-${seed}-shrunk`,
    description: `Shrunk from fuzz seed ${seed}; violates ${[...target].join(', ')}.`,
  };
}
