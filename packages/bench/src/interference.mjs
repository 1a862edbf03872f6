// How much the machine's other tenants slow this process down, from a fixed reference workload timed
// between runs. On this shared VM a fixed workload's CPU time swings by up to 1.9x for seconds at a time
// (the host's other guests contend for the same cores and caches), so an absolute CPU figure read at
// such a moment measures them as much as the code. The CPU ratios against LiveKit cancel it by
// alternating the two; the simulation speed, an absolute figure, judges only the runs the reference
// workload, timed right before and right after, found the machine at its usual speed.

/** A run counts as undisturbed when both references beside it took at most this much more than their best. */
export const QUIET_TOLERANCE = 0.2;

const TABLE_SIZE = 1 << 18;

/**
 * Times one pass of a fixed workload, in CPU ms (about 1.5 ms on this VM when undisturbed). Scattered
 * reads and writes over 1 MiB with no allocation: sensitive to the caches other tenants share, and it
 * leaves no garbage to change the heap the measured runs find.
 */
export function createReference() {
  const table = new Int32Array(TABLE_SIZE);
  const mask = TABLE_SIZE - 1;
  // Writes into a table that outlives the pass: the loop has an effect and cannot be optimized away.
  return () => {
    const started = process.cpuUsage();
    let x = 1;
    let acc = 0;
    for (let i = 0; i < 400_000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) | 0;
      const k = (x >>> 8) & mask;
      table[k] += i;
      acc ^= table[(k * 31) & mask];
    }
    table[0] = acc;
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
}

/**
 * Splits measured runs by what the reference saw around each: `runs` carry `referenceBeforeMs` and
 * `referenceAfterMs`. The reference's best over the whole measurement is the machine undisturbed.
 */
export function quietRuns(runs, tolerance = QUIET_TOLERANCE) {
  const references = runs.flatMap((r) => [r.referenceBeforeMs, r.referenceAfterMs]);
  if (references.length === 0) return { quiet: [], referenceBestMs: undefined, interference: undefined };
  const best = Math.min(...references);
  const limit = best * (1 + tolerance);
  const quiet = runs.filter((r) => r.referenceBeforeMs <= limit && r.referenceAfterMs <= limit);
  const sorted = [...references].sort((a, b) => a - b);
  return {
    quiet,
    referenceBestMs: best,
    // How much slower the reference ran than its best, at the median: 1 on a machine to itself.
    interference: sorted[Math.floor(sorted.length / 2)] / best,
  };
}
