import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { floatTensor, int64Tensor, node, TENSOR_FLOAT, TENSOR_INT64, valueInfo } from '../onnx/turn-graph.js';
import { ProtobufWriter } from '../onnx/protobuf-writer.js';

/** A small vocabulary in id order, for tokenizers written by the tests. */
export const TEST_VOCAB = [
  '[PAD]',
  '[UNK]',
  '[CLS]',
  '[SEP]',
  'i',
  'want',
  'a',
  'latte',
  'um',
  'and',
  'what',
  'size',
  '?',
  ',',
  'lat',
  '##te',
  '##s',
  'cafe',
] as const;

export function vocabIds(): Record<string, number> {
  return Object.fromEntries(TEST_VOCAB.map((token, id) => [token, id]));
}

/** How a test model gives its answer: a probability [1, 1] or [1], or logits [1, 2] of [incomplete, complete]. */
export type TestOutput = 'probability' | 'probability-1d' | 'logits';

export interface TokenModelSpec {
  /** One weight per token id: the logit is their sum over the sequence (masked), plus `bias`. */
  tokenWeights: readonly number[];
  bias: number;
  output?: TestOutput;
  /** Declare and use `attention_mask` (positions whose mask is 0 do not count). */
  attentionMask?: boolean;
  /** Declare (and ignore) `token_type_ids`. */
  tokenTypeIds?: boolean;
  /** Name of the ids input; default `input_ids`. */
  idsInput?: string;
  /** Another int64 [1, n] input the model declares and ignores. */
  extraInput?: string;
}

/**
 * Encodes a token model: Gather of a one-column embedding by the ids, times the attention mask when
 * there is one, ReduceSum over the sequence, plus a bias, then Sigmoid (or a MatMul to two logits
 * whose softmax gives the same probability).
 */
export function encodeTokenModel(spec: TokenModelSpec): Uint8Array {
  const idsInput = spec.idsInput ?? 'input_ids';
  const output = spec.output ?? 'probability';
  const v = spec.tokenWeights.length;
  const graph = new ProtobufWriter();
  const nodes = [node('Gather', ['embedding', idsInput], 'gathered', { axis: 0 })];
  let summed = 'gathered';
  if (spec.attentionMask) {
    nodes.push(
      node('Cast', ['attention_mask'], 'mask_float', { to: TENSOR_FLOAT }),
      node('Unsqueeze', ['mask_float', 'mask_axes'], 'mask_column'),
      node('Mul', ['gathered', 'mask_column'], 'masked'),
    );
    summed = 'masked';
  }
  nodes.push(
    node('ReduceSum', [summed, 'sequence_axes'], 'summed_column', { keepdims: 0 }),
    node('Add', ['summed_column', 'bias'], 'logit_column'),
  );
  // Gathered is [1, n, 1]; summing axis 1 leaves [1, 1].
  if (output === 'logits') {
    nodes.push(node('MatMul', ['logit_column', 'to_logits'], 'logits'));
  } else if (output === 'probability-1d') {
    nodes.push(
      node('Sigmoid', ['logit_column'], 'probability_column'),
      node('Reshape', ['probability_column', 'flat_shape'], 'probability'),
    );
  } else {
    nodes.push(node('Sigmoid', ['logit_column'], 'probability'));
  }
  for (const n of nodes) graph.message(1, n);
  graph.string(2, 'test_token_model');
  graph.message(5, floatTensor('embedding', [v, 1], Float32Array.from(spec.tokenWeights)));
  graph.message(5, int64Tensor('sequence_axes', [1]));
  graph.message(5, floatTensor('bias', [1], Float32Array.of(spec.bias)));
  if (spec.attentionMask) graph.message(5, int64Tensor('mask_axes', [2]));
  // Softmax of (-x/2, x/2) at index 1 is sigmoid(x).
  if (output === 'logits') graph.message(5, floatTensor('to_logits', [1, 2], Float32Array.of(-0.5, 0.5)));
  if (output === 'probability-1d') graph.message(5, int64Tensor('flat_shape', [1]));
  graph.message(11, valueInfo(idsInput, [1, 'n'], TENSOR_INT64));
  if (spec.attentionMask) graph.message(11, valueInfo('attention_mask', [1, 'n'], TENSOR_INT64));
  if (spec.tokenTypeIds) graph.message(11, valueInfo('token_type_ids', [1, 'n'], TENSOR_INT64));
  if (spec.extraInput) graph.message(11, valueInfo(spec.extraInput, [1, 'n'], TENSOR_INT64));
  const outputName = output === 'logits' ? 'logits' : 'probability';
  const outputDims = output === 'logits' ? [1, 2] : output === 'probability-1d' ? [1] : [1, 1];
  graph.message(12, valueInfo(outputName, outputDims, TENSOR_FLOAT));
  return new ProtobufWriter()
    .int(1, 8)
    .string(2, 'voxwire-test')
    .message(7, graph)
    .message(8, new ProtobufWriter().string(1, '').int(2, 17))
    .finish();
}

/** A BERT-style WordPiece `tokenizer.json` over TEST_VOCAB, with [CLS]/[SEP] from a template. */
export function bertTokenizerJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const ids = vocabIds();
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: ids,
    },
    ...overrides,
  };
}

/** Writes files into a fresh temporary folder and returns their paths by name. */
export function writeFiles(files: Record<string, Uint8Array | string | object>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'token-model-'));
  const paths: Record<string, string> = { dir };
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    writeFileSync(
      path,
      typeof content === 'string' || content instanceof Uint8Array ? content : JSON.stringify(content),
    );
    paths[name] = path;
  }
  return paths;
}
