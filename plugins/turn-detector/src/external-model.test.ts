import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConversationTurn } from '@voxwire/agents/provider-utils';
import { describe, expect, it } from 'vitest';
import { TurnModelError } from './errors.js';
import { loadTokenizer, tokenModelSessionsOpened } from './external-loader.js';
import {
  conversationInputIds,
  ExternalEndOfTurnModel,
  type ExternalEndOfTurnModelOptions,
} from './external-model.js';
import {
  bertTokenizerJson,
  encodeTokenModel,
  TEST_VOCAB,
  type TokenModelSpec,
  vocabIds,
  writeFiles,
} from './test-support/generated-token-model.js';

const ids = vocabIds();
const SPECIALS = new Set(['[PAD]', '[UNK]', '[CLS]', '[SEP]']);
/** Every word pushes towards "complete" but a filler or a trailing "and" pulls far the other way. */
const WEIGHTS = TEST_VOCAB.map((token) =>
  SPECIALS.has(token) ? 0 : token === 'um' || token === 'and' ? -20 : 1,
);
const BIAS = -0.5;

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
/** What the test model must answer for these tokens. */
const expected = (tokens: readonly string[]): number =>
  sigmoid(tokens.reduce((sum, token) => sum + (WEIGHTS[ids[token] as number] as number), BIAS));

function files(spec: Partial<TokenModelSpec> = {}, tokenizer: object = bertTokenizerJson()) {
  const paths = writeFiles({
    'model.onnx': encodeTokenModel({ tokenWeights: WEIGHTS, bias: BIAS, ...spec }),
    'tokenizer.json': tokenizer,
  });
  return { modelPath: paths['model.onnx'] as string, tokenizerPath: paths['tokenizer.json'] as string };
}

const shared = files();
function load(options: Partial<ExternalEndOfTurnModelOptions> = {}): Promise<ExternalEndOfTurnModel> {
  return ExternalEndOfTurnModel.load({ ...shared, ...options });
}

const exchange = (assistant: string, user: string): ConversationTurn[] => [
  { role: 'assistant', text: assistant },
  { role: 'user', text: user },
];

async function loadError(options: Partial<ExternalEndOfTurnModelOptions>): Promise<TurnModelError> {
  const error = await load(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TurnModelError);
  return error as TurnModelError;
}

