import { describe, expect, it } from 'vitest';
import { EndOfTurnModel } from './detector.js';
import { conversationFeatures, extractFeatures } from './features.js';
import { writeModel } from './test-support/generated-model.js';
import type { Example } from './training/examples.js';
import { SeededRandom } from './training/rng.js';
import { featureTable, initialWeights, train } from './training/trainer.js';
import { forward } from './weights.js';

const CONVERSATIONS = [
  [{ role: 'user', text: "I'd like to order, um" }],
  [
    { role: 'assistant', text: "What's the best number to reach you?" },
    { role: 'user', text: 'it is 415 555' },
  ],
  [
    { role: 'assistant', text: 'Shall I book it for seven?' },
    { role: 'user', text: 'Yes.' },
  ],
  [
    { role: 'user', text: 'Hi there' },
    { role: 'assistant', text: 'Hello! How can I help?' },
    { role: 'user', text: 'I need a table for two' },
    { role: 'user', text: 'and a high chair, and' },
  ],
  [{ role: 'user', text: '' }],
  [{ role: 'user', text: 'Ça coûte combien ? Straße 12 — “quoted” words’ end' }],
] as const;

const EXAMPLES: Example[] = [
  { user: 'I want a large latte please', assistant: 'What can I get you?', label: 1, kind: 'complete' },
  { user: 'I want a large', assistant: 'What can I get you?', label: 0, kind: 'cut' },
  { user: 'yes', assistant: 'Is that all?', label: 1, kind: 'complete_one_word' },
  { user: 'and um', assistant: 'Is that all?', label: 0, kind: 'filler' },
];

describe('the ONNX model computes what training computed', () => {
  it('gives the reference forward pass on TS-extracted features, for a model fresh from training', async () => {
    const rng = new SeededRandom(3);
    const weights = initialWeights({ buckets: 4096, embeddingSize: 8, hiddenSize: 8 }, rng);
    const table = featureTable(EXAMPLES, weights.buckets);
    train(
      table,
      weights,
      { buckets: 4096, embeddingSize: 8, hiddenSize: 8, epochs: 50, learningRate: 0.1 },
      rng,
    );
    const { configPath } = writeModel(weights);
    const model = await EndOfTurnModel.load({ modelPath: configPath });
    for (const conversation of CONVERSATIONS) {
      const expected = forward(weights, conversationFeatures(conversation, weights.buckets)).probability;
      expect(await model.predictEndOfTurn(conversation)).toBeCloseTo(expected, 6);
    }
    // Training moved the scores apart, so the comparison above is not between two constants.
    const scores = EXAMPLES.map(
      (e) => forward(weights, extractFeatures(e.user, e.assistant, weights.buckets)).probability,
    );
    expect(scores[0]).toBeGreaterThan(0.7);
    expect(scores[1]).toBeLessThan(0.3);
  });

  it('agrees on every embedding row it can address (no row is mis-encoded)', async () => {
    const rng = new SeededRandom(11);
    const weights = initialWeights({ buckets: 64, embeddingSize: 4, hiddenSize: 3 }, rng);
    for (let i = 0; i < weights.embedding.length; i++) weights.embedding[i] = rng.normal();
    const { configPath } = writeModel(weights);
    const model = await EndOfTurnModel.load({ modelPath: configPath });
    for (let row = 0; row < 64; row++) {
      const features = { indices: Int32Array.of(row), weights: Float32Array.of(0.75) };
      const expected = forward(weights, features).probability;
      // Through the loaded session directly: the row is chosen, not hashed.
      const internals = model as unknown as { model: { run: (f: typeof features) => Promise<number> } };
      expect(await internals.model.run(features)).toBeCloseTo(expected, 6);
    }
  });
});
