#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent } from '@voxwire/agents';
import { fuzz, shrinkSeed } from '../fuzz.js';
import { formatInterruptionReport, interruptionReport } from '../interruption-report.js';
import { KNOWN_BUGS } from '../known-bugs.js';
import { rehearse } from '../rehearse.js';
import type { Scenario } from '../scenario.js';

const USAGE = `usage:
  voxwire-testing fuzz --seeds N [--from S] [--no-shrink] [--max-shrink K] [--strict] [--out DIR]
  voxwire-testing rehearse <scenario.json> [--seed S] [--agent file] [--verbose]
  voxwire-testing interruptions`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function runFuzz(args: string[]): Promise<number> {
  const seeds = Number(option(args, '--seeds') ?? 100);
  const from = Number(option(args, '--from') ?? 0);
  const strict = args.includes('--strict');
  const maxShrink = Number(option(args, '--max-shrink') ?? 3);
  const out = option(args, '--out');
  if (!Number.isInteger(seeds) || seeds <= 0 || !Number.isInteger(from)) {
    console.error(USAGE);
    return 2;
  }
  let done = 0;
  const report = await fuzz({
    seeds,
    from,
    known: strict ? [] : KNOWN_BUGS,
    onSeed: (o) => {
      done++;
      if (o.violations.length > 0 && !o.known) {
        console.log(
          `seed ${o.seed}: FAIL ${[...new Set(o.violations.map((v) => v.id))].join(', ')}: ${o.violations[0]!.message}`,
        );
      }
      if (done % 500 === 0) console.error(`… ${done}/${seeds} seeds`);
    },
  });
  const simulatedS = report.simulatedMs / 1000;
  const cpuS = report.cpuMs / 1000;
  console.log('');
  console.log(
    `seeds ${report.from}..${report.from + report.seeds - 1}: ${report.seeds} run, ${report.failures.length} failing, ${report.knownFailures.length} failing only on known engine bugs`,
  );
  if (report.knownFailures.length > 0) {
    const counts = new Map<string, number>();
    for (const f of report.knownFailures)
      for (const id of f.known ?? []) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const [id, n] of counts)
      console.log(`  ${id}: ${n} seeds (${KNOWN_BUGS.find((k) => k.id === id)?.diagnosis ?? ''})`);
  }
  console.log(
    `speed: ${(report.seeds / (report.wallMs / 1000)).toFixed(1)} seeds/s, ${simulatedS.toFixed(0)} simulated s in ${cpuS.toFixed(1)} CPU s = ${Math.round(simulatedS / cpuS)}x real time per CPU second`,
  );
  if (report.failures.length === 0) return 0;
  if (!args.includes('--no-shrink')) {
    for (const failure of report.failures.slice(0, maxShrink)) {
      const ids = [...new Set(failure.violations.map((v) => v.id))];
      const shrunk = await shrinkSeed(failure.seed, ids);
      const json = JSON.stringify(shrunk, null, 2);
      console.log(`\nseed ${failure.seed} (${ids.join(', ')}) shrunk to:\n${json}`);
      if (out) writeFileSync(resolve(out, `seed-${failure.seed}.json`), `${json}\n`);
    }
  }
  return 1;
}

async function loadAgent(file: string): Promise<() => Agent> {
  const mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  const value = mod.default ?? mod.agent ?? mod.createAgent;
  if (value instanceof Agent) return () => value;
  if (typeof value === 'function') {
    return () => {
      const made = (value as () => unknown)();
      if (!(made instanceof Agent)) throw new TypeError(`${file}: the factory did not return an Agent`);
      return made;
    };
  }
  throw new TypeError(
    `${file}: export an Agent (or a function returning one) as default, "agent" or "createAgent"`,
  );
}

async function runRehearse(args: string[]): Promise<number> {
  const file = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (!file) {
    console.error(USAGE);
    return 2;
  }
  const scenario = JSON.parse(readFileSync(file, 'utf8')) as Scenario;
  const agentFile = option(args, '--agent');
  const { timeline, result } = await rehearse(scenario, {
    seed: Number(option(args, '--seed') ?? 0),
    verbose: args.includes('--verbose'),
    ...(agentFile ? { agent: await loadAgent(agentFile) } : {}),
  });
  console.log(timeline);
  return result.violations.length === 0 ? 0 : 1;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'fuzz') return runFuzz(args);
  if (command === 'rehearse') return runRehearse(args);
  if (command === 'interruptions') {
    // Backchannels and barge-ins over a long reply, per way of deciding interruptions.
    console.log(formatInterruptionReport(await interruptionReport()));
    return 0;
  }
  console.error(USAGE);
  return 2;
}
