import { describe, expect, it } from 'vitest';
import { bertTokenizerJson, TEST_VOCAB, vocabIds } from './test-support/generated-token-model.js';
import { parseTokenizer, TokenizerProblem } from './tokenizer.js';

const ids = vocabIds();
const tokens = (encoded: readonly number[]): string[] => encoded.map((id) => TEST_VOCAB[id] as string);

function problem(json: unknown): TokenizerProblem {
  try {
    parseTokenizer(json);
  } catch (error) {
    expect(error).toBeInstanceOf(TokenizerProblem);
    return error as TokenizerProblem;
  }
  throw new Error('expected the tokenizer to be refused');
}

describe('WordPiece tokenizer.json', () => {
  const tokenizer = parseTokenizer(bertTokenizerJson());

  it('lower-cases, strips accents, splits on whitespace and punctuation, and matches longest pieces first', () => {
    expect(tokens(tokenizer.encode('I want a LATTE, um'))).toEqual(['i', 'want', 'a', 'latte', ',', 'um']);
    expect(tokens(tokenizer.encode('What size?'))).toEqual(['what', 'size', '?']);
    expect(tokens(tokenizer.encode('lattes'))).toEqual(['latte', '##s']);
    expect(tokens(tokenizer.encode('lattete'))).toEqual(['latte', '##te']);
    expect(tokens(tokenizer.encode('Café\tand\u200b  i\ue000\u0007'))).toEqual(['cafe', 'and', 'i']);
  });

  it('makes a word with any piece outside the vocab one [UNK]', () => {
    expect(tokens(tokenizer.encode('i want mocha latteq'))).toEqual(['i', 'want', '[UNK]', '[UNK]']);
  });

  it('takes [CLS] and [SEP] from a TemplateProcessing or BertProcessing post-processor, none without one', () => {
    expect(tokenizer.model).toBe('WordPiece');
    expect(tokenizer.prefix).toEqual([ids['[CLS]']]);
    expect(tokenizer.suffix).toEqual([ids['[SEP]']]);
    const bert = parseTokenizer(
      bertTokenizerJson({ post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] } }),
    );
    expect([bert.prefix, bert.suffix]).toEqual([[2], [3]]);
    const none = parseTokenizer(bertTokenizerJson({ post_processor: null }));
    expect([none.prefix, none.suffix]).toEqual([[], []]);
  });
});

describe('WordLevel tokenizer.json', () => {
  it('looks whole words up, unknown ones as the unk token, with a Sequence of simple steps', () => {
    const tokenizer = parseTokenizer({
      normalizer: {
        type: 'Sequence',
        normalizers: [{ type: 'NFD' }, { type: 'Lowercase' }, { type: 'StripAccents' }],
      },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: null,
      model: { type: 'WordLevel', vocab: ids, unk_token: '[UNK]' },
    });
    expect(tokenizer.model).toBe('WordLevel');
    expect(tokens(tokenizer.encode('I want a CAFÉ latte?! mocha'))).toEqual([
      'i',
      'want',
      'a',
      'cafe',
      'latte',
      '[UNK]',
      '[UNK]',
    ]);
  });
});

describe('refusing what it does not implement', () => {
  it('names an unsupported model, normalizer, pre-tokenizer or post-processor', () => {
    const bpe = problem(bertTokenizerJson({ model: { type: 'BPE', vocab: ids, merges: [] } }));
    expect(bpe.kind).toBe('unsupported');
    expect(bpe.message).toMatch(/model type BPE is not supported \(supported: WordLevel, WordPiece\)/);
    const replace = problem(bertTokenizerJson({ normalizer: { type: 'Replace', pattern: {}, content: '' } }));
    expect([replace.kind, replace.message]).toEqual([
      'unsupported',
      expect.stringMatching(/normalizer type Replace is not supported/),
    ]);
    const nested = problem(
      bertTokenizerJson({
        pre_tokenizer: {
          type: 'Sequence',
          pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'ByteLevel' }],
        },
      }),
    );
    expect(nested.kind).toBe('unsupported');
    expect(nested.message).toMatch(/pre_tokenizer\.pretokenizers\[1\] type ByteLevel is not supported/);
    expect(problem(bertTokenizerJson({ pre_tokenizer: null })).message).toMatch(/pre_tokenizer is missing/);
    const post = problem(bertTokenizerJson({ post_processor: { type: 'ByteLevel', trim_offsets: true } }));
    expect([post.kind, post.message]).toEqual([
      'unsupported',
      expect.stringMatching(/post_processor type ByteLevel is not supported/),
    ]);
  });

  it('calls a malformed description invalid', () => {
    expect(problem([]).kind).toBe('invalid');
    expect(problem({ pre_tokenizer: { type: 'BertPreTokenizer' } }).message).toMatch(/no "model"/);
    const noUnk = problem(
      bertTokenizerJson({ model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: '[UNK]' } }),
    );
    expect([noUnk.kind, noUnk.message]).toEqual([
      'invalid',
      expect.stringMatching(/unk_token "\[UNK\]" is not in the vocab/),
    ]);
    expect(problem(bertTokenizerJson({ model: { type: 'WordPiece', vocab: { '[UNK]': -1 } } })).kind).toBe(
      'invalid',
    );
  });
});
