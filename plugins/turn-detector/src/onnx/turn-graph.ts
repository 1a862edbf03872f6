/**
 * Encodes the end-of-turn network as an ONNX model (IR 8, opset 17, default domain), field numbers as in
 * onnx.proto. Inputs: `indices` int64 [n] (embedding rows) and `weights` float [n, 1]; output
 * `probability` float [1, 1]. Gather -> Mul -> ReduceSum is an embedding bag; the rest is a small MLP.
 */
import type { TurnModelWeights } from '../weights.js';
import { ProtobufWriter } from './protobuf-writer.js';

const IR_VERSION = 8;
const OPSET = 17;
export const TENSOR_FLOAT = 1;
export const TENSOR_INT64 = 7;
const ATTRIBUTE_INT = 2;

export const INPUT_INDICES = 'indices';
export const INPUT_WEIGHTS = 'weights';
export const OUTPUT_PROBABILITY = 'probability';

type Dim = number | string;

export function valueInfo(name: string, dims: readonly Dim[], elementType: number): ProtobufWriter {
  const shape = new ProtobufWriter();
  for (const dim of dims) {
    shape.message(
      1,
      typeof dim === 'number' ? new ProtobufWriter().int(1, dim) : new ProtobufWriter().string(2, dim),
    );
  }
  const tensorType = new ProtobufWriter().int(1, elementType).message(2, shape);
  return new ProtobufWriter().string(1, name).message(2, new ProtobufWriter().message(1, tensorType));
}

export function floatTensor(name: string, dims: readonly number[], data: Float32Array): ProtobufWriter {
  const count = dims.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new RangeError(`${name}: ${data.length} values for [${dims.join(', ')}]`);
  // raw_data is little-endian; copy so a view into a larger buffer writes only its own bytes.
  const raw = new Uint8Array(count * 4);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < count; i++) view.setFloat32(i * 4, data[i] as number, true);
  return new ProtobufWriter().packedInts(1, dims).int(2, TENSOR_FLOAT).string(8, name).bytes(9, raw);
}

export function int64Tensor(name: string, values: readonly number[]): ProtobufWriter {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((value, i) => {
    view.setBigInt64(i * 8, BigInt(value), true);
  });
  return new ProtobufWriter()
    .packedInts(1, [values.length])
    .int(2, TENSOR_INT64)
    .string(8, name)
    .bytes(9, raw);
}

export function node(
  opType: string,
  inputs: readonly string[],
  output: string,
  attributes: Record<string, number> = {},
): ProtobufWriter {
  const writer = new ProtobufWriter();
  for (const input of inputs) writer.string(1, input);
  writer.string(2, output).string(3, output).string(4, opType);
  for (const [name, value] of Object.entries(attributes)) {
    writer.message(5, new ProtobufWriter().string(1, name).int(3, value).int(20, ATTRIBUTE_INT));
  }
  return writer;
}

/** The model file's bytes. `metadata` lands in the ModelProto's metadata_props (informative). */
export function encodeTurnModel(
  weights: TurnModelWeights,
  metadata: Record<string, string> = {},
): Uint8Array {
  const { buckets: b, embeddingSize: e, hiddenSize: h } = weights;
  const graph = new ProtobufWriter();
  const nodes = [
    node('Gather', ['embedding', INPUT_INDICES], 'gathered', { axis: 0 }),
    node('Mul', ['gathered', INPUT_WEIGHTS], 'scaled'),
    node('ReduceSum', ['scaled', 'sum_axes'], 'bag', { keepdims: 1 }),
    node('Add', ['bag', 'embedding_bias'], 'bag_biased'),
    node('Relu', ['bag_biased'], 'embedded'),
    node('MatMul', ['embedded', 'hidden'], 'hidden_product'),
    node('Add', ['hidden_product', 'hidden_bias'], 'hidden_biased'),
    node('Relu', ['hidden_biased'], 'hidden_out'),
    node('MatMul', ['hidden_out', 'output'], 'output_product'),
    node('Add', ['output_product', 'output_bias'], 'logit'),
    node('Sigmoid', ['logit'], OUTPUT_PROBABILITY),
  ];
  for (const n of nodes) graph.message(1, n);
  graph.string(2, 'voxwire_turn_detector');
  graph.message(5, floatTensor('embedding', [b, e], weights.embedding));
  graph.message(5, int64Tensor('sum_axes', [0]));
  graph.message(5, floatTensor('embedding_bias', [e], weights.embeddingBias));
  graph.message(5, floatTensor('hidden', [e, h], weights.hidden));
  graph.message(5, floatTensor('hidden_bias', [h], weights.hiddenBias));
  graph.message(5, floatTensor('output', [h, 1], weights.output));
  graph.message(5, floatTensor('output_bias', [1], weights.outputBias));
  graph.message(11, valueInfo(INPUT_INDICES, ['n'], TENSOR_INT64));
  graph.message(11, valueInfo(INPUT_WEIGHTS, ['n', 1], TENSOR_FLOAT));
  graph.message(12, valueInfo(OUTPUT_PROBABILITY, [1, 1], TENSOR_FLOAT));
  const model = new ProtobufWriter()
    .int(1, IR_VERSION)
    .string(2, 'voxwire-turn-detector')
    .message(7, graph)
    .message(8, new ProtobufWriter().string(1, '').int(2, OPSET));
  for (const [key, value] of Object.entries(metadata)) {
    model.message(14, new ProtobufWriter().string(1, key).string(2, value));
  }
  return model.finish();
}
