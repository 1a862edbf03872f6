// The simulation speed of two builds measured side by side in one process (ab.mjs runs it on two
// checkouts): the speed mode's conversation run by each in turn, alternating which goes first, so both
// builds meet the same machine at the same moments, which two separate runs on this shared VM do not.
import { createReference, quietRuns } from './interference.mjs';
import { conversation } from './sim-scenario.mjs';

/**
 * `next` and `previous` are the two builds' `@voxwire/testing` modules. Returns the medians of each
 * build's CPU ms per run and of the pairs' next/previous ratio, over all pairs and over the pairs the
 * reference workload found undisturbed (interference.mjs).
 */
export async function compareBuilds(next, previous, { pairs = 150, warmupPairs = 100, seconds = 160 } = {}) {
  const scenario = conversation(seconds);
  const cpuMsOf = async (testing) => {
    const started = process.cpuUsage();
    const result = await testing.simulate(scenario);
    const used = process.cpuUsage(started);
    if (result.violations.length > 0) throw new Error(`${result.violations.length} invariant violations`);
    return (used.user + used.system) / 1000;
  };
  const reference = createReference();
  for (let i = 0; i < warmupPairs; i++) {
    reference();
    await cpuMsOf(next);
    await cpuMsOf(previous);
  }
  const rows = [];
  let before = reference();
  for (let i = 0; i < pairs; i++) {
    const nextFirst = i % 2 === 0;
    const first = nextFirst ? await cpuMsOf(next) : await cpuMsOf(previous);
    const second = nextFirst ? await cpuMsOf(previous) : await cpuMsOf(next);
    const after = reference();
    rows.push({
      nextMs: nextFirst ? first : second,
      previousMs: nextFirst ? second : first,
      referenceBeforeMs: before,
      referenceAfterMs: after,
    });
    before = after;
  }
  const { quiet, interference } = quietRuns(rows);
  return { all: summary(rows), undisturbed: summary(quiet), interference };
}

function summary(rows) {
  if (rows.length === 0) return undefined;
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  return {
    pairs: rows.length,
    nextMsMedian: median(rows.map((r) => r.nextMs)),
    previousMsMedian: median(rows.map((r) => r.previousMs)),
    nextOverPreviousMedian: median(rows.map((r) => r.nextMs / r.previousMs)),
  };
}
