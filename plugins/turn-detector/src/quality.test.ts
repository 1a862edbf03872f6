import { describe, expect, it } from 'vitest';
import { EndOfTurnModel } from './detector.js';
import { HARD_CASES, type HardCaseCategory } from './eval/hard-cases.js';

/**
 * The figures the README states for the hand-written hard cases. A retrained model that scores lower
 * fails here; raise them when a model does better.
 */
const MIN_ACCURACY = 0.96;
const MIN_BY_CATEGORY: Record<HardCaseCategory, number> = {
  conjunction: 1,
  filler: 1,
  dictated_number: 1,
  address: 1,
  list: 1,
  question: 1,
  one_word: 0.85,
  statement: 0.9,
  unpunctuated: 0.92,
};

describe('the bundled model on the hand-written hard cases', () => {
  it('keeps the accuracy the README states, overall and per kind of case', async () => {
    const model = await EndOfTurnModel.load();
    const threshold = model.unlikelyThreshold('en') as number;
    const results = await Promise.all(
      HARD_CASES.map(async (c) => {
        const turns = [
          ...(c.assistant === undefined ? [] : [{ role: 'assistant' as const, text: c.assistant }]),
          { role: 'user' as const, text: c.user },
        ];
        const probability = await model.predictEndOfTurn(turns);
        return { ...c, probability, right: probability >= threshold === c.complete };
      }),
    );
    const wrong = results
      .filter((r) => !r.right)
      .map((r) => `${r.category}: "${r.user}" ${r.probability.toFixed(3)}`);
    const accuracy = results.filter((r) => r.right).length / results.length;
    expect(accuracy, `wrong: ${wrong.join('; ')}`).toBeGreaterThanOrEqual(MIN_ACCURACY);
    for (const [category, floor] of Object.entries(MIN_BY_CATEGORY)) {
      const of = results.filter((r) => r.category === category);
      expect(of.length).toBeGreaterThan(0);
      const share = of.filter((r) => r.right).length / of.length;
      expect(share, `${category}; wrong: ${wrong.join('; ')}`).toBeGreaterThanOrEqual(floor);
    }
  });
});
