import { readFileSync } from 'node:fs';
import { CliError } from './errors.js';
import type { Output } from './output.js';

export interface RehearseOptions {
  scenario: string;
  seed: number;
  verbose: boolean;
}

export interface RehearseModule {
  rehearse?: (
    scenario: unknown,
    options: { seed?: number; verbose?: boolean },
  ) => Promise<{ timeline: string; result: { violations: unknown[] } }>;
}

/**
 * `voxwire rehearse`: replays a conversation scenario on virtual time with `@voxwire/testing` and prints
 * its timeline and any broken invariant. Exits 1 when an invariant is broken. `load` stands in for
 * `@voxwire/testing` in tests.
 */
export async function runRehearse(
  options: RehearseOptions,
  out: Output,
  load: () => Promise<RehearseModule> = () => import('@voxwire/testing') as Promise<RehearseModule>,
): Promise<number> {
  const scenario = readScenario(options.scenario);
  let testing: RehearseModule;
  try {
    testing = await load();
  } catch {
    testing = {};
  }
  if (typeof testing.rehearse !== 'function') {
    throw new CliError(
      'voxwire rehearse is not yet available: it needs rehearse() from @voxwire/testing, which is not released yet. ' +
        'Meanwhile, run the scenario with the simulate() function of @voxwire/testing in a test.',
      { exitCode: 2 },
    );
  }
  let outcome: Awaited<ReturnType<NonNullable<RehearseModule['rehearse']>>>;
  try {
    outcome = await testing.rehearse(scenario, { seed: options.seed, verbose: options.verbose });
  } catch (error) {
    // The scenario's validation names the field at fault ("user[0]: needs 0 <= startMs < endMs"): that
    // sentence is what the author needs, not the simulator's stack.
    throw new CliError(
      `The scenario ${options.scenario} is malformed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  out.info(outcome.timeline);
  const broken = outcome.result.violations.length;
  if (broken > 0)
    out.error(`${broken} invariant${broken === 1 ? ' was' : 's were'} broken (see "violations" above).`);
  return broken === 0 ? 0 : 1;
}

function readScenario(path: string): unknown {
  let scenario: unknown;
  try {
    scenario = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read the scenario ${path}: ${(error as Error).message}`);
  }
  if (typeof scenario !== 'object' || scenario === null || Array.isArray(scenario)) {
    throw new CliError(
      `The scenario ${path} is malformed: expected a JSON object (see packages/testing/README.md), got ${
        Array.isArray(scenario) ? 'an array' : scenario === null ? 'null' : typeof scenario
      }.`,
    );
  }
  return scenario;
}