describe('ExternalEndOfTurnModel predictions', () => {
  it('reads the agent turn and the pending user turn, and a filler drives the probability down', async () => {
    const model = await load();
    const complete = await model.predictEndOfTurn(exchange('What size?', 'I want a latte'));
    expect(complete).toBeCloseTo(expected(['what', 'size', '?', 'i', 'want', 'a', 'latte']), 5);
    expect(complete).toBeGreaterThan(0.99);
    const filler = await model.predictEndOfTurn(exchange('What size?', 'I want a latte, um'));
    expect(filler).toBeCloseTo(expected(['what', 'size', '?', 'i', 'want', 'a', 'latte', ',', 'um']), 5);
    expect(filler).toBeLessThan(0.01);
    // Consecutive user turns are one pending turn; only the agent turn just before it counts.
    const turns: ConversationTurn[] = [
      { role: 'user', text: 'um um um' },
      { role: 'assistant', text: 'What size?' },
      { role: 'user', text: 'I want' },
      { role: 'user', text: 'a latte' },
    ];
    expect(await model.predictEndOfTurn(turns)).toBeCloseTo(complete, 5);
  });

  it('reads a [1] or [1, 1] probability and softmaxes [1, 2] logits at index 1', async () => {
    const turns = exchange('What size?', 'a latte and');
    const want = expected(['what', 'size', '?', 'a', 'latte', 'and']);
    for (const output of ['probability', 'probability-1d', 'logits'] as const) {
      const model = await load(files({ output }));
      expect(await model.predictEndOfTurn(turns), output).toBeCloseTo(want, 5);
    }
  });

  it('feeds attention_mask (all ones) and token_type_ids when the model declares them', async () => {
    const turns = exchange('What size?', 'I want a latte');
    const plain = await (await load()).predictEndOfTurn(turns);
    const masked = await load(files({ attentionMask: true, tokenTypeIds: true }));
    // A zero mask would leave only the bias: sigmoid(-0.5) = 0.38.
    expect(await masked.predictEndOfTurn(turns)).toBeCloseTo(plain, 5);
  });

  it('keeps the end of a long conversation within maxTokens, special tokens included', async () => {
    const tokenizer = await loadTokenizer(shared.tokenizerPath);
    const turns = exchange('um what size?', 'um i want a latte');
    const cls = ids['[CLS]'] as number;
    const sep = ids['[SEP]'] as number;
    expect(conversationInputIds(tokenizer, turns, 6)).toEqual([cls, ids.i, ids.want, ids.a, ids.latte, sep]);
    expect(conversationInputIds(tokenizer, turns, 100)).toHaveLength(11);
    // The agent's filler falls out first, then the user's.
    const long = await load();
    expect(long.maxTokens).toBe(128);
    expect(await long.predictEndOfTurn(turns)).toBeLessThan(0.01);
    const cut = await load({ maxTokens: 7 });
    expect(await cut.predictEndOfTurn(turns)).toBeLessThan(0.01);
    const short = await load({ maxTokens: 6 });
    expect(await short.predictEndOfTurn(turns)).toBeCloseTo(expected(['i', 'want', 'a', 'latte']), 5);
  });

  it('rejects a prediction the model cannot compute (a token id outside its embedding)', async () => {
    const model = await load(files({ tokenWeights: WEIGHTS.slice(0, 5) }));
    await expect(model.predictEndOfTurn(exchange('What size?', 'i'))).rejects.toThrow();
    expect(await model.predictEndOfTurn([{ role: 'user', text: 'i' }])).toBeCloseTo(expected(['i']), 5);
  });

  it('scores an empty conversation 0 and honours an aborted signal', async () => {
    const model = await load(files({}, bertTokenizerJson({ post_processor: null })));
    expect(await model.predictEndOfTurn([])).toBe(0);
    const controller = new AbortController();
    controller.abort();
    await expect(
      model.predictEndOfTurn(exchange('Hi', 'latte'), { signal: controller.signal }),
    ).rejects.toThrow();
  });
});

describe('ExternalEndOfTurnModel languages and thresholds', () => {
  it('defaults to English at 0.5 and gives other languages no threshold', async () => {
    const model = await load();
    expect(model.languages).toEqual(['en']);
    expect(model.unlikelyThreshold('en-US')).toBe(0.5);
    expect(model.unlikelyThreshold(undefined)).toBe(0.5);
    expect(model.unlikelyThreshold('fr')).toBeUndefined();
    expect(model.supportsLanguage('EN_gb')).toBe(true);
    expect(model.supportsLanguage('fr')).toBe(false);
  });

  it('takes one threshold for the given languages, or one per language', async () => {
    const one = await load({ unlikelyThreshold: 0.3, languages: ['de', 'en-US'] });
    expect(one.languages).toEqual(['de', 'en']);
    expect([
      one.unlikelyThreshold('de-AT'),
      one.unlikelyThreshold('en'),
      one.unlikelyThreshold('es'),
    ]).toEqual([0.3, 0.3, undefined]);
    // Unknown language: the first listed, unless told otherwise.
    expect(one.unlikelyThreshold(undefined)).toBe(0.3);
    const map = await load({ unlikelyThreshold: { en: 0.6, es: 0.2 }, defaultLanguage: null });
    expect(map.languages).toEqual(['en', 'es']);
    expect([map.unlikelyThreshold('es-MX'), map.unlikelyThreshold('en')]).toEqual([0.2, 0.6]);
    expect(map.unlikelyThreshold(undefined)).toBeUndefined();
    const limited = await load({
      unlikelyThreshold: { en: 0.6, es: 0.2 },
      languages: ['es'],
      defaultLanguage: 'es',
    });
    expect([limited.unlikelyThreshold('en'), limited.unlikelyThreshold(undefined)]).toEqual([undefined, 0.2]);
  });

  it('rejects thresholds outside (0, 1), a language without one, and a maxTokens with no room', async () => {
    await expect(load({ unlikelyThreshold: 1.5 })).rejects.toThrow(RangeError);
    await expect(load({ unlikelyThreshold: { en: 0 } })).rejects.toThrow(/unlikelyThreshold\.en/);
    await expect(load({ unlikelyThreshold: { en: 0.5 }, languages: ['en', 'fr'] })).rejects.toThrow(
      /no entry for language fr/,
    );
    await expect(load({ maxTokens: 2 })).rejects.toThrow(/maxTokens/);
  });
});

