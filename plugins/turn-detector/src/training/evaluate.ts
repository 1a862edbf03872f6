import type { ExampleKind } from './examples.js';

export interface Scored {
  probability: number;
  label: 0 | 1;
  kind: ExampleKind;
}

/** "Complete" is the positive class: a complete turn scored at or above the threshold is answered early. */
export interface Metrics {
  count: number;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  /** Incomplete turns scored at or above the threshold: the user would be cut off after the short delay. */
  falseCutRate: number;
  logLoss: number;
}

export function metricsAt(scored: readonly Scored[], threshold: number): Metrics {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  let loss = 0;
  for (const s of scored) {
    const p = Math.min(Math.max(s.probability, 1e-7), 1 - 1e-7);
    loss -= s.label === 1 ? Math.log(p) : Math.log(1 - p);
    const complete = s.probability >= threshold;
    if (complete && s.label === 1) tp++;
    else if (complete) fp++;
    else if (s.label === 1) fn++;
    else tn++;
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  return {
    count: scored.length,
    accuracy: (tp + tn) / Math.max(1, scored.length),
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    falseCutRate: fp + tn === 0 ? 0 : fp / (fp + tn),
    logLoss: loss / Math.max(1, scored.length),
  };
}

/**
 * The threshold: the lowest one (answering the most complete turns early) whose false-cut rate on
 * `scored` stays at or below `maxFalseCutRate`.
 */
export function chooseThreshold(scored: readonly Scored[], maxFalseCutRate: number): number {
  const negatives = scored
    .filter((s) => s.label === 0)
    .map((s) => s.probability)
    .sort((a, b) => b - a);
  if (negatives.length === 0) return 0.5;
  const allowed = Math.floor(negatives.length * maxFalseCutRate);
  // Above the (allowed+1)-th highest negative score only `allowed` negatives remain.
  const boundary = negatives[Math.min(allowed, negatives.length - 1)] as number;
  return Math.min(0.99, Math.max(0.01, Math.ceil((boundary + 1e-6) * 1e4) / 1e4));
}

export interface KindRow {
  kind: ExampleKind;
  count: number;
  /** Share judged complete (>= threshold). */
  judgedComplete: number;
}

export function byKind(scored: readonly Scored[], threshold: number): KindRow[] {
  const rows = new Map<ExampleKind, { count: number; complete: number }>();
  for (const s of scored) {
    const row = rows.get(s.kind) ?? { count: 0, complete: 0 };
    row.count++;
    if (s.probability >= threshold) row.complete++;
    rows.set(s.kind, row);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, row]) => ({ kind, count: row.count, judgedComplete: row.complete / row.count }));
}
