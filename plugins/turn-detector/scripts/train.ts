/**
 * Trains the bundled end-of-turn model and writes it to model/ (or --out):
 *
 *   pnpm --filter @voxwire/plugin-turn-detector train --data <dir>
 *
 * <dir> holds the dataset repositories checked out from GitHub (see src/training/corpus.ts). Same data
 * and seed, same model: the order of files, dialogues and examples and every random draw are fixed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FEATURE_VERSION, words } from '../src/features.js';
import type { TurnModelConfig } from '../src/model-config.js';
import { encodeTurnModel } from '../src/onnx/turn-graph.js';
import { readCorpora, type Split } from '../src/training/corpus.js';
import {
  DEFAULT_EXAMPLE_SETTINGS,
  dialogueExamples,
  EVALUATION_EXAMPLE_SETTINGS,
  type Example,
  type ExampleSettings,
  wholeUserTurns,
} from '../src/training/examples.js';
import { byKind, chooseThreshold, metricsAt, type Scored } from '../src/training/evaluate.js';
import { SeededRandom } from '../src/training/rng.js';
import { syntheticExamples } from '../src/training/synthetic.js';
import {
  cloneWeights,
  featureTable,
  initialWeights,
  rowOf,
  train,
  type FeatureTable,
} from '../src/training/trainer.js';
import { forward, type TurnModelWeights } from '../src/weights.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    out: { type: 'string', default: new URL('../model', import.meta.url).pathname },
    name: { type: 'string', default: 'turn-detector-en' },
    seed: { type: 'string', default: '17' },
    epochs: { type: 'string', default: '2' },
    buckets: { type: 'string', default: String(1 << 16) },
    'embedding-size': { type: 'string', default: '12' },
    'hidden-size': { type: 'string', default: '16' },
    'learning-rate': { type: 'string', default: '0.08' },
    'max-false-cut': { type: 'string', default: '0.05' },
    synthetic: { type: 'string', default: '12000' },
    'function-word-cut-weight': {
      type: 'string',
      default: String(DEFAULT_EXAMPLE_SETTINGS.functionWordCutWeight),
    },
    'question-mark-kept': { type: 'string', default: String(DEFAULT_EXAMPLE_SETTINGS.questionMarkKept) },
    'question-both-forms': {
      type: 'string',
      default: String(DEFAULT_EXAMPLE_SETTINGS.questionBothForms),
    },
    'inner-filler-share': { type: 'string', default: String(DEFAULT_EXAMPLE_SETTINGS.innerFillerShare) },
    'fragment-share': { type: 'string', default: String(DEFAULT_EXAMPLE_SETTINGS.fragmentShare) },
    'second-cut-share': { type: 'string', default: String(DEFAULT_EXAMPLE_SETTINGS.secondCutShare) },
    'tail-share': { type: 'string', default: String(DEFAULT_EXAMPLE_SETTINGS.tailShare) },
    l2: { type: 'string', default: '0' },
  },
});
if (!values.data) {
  console.error(
    'usage: train --data <dir with dstc8-schema-guided-dialogue/ and/or Taskmaster/> [--out model/]',
  );
  process.exit(2);
}
const seed = Number(values.seed);
const settings = {
  buckets: Number(values.buckets),
  embeddingSize: Number(values['embedding-size']),
  hiddenSize: Number(values['hidden-size']),
  epochs: Number(values.epochs),
  learningRate: Number(values['learning-rate']),
  l2: Number(values.l2),
};
const started = Date.now();
const log = (message: string): void =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${message}`);

const dialogues = readCorpora(resolve(values.data));
const rng = new SeededRandom(seed);
// The dev and test examples come from their own generator and fixed settings, so that recipes which
// differ in their training examples are judged on the very same held-out examples.
const evaluationRng = new SeededRandom(seed + 1_000_003);
const wholeTurns = wholeUserTurns(dialogues);
const exampleSettings: ExampleSettings = {
  functionWordCutWeight: Number(values['function-word-cut-weight']),
  questionMarkKept: Number(values['question-mark-kept']),
  questionBothForms: Number(values['question-both-forms']),
  innerFillerShare: Number(values['inner-filler-share']),
  fragmentShare: Number(values['fragment-share']),
  secondCutShare: Number(values['second-cut-share']),
  tailShare: Number(values['tail-share']),
};
const splits: Record<Split, Example[]> = { train: [], dev: [], test: [] };
const sources: Record<string, number> = {};
for (const dialogue of dialogues) {
  sources[`${dialogue.source}/${dialogue.split}`] =
    (sources[`${dialogue.source}/${dialogue.split}`] ?? 0) + 1;
  splits[dialogue.split].push(
    ...(dialogue.split === 'train'
      ? dialogueExamples(dialogue, rng, wholeTurns, exampleSettings)
      : dialogueExamples(dialogue, evaluationRng, wholeTurns, EVALUATION_EXAMPLE_SETTINGS)),
  );
}
const synthetic = Number(values.synthetic);
splits.train.push(...syntheticExamples(rng, synthetic));
splits.dev.push(...syntheticExamples(evaluationRng, Math.round(synthetic / 10)));
splits.test.push(...syntheticExamples(evaluationRng, Math.round(synthetic / 10)));
log(`${dialogues.length} dialogues ${JSON.stringify(sources)}`);
for (const split of ['train', 'dev', 'test'] as const) {
  const positives = splits[split].filter((e) => e.label === 1).length;
  log(`${split}: ${splits[split].length} examples, ${positives} complete`);
}

const tables = {
  train: featureTable(splits.train, settings.buckets),
  dev: featureTable(splits.dev, settings.buckets),
  test: featureTable(splits.test, settings.buckets),
};
log('features extracted');

function score(weights: TurnModelWeights, table: FeatureTable, examples: readonly Example[]): Scored[] {
  return examples.map((example, i) => ({
    probability: forward(weights, rowOf(table, i)).probability,
    label: example.label,
    kind: example.kind,
  }));
}

const weights = initialWeights(settings, rng);
let best: { epoch: number; loss: number; weights: TurnModelWeights } | undefined;
train(
  tables.train,
  weights,
  {
    ...settings,
    onEpoch: (epoch, current) => {
      const loss = metricsAt(score(current, tables.dev, splits.dev), 0.5).logLoss;
      log(`epoch ${epoch + 1}: dev log loss ${loss.toFixed(4)}`);
      if (!best || loss < best.loss) best = { epoch: epoch + 1, loss, weights: cloneWeights(current) };
    },
  },
  rng,
);
if (!best) throw new Error('no epoch ran');
const chosen = best.weights;

const maxFalseCut = Number(values['max-false-cut']);
const threshold = chooseThreshold(score(chosen, tables.dev, splits.dev), maxFalseCut);
const testScores = score(chosen, tables.test, splits.test);
const test = metricsAt(testScores, threshold);
const kinds = byKind(testScores, threshold);
const sweep = [0.2, 0.3, 0.4, threshold, 0.6, 0.7, 0.8, 0.9].map((t) => {
  const m = metricsAt(testScores, t);
  return {
    threshold: t,
    recall: round(m.recall),
    falseCutRate: round(m.falseCutRate),
    accuracy: round(m.accuracy),
  };
});
log(`threshold sweep on test: ${JSON.stringify(sweep)}`);
log(`epoch ${best.epoch} kept; threshold ${threshold} (dev false-cut rate <= ${maxFalseCut})`);
log(`test: ${JSON.stringify(test)}`);
for (const row of kinds)
  log(
    `  ${row.kind.padEnd(18)} ${String(row.count).padStart(7)}  judged complete ${(row.judgedComplete * 100).toFixed(1)}%`,
  );

// Speech recognizers that do not punctuate: the same test examples with the user's words only.
const strippedTest = splits.test.map((e) => ({ ...e, user: words(e.user).join(' ') }));
const strippedScores = score(chosen, featureTable(strippedTest, settings.buckets), strippedTest);
const stripped = metricsAt(strippedScores, threshold);
const strippedKinds = byKind(strippedScores, threshold);
log(`test, user text unpunctuated: ${JSON.stringify(stripped)}`);
for (const row of strippedKinds)
  log(
    `  ${row.kind.padEnd(18)} ${String(row.count).padStart(7)}  judged complete ${(row.judgedComplete * 100).toFixed(1)}%`,
  );

const onnx = encodeTurnModel(chosen, { feature_version: String(FEATURE_VERSION), seed: String(seed) });
const config: TurnModelConfig = {
  format: 'voxwire-turn-detector',
  featureVersion: FEATURE_VERSION,
  model: `${values.name}.onnx`,
  buckets: settings.buckets,
  embeddingSize: settings.embeddingSize,
  hiddenSize: settings.hiddenSize,
  languages: { en: { unlikelyThreshold: threshold } },
  training: {
    seed,
    epochs: settings.epochs,
    keptEpoch: best.epoch,
    learningRate: settings.learningRate,
    l2: settings.l2,
    examples: exampleSettings,
    maxFalseCutRate: maxFalseCut,
    dialogues: sources,
    exampleCounts: { train: splits.train.length, dev: splits.dev.length, test: splits.test.length },
    onnxSha256: createHash('sha256').update(onnx).digest('hex'),
    test: {
      en: {
        ...roundAll(test),
        sweep,
        byKind: kinds.map((k) => ({ ...k, judgedComplete: round(k.judgedComplete) })),
      },
      enUserTextUnpunctuated: {
        ...roundAll(stripped),
        byKind: strippedKinds.map((k) => ({ ...k, judgedComplete: round(k.judgedComplete) })),
      },
    },
  },
};
const out = resolve(values.out as string);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `${values.name}.onnx`), onnx);
writeFileSync(join(out, `${values.name}.json`), `${JSON.stringify(config, null, 2)}\n`);
log(`wrote ${join(out, `${values.name}.onnx`)} (${onnx.length} bytes) and ${values.name}.json`);

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
function roundAll<T extends object>(metrics: T): T {
  return Object.fromEntries(
    Object.entries(metrics).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]),
  ) as T;
}