describe('loading a user-supplied model', () => {
  it('opens each model file once per process', async () => {
    const paths = files();
    const before = tokenModelSessionsOpened();
    const [a, b] = await Promise.all([load(paths), load(paths)]);
    await load({ ...paths, modelPath: join(paths.modelPath, '..', 'model.onnx') });
    expect(tokenModelSessionsOpened() - before).toBe(1);
    expect(a).not.toBe(b);
  });

  it('names a missing model or tokenizer file, and retries once it appears', async () => {
    const paths = files();
    const missingModel = join(paths.modelPath, '..', 'nope.onnx');
    const error = await loadError({ ...paths, modelPath: missingModel });
    expect([error.code, error.modelPath]).toEqual(['not_found', missingModel]);
    expect(error.message).toContain(missingModel);
    const missingTokenizer = join(paths.tokenizerPath, '..', 'nope.json');
    const tokenizerError = await loadError({ ...paths, tokenizerPath: missingTokenizer });
    expect([tokenizerError.code, tokenizerError.modelPath]).toEqual(['not_found', missingTokenizer]);
    writeFileSync(missingTokenizer, JSON.stringify(bertTokenizerJson()));
    await expect(load({ ...paths, tokenizerPath: missingTokenizer })).resolves.toBeInstanceOf(
      ExternalEndOfTurnModel,
    );
  });

  it('calls a tokenizer that is not JSON invalid and an unsupported kind unsupported, naming it', async () => {
    const paths = files();
    writeFileSync(paths.tokenizerPath, '{ "model": ');
    const bad = await loadError(paths);
    expect([bad.code, bad.modelPath]).toEqual(['invalid', paths.tokenizerPath]);
    expect(bad.message).toMatch(/not JSON/);
    const bpe = files({}, bertTokenizerJson({ model: { type: 'BPE', vocab: ids, merges: [] } }));
    const unsupported = await loadError(bpe);
    expect(unsupported.code).toBe('unsupported');
    expect(unsupported.message).toContain(bpe.tokenizerPath);
    expect(unsupported.message).toMatch(/model type BPE is not supported/);
  });

  it('refuses a model without input_ids, or with an input it cannot feed', async () => {
    const noIds = files({ idsInput: 'tokens' });
    const error = await loadError(noIds);
    expect([error.code, error.modelPath]).toEqual(['invalid', noIds.modelPath]);
    expect(error.message).toMatch(/has inputs \[tokens\].*expected an input input_ids/);
    const extra = await loadError(files({ extraInput: 'position_ids' }));
    expect(extra.code).toBe('invalid');
    expect(extra.message).toMatch(/cannot feed position_ids/);
  });

  it('reports a corrupt ONNX file as load_failed', async () => {
    const paths = files();
    writeFileSync(paths.modelPath, 'not an onnx file');
    const error = await loadError(paths);
    expect([error.code, error.modelPath]).toEqual(['load_failed', paths.modelPath]);
  });
});
