import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EndOfTurnModel } from './detector.js';
import { DEFAULT_MODEL_PATH } from './model-loader.js';

const bundled = JSON.parse(readFileSync(DEFAULT_MODEL_PATH, 'utf8')) as {
  languages: Record<string, { unlikelyThreshold: number }>;
};
const threshold = bundled.languages.en!.unlikelyThreshold;

function exchange(assistant: string | undefined, user: string) {
  return assistant === undefined
    ? [{ role: 'user' as const, text: user }]
    : [
        { role: 'assistant' as const, text: assistant },
        { role: 'user' as const, text: user },
      ];
}

describe('EndOfTurnModel with the bundled English model', () => {
  it('is a v1 turn detector covering English only', async () => {
    const model = await EndOfTurnModel.load();
    expect(model.specificationVersion).toBe('v1');
    expect(model.label).toBe('turn-detector.EndOfTurnModel');
    expect(model.languages).toEqual(['en']);
    expect(threshold).toBeGreaterThan(0.05);
    expect(threshold).toBeLessThan(0.95);
  });

  it('gives the threshold for English in any spelling, and none for other languages', async () => {
    const model = await EndOfTurnModel.load();
    for (const language of ['en', 'en-US', 'EN-gb', 'en_AU'])
      expect(model.unlikelyThreshold(language)).toBe(threshold);
    for (const language of ['fr', 'de-DE', 'zh', '']) {
      expect(model.unlikelyThreshold(language)).toBeUndefined();
      expect(model.supportsLanguage(language)).toBe(false);
    }
    expect(model.supportsLanguage('en-US')).toBe(true);
  });

  it('assumes English when the language is unknown, unless told not to', async () => {
    expect((await EndOfTurnModel.load()).unlikelyThreshold(undefined)).toBe(threshold);
    const strict = await EndOfTurnModel.load({ defaultLanguage: null });
    expect(strict.unlikelyThreshold(undefined)).toBeUndefined();
    expect(strict.unlikelyThreshold('en')).toBe(threshold);
    const german = await EndOfTurnModel.load({ defaultLanguage: 'de' });
    expect(german.unlikelyThreshold(undefined)).toBeUndefined();
  });

  it('takes a threshold of its own for the languages the model covers', async () => {
    const tuned = await EndOfTurnModel.load({ unlikelyThreshold: 0.8 });
    expect(tuned.unlikelyThreshold('en-US')).toBe(0.8);
    expect(tuned.unlikelyThreshold('fr')).toBeUndefined();
    await expect(EndOfTurnModel.load({ unlikelyThreshold: 1.5 })).rejects.toThrow(RangeError);
  });

  it('scores clearly complete turns at or above the threshold', async () => {
    const model = await EndOfTurnModel.load();
    const complete = [
      exchange('What can I get you today?', "I'd like a large oat milk latte please."),
      exchange('Shall I book the table for seven?', 'Yes.'),
      exchange('Is there anything else?', "No, that's all, thank you."),
      exchange(undefined, 'What time do you close tonight?'),
      exchange("What's the best number to reach you?", 'It is 415 555 1234.'),
      exchange('Where are you flying from?', 'From San Francisco'),
    ];
    for (const turns of complete)
      expect(await model.predictEndOfTurn(turns), turns.at(-1)!.text).toBeGreaterThanOrEqual(threshold);
  });

  it('scores clearly incomplete turns below the threshold', async () => {
    const model = await EndOfTurnModel.load();
    const incomplete = [
      exchange('What can I get you today?', "I'd like to order, um"),
      exchange("What's the best number to reach you?", 'It is 415 555'),
      exchange('What would you like on your pizza?', 'Pepperoni, mushrooms and'),
      exchange('Where are you flying from?', 'I want to fly from'),
      exchange('How can I help?', 'I need to change my reservation because'),
      exchange('Which day works for you?', 'Let me think, uh'),
    ];
    for (const turns of incomplete)
      expect(await model.predictEndOfTurn(turns), turns.at(-1)!.text).toBeLessThan(threshold);
  });

  it('answers a turn with the same probability every time, between 0 and 1', async () => {
    const model = await EndOfTurnModel.load();
    const turns = exchange('Anything else?', 'and a muffin');
    const first = await model.predictEndOfTurn(turns);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(1);
    expect(await model.predictEndOfTurn(turns)).toBe(first);
    // Punctuation and case do not change the verdict: interim transcripts have neither.
    expect(await model.predictEndOfTurn(exchange('Anything else?', 'And a muffin...'))).toBe(first);
  });

  it('rejects with the abort reason when aborted', async () => {
    const model = await EndOfTurnModel.load();
    const controller = new AbortController();
    controller.abort(new Error('user spoke again'));
    await expect(
      model.predictEndOfTurn(exchange(undefined, 'hello'), { signal: controller.signal }),
    ).rejects.toThrow('user spoke again');
  });
});
