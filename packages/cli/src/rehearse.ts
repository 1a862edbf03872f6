import { readFileSync } from 'node:fs';
import { CliError } from './errors.js';
import type { Output } from './output.js';

export interface RehearseOptions {
  scenario: string;
  seed: number;
  verbose: boolean;
}

interface RehearseModule {
  rehearse?: (
    scenario: unknown,
    options: { seed?: number; verbose?: boolean },
  ) => Promise<{ timeline: string; result: { violations: unknown[] } }>;
}

/**
 * `voxwire rehearse`: replays a conversation scenario on virtual time with `@voxwire/testing` and prints
 * its timeline and any broken invariant. Exits 1 when an invariant is broken.
 */
export async function runRehearse(options: RehearseOptions, out: Output): Promise<number> {
  let scenario: unknown;
  try {
    scenario = JSON.parse(readFileSync(options.scenario, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read the scenario ${options.scenario}: ${(error as Error).message}`);
  }
  let testing: RehearseModule;
  try {
    testing = (await import('@voxwire/testing')) as RehearseModule;
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
  const { timeline, result } = await testing.rehearse(scenario, {
    seed: options.seed,
    verbose: options.verbose,
  });
  out.info(timeline);
  return result.violations.length === 0 ? 0 : 1;
}
