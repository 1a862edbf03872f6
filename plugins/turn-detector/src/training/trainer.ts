import { extractFeatures, type HashedFeatures } from '../features.js';
import { forward, type TurnModelWeights } from '../weights.js';
import type { Example } from './examples.js';
import type { SeededRandom } from './rng.js';

export interface TrainSettings {
  buckets: number;
  embeddingSize: number;
  hiddenSize: number;
  epochs: number;
  learningRate: number;
  /** L2 penalty on the embedding rows an example touches (lazy weight decay). Default 0. */
  l2?: number;
  /** Called after each epoch with the weights so far (e.g. to measure the dev loss). */
  onEpoch?: (epoch: number, weights: TurnModelWeights) => void;
}

/** Hashed features of many examples in three flat arrays (offsets into indices/weights). */
export interface FeatureTable {
  offsets: Int32Array;
  indices: Int32Array;
  weights: Float32Array;
  labels: Uint8Array;
}

export function featureTable(examples: readonly Example[], buckets: number): FeatureTable {
  const all: HashedFeatures[] = examples.map((e) => extractFeatures(e.user, e.assistant, buckets));
  const total = all.reduce((sum, f) => sum + f.indices.length, 0);
  const table: FeatureTable = {
    offsets: new Int32Array(all.length + 1),
    indices: new Int32Array(total),
    weights: new Float32Array(total),
    labels: Uint8Array.from(examples, (e) => e.label),
  };
  let at = 0;
  all.forEach((f, i) => {
    table.offsets[i] = at;
    table.indices.set(f.indices, at);
    table.weights.set(f.weights, at);
    at += f.indices.length;
  });
  table.offsets[all.length] = at;
  return table;
}

export function rowOf(table: FeatureTable, i: number): HashedFeatures {
  const start = table.offsets[i] as number;
  const end = table.offsets[i + 1] as number;
  return { indices: table.indices.subarray(start, end), weights: table.weights.subarray(start, end) };
}

export function initialWeights(
  settings: Pick<TrainSettings, 'buckets' | 'embeddingSize' | 'hiddenSize'>,
  rng: SeededRandom,
): TurnModelWeights {
  const { buckets, embeddingSize: e, hiddenSize: h } = settings;
  const normal = (count: number, scale: number): Float32Array => {
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = rng.normal() * scale;
    return out;
  };
  return {
    buckets,
    embeddingSize: e,
    hiddenSize: h,
    embedding: normal(buckets * e, 0.05),
    embeddingBias: new Float32Array(e).fill(0.1),
    hidden: normal(e * h, Math.sqrt(2 / e)),
    hiddenBias: new Float32Array(h).fill(0.05),
    output: normal(h, Math.sqrt(1 / h)),
    outputBias: new Float32Array(1),
  };
}

/**
 * Adagrad on the log loss, one example at a time in a seeded order; only the embedding rows an
 * example touches are updated. Parameters stay float32 (what the ONNX file holds); arithmetic is in
 * doubles.
 */
export function train(
  table: FeatureTable,
  weights: TurnModelWeights,
  settings: TrainSettings,
  rng: SeededRandom,
): void {
  const e = weights.embeddingSize;
  const h = weights.hiddenSize;
  const eps = 1e-8;
  const l2 = settings.l2 ?? 0;
  const acc = {
    embedding: new Float32Array(weights.embedding.length).fill(0.1),
    embeddingBias: new Float64Array(e).fill(0.1),
    hidden: new Float64Array(e * h).fill(0.1),
    hiddenBias: new Float64Array(h).fill(0.1),
    output: new Float64Array(h).fill(0.1),
    outputBias: new Float64Array(1).fill(0.1),
  };
  const step = (
    param: Float32Array,
    accumulator: Float32Array | Float64Array,
    i: number,
    grad: number,
    lr: number,
  ): void => {
    const g2 = (accumulator[i] as number) + grad * grad;
    accumulator[i] = g2;
    param[i] = (param[i] as number) - (lr * grad) / (Math.sqrt(g2) + eps);
  };
  const count = table.labels.length;
  const order = Array.from({ length: count }, (_, i) => i);
  const dHidden = new Float64Array(h);
  const dEmbedded = new Float64Array(e);
  for (let epoch = 0; epoch < settings.epochs; epoch++) {
    rng.shuffle(order);
    const lr = settings.learningRate / Math.sqrt(1 + epoch);
    for (const i of order) {
      const features = rowOf(table, i);
      const act = forward(weights, features);
      const dLogit = act.probability - (table.labels[i] as number);
      for (let k = 0; k < h; k++) {
        const hk = act.hidden[k] as number;
        dHidden[k] = hk > 0 ? dLogit * (weights.output[k] as number) : 0;
      }
      for (let j = 0; j < e; j++) {
        let sum = 0;
        if ((act.embedded[j] as number) > 0) {
          for (let k = 0; k < h; k++) sum += (weights.hidden[j * h + k] as number) * (dHidden[k] as number);
        }
        dEmbedded[j] = sum;
      }
      for (let k = 0; k < h; k++) step(weights.output, acc.output, k, dLogit * (act.hidden[k] as number), lr);
      step(weights.outputBias, acc.outputBias, 0, dLogit, lr);
      for (let j = 0; j < e; j++) {
        const ej = act.embedded[j] as number;
        if (ej === 0) continue;
        for (let k = 0; k < h; k++) {
          const g = ej * (dHidden[k] as number);
          if (g !== 0) step(weights.hidden, acc.hidden, j * h + k, g, lr);
        }
      }
      for (let k = 0; k < h; k++)
        if (dHidden[k] !== 0) step(weights.hiddenBias, acc.hiddenBias, k, dHidden[k] as number, lr);
      for (let j = 0; j < e; j++) {
        const dj = dEmbedded[j] as number;
        if (dj === 0) continue;
        step(weights.embeddingBias, acc.embeddingBias, j, dj, lr);
        for (let f = 0; f < features.indices.length; f++) {
          const row = (features.indices[f] as number) * e;
          const value = weights.embedding[row + j] as number;
          step(
            weights.embedding,
            acc.embedding,
            row + j,
            dj * (features.weights[f] as number) + l2 * value,
            lr,
          );
        }
      }
    }
    settings.onEpoch?.(epoch, weights);
  }
}

export function cloneWeights(weights: TurnModelWeights): TurnModelWeights {
  return {
    ...weights,
    embedding: weights.embedding.slice(),
    embeddingBias: weights.embeddingBias.slice(),
    hidden: weights.hidden.slice(),
    hiddenBias: weights.hiddenBias.slice(),
    output: weights.output.slice(),
    outputBias: weights.outputBias.slice(),
  };
}
