import type { HashedFeatures } from './features.js';

/**
 * The parameters of the end-of-turn network: a bag of hashed-feature embeddings, summed with their
 * weights, then ReLU -> dense -> ReLU -> dense -> sigmoid. Float32 throughout, as in the ONNX file.
 */
export interface TurnModelWeights {
  buckets: number;
  embeddingSize: number;
  hiddenSize: number;
  /** [buckets, embeddingSize], row-major. */
  embedding: Float32Array;
  /** [embeddingSize] */
  embeddingBias: Float32Array;
  /** [embeddingSize, hiddenSize] */
  hidden: Float32Array;
  /** [hiddenSize] */
  hiddenBias: Float32Array;
  /** [hiddenSize] */
  output: Float32Array;
  /** [1] */
  outputBias: Float32Array;
}

/** Activations of one forward pass, kept for back-propagation. */
export interface Activations {
  /** After the first ReLU. */
  embedded: Float64Array;
  /** After the second ReLU. */
  hidden: Float64Array;
  probability: number;
}

/** The reference forward pass (training and the parity tests use it; inference runs the ONNX graph). */
export function forward(weights: TurnModelWeights, features: HashedFeatures): Activations {
  const e = weights.embeddingSize;
  const h = weights.hiddenSize;
  const embedded = new Float64Array(e);
  for (let k = 0; k < features.indices.length; k++) {
    const row = (features.indices[k] as number) * e;
    const w = features.weights[k] as number;
    for (let j = 0; j < e; j++)
      embedded[j] = (embedded[j] as number) + w * (weights.embedding[row + j] as number);
  }
  for (let j = 0; j < e; j++)
    embedded[j] = Math.max(0, (embedded[j] as number) + (weights.embeddingBias[j] as number));
  const hidden = new Float64Array(h);
  for (let i = 0; i < h; i++) {
    let sum = weights.hiddenBias[i] as number;
    for (let j = 0; j < e; j++) sum += (embedded[j] as number) * (weights.hidden[j * h + i] as number);
    hidden[i] = Math.max(0, sum);
  }
  let logit = weights.outputBias[0] as number;
  for (let i = 0; i < h; i++) logit += (hidden[i] as number) * (weights.output[i] as number);
  return { embedded, hidden, probability: 1 / (1 + Math.exp(-logit)) };
}
