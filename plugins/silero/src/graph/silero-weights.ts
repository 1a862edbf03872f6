/**
 * Reads the weights and layer settings of a Silero VAD v5/v6 ONNX file: one set per sample rate (the file
 * holds a 16 kHz and an 8 kHz network behind an `If` on its `sr` input). Anything unexpected makes the
 * reader return `undefined` with a reason instead of guessing, and the caller keeps the file's own graph.
 */
import type { ModelSampleRate } from '../protocol.js';
import { bytesOf, type Field, int64Of, int64sOf, readFields, stringOf, WIRE_FIXED32 } from './protobuf.js';

export interface FloatTensor {
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

export interface ConvLayer {
  /** [out, in, kernel] */
  readonly weight: FloatTensor;
  readonly bias: FloatTensor;
  readonly stride: number;
  readonly padding: number;
}

export interface SileroNetwork {
  readonly rate: ModelSampleRate;
  /** STFT as a convolution: [2 * bins, 1, frameLength] (real rows, then imaginary rows). */
  readonly stftBasis: FloatTensor;
  readonly stftStride: number;
  /** Samples reflected past the end of the input before the STFT. */
  readonly reflectPadding: number;
  readonly encoder: readonly ConvLayer[];
  /** PyTorch LSTMCell layout: gates i, f, g, o. */
  readonly lstm: { weightIh: FloatTensor; weightHh: FloatTensor; biasIh: FloatTensor; biasHh: FloatTensor };
  /** 1x1 convolution to one channel: [1, hidden, 1] and [1]. */
  readonly decoderWeight: FloatTensor;
  readonly decoderBias: FloatTensor;
}

export type ReadResult =
  | { ok: true; networks: Map<ModelSampleRate, SileroNetwork> }
  | { ok: false; reason: string };

const ENCODER_LAYERS = 4;
const TENSOR_FLOAT = 1;
const TENSOR_INT64 = 7;

interface NodeInfo {
  name: string;
  opType: string;
  outputs: string[];
  attributes: Map<string, Field[]>;
}

interface Branch {
  constants: Map<string, Field[]>;
  nodes: NodeInfo[];
}

export function readSileroNetworks(model: Uint8Array): ReadResult {
  try {
    const graph = readFields(bytesOf(only(readFields(model), 7, 'ModelProto.graph')));
    const topIf = nodesOf(graph).find((node) => node.opType === 'If');
    if (!topIf) return { ok: false, reason: 'no If node on the sample rate at the top of the graph' };
    const networks = new Map<ModelSampleRate, SileroNetwork>();
    for (const attribute of ['then_branch', 'else_branch']) {
      const subgraph = topIf.attributes.get(attribute);
      if (!subgraph) return { ok: false, reason: `the top If has no ${attribute}` };
      const branch: Branch = { constants: new Map(), nodes: [] };
      collect(readFields(bytesOf(graphField(subgraph))), branch);
      const network = networkOf(branch);
      if (typeof network === 'string') return { ok: false, reason: `${attribute}: ${network}` };
      if (networks.has(network.rate)) return { ok: false, reason: `two networks for ${network.rate} Hz` };
      networks.set(network.rate, network);
    }
    return { ok: true, networks };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function networkOf(branch: Branch): SileroNetwork | string {
  const basis = floatNamed(branch, 'stft.forward_basis_buffer');
  if (basis?.dims.length !== 3 || basis.dims[1] !== 1) return 'no STFT basis [2F, 1, K]';
  const frameLength = basis.dims[2] as number;
  const rate: ModelSampleRate | undefined =
    frameLength === 256 ? 16000 : frameLength === 128 ? 8000 : undefined;
  if (!rate) return `unexpected STFT frame length ${frameLength}`;
  const stft = convNamed(branch, '/stft/Conv');
  if (stft?.group !== 1) return 'no STFT convolution';
  const pad = branch.nodes.find((node) => node.opType === 'Pad' && node.name.endsWith('/stft/padding/Pad'));
  const mode = pad?.attributes.get('mode');
  if (!mode || stringOf(only(mode, 4, 'Pad.mode')) !== 'reflect')
    return 'the STFT input is not reflect-padded';
  const padAmounts = intsNamed(branch, '/stft/padding/Constant_1_output_0');
  if (padAmounts?.length !== 2 || padAmounts[0] !== 0) return 'unexpected STFT padding';
  const encoder: ConvLayer[] = [];
  for (let i = 0; i < ENCODER_LAYERS; i++) {
    const weight = floatNamed(branch, `encoder.${i}.reparam_conv.weight`);
    const bias = floatNamed(branch, `encoder.${i}.reparam_conv.bias`);
    const conv = convNamed(branch, `/encoder/${i}/reparam_conv/Conv`);
    if (!weight || !bias || !conv || weight.dims.length !== 3) return `no encoder layer ${i}`;
    if (conv.group !== 1 || conv.padStart !== conv.padEnd)
      return `encoder layer ${i} is not a plain convolution`;
    encoder.push({ weight, bias, stride: conv.stride, padding: conv.padStart });
  }
  const weightIh = floatNamed(branch, 'decoder.rnn.weight_ih');
  const weightHh = floatNamed(branch, 'decoder.rnn.weight_hh');
  const biasIh = floatNamed(branch, 'decoder.rnn.bias_ih');
  const biasHh = floatNamed(branch, 'decoder.rnn.bias_hh');
  const decoderWeight = floatNamed(branch, 'decoder.decoder.2.weight');
  const decoderBias = floatNamed(branch, 'decoder.decoder.2.bias');
  if (!weightIh || !weightHh || !biasIh || !biasHh || !decoderWeight || !decoderBias)
    return 'no LSTM decoder';
  return {
    rate,
    stftBasis: basis,
    stftStride: stft.stride,
    reflectPadding: padAmounts[1] as number,
    encoder,
    lstm: { weightIh, weightHh, biasIh, biasHh },
    decoderWeight,
    decoderBias,
  };
}

/** Constants (Constant nodes and initializers) and nodes of a branch, its nested subgraphs included. */
function collect(graph: Field[], into: Branch): void {
  for (const field of graph) {
    if (field.number === 5) {
      const tensor = readFields(bytesOf(field));
      const name = tensor.find((f) => f.number === 8);
      if (name) into.constants.set(stringOf(name), tensor);
    }
  }
  for (const node of nodesOf(graph)) {
    into.nodes.push(node);
    const value = node.attributes.get('value');
    if (node.opType === 'Constant' && value && node.outputs[0]) {
      into.constants.set(node.outputs[0], readFields(bytesOf(only(value, 5, 'Constant.value'))));
    }
    for (const attribute of node.attributes.values()) {
      const subgraph = attribute.find((f) => f.number === 6);
      if (subgraph) collect(readFields(bytesOf(subgraph)), into);
    }
  }
}

function nodesOf(graph: Field[]): NodeInfo[] {
  return graph
    .filter((field) => field.number === 1)
    .map((field) => {
      const node = readFields(bytesOf(field));
      const attributes = new Map<string, Field[]>();
      for (const a of node.filter((f) => f.number === 5)) {
        const fields = readFields(bytesOf(a));
        attributes.set(stringOf(only(fields, 1, 'AttributeProto.name')), fields);
      }
      return {
        name: node.filter((f) => f.number === 3).map(stringOf)[0] ?? '',
        opType: node.filter((f) => f.number === 4).map(stringOf)[0] ?? '',
        outputs: node.filter((f) => f.number === 2).map(stringOf),
        attributes,
      };
    });
}

function graphField(attribute: Field[]): Field {
  return only(attribute, 6, 'AttributeProto.g');
}

function only(fields: readonly Field[], number: number, what: string): Field {
  const found = fields.filter((f) => f.number === number);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}`);
  return found[0] as Field;
}

function constantEndingWith(branch: Branch, suffix: string): Field[] | undefined {
  let match: Field[] | undefined;
  for (const [name, tensor] of branch.constants) {
    if (!name.endsWith(suffix)) continue;
    if (match) return undefined; // ambiguous: refuse rather than pick one
    match = tensor;
  }
  return match;
}

function floatNamed(branch: Branch, suffix: string): FloatTensor | undefined {
  const tensor = constantEndingWith(branch, suffix);
  if (!tensor || dataType(tensor) !== TENSOR_FLOAT) return undefined;
  const dims = int64sOf(tensor, 1);
  const count = dims.reduce((a, b) => a * b, 1);
  const raw = tensor.find((f) => f.number === 9);
  let data: Float32Array;
  if (raw) {
    const bytes = bytesOf(raw);
    if (bytes.length !== count * 4) return undefined;
    // Copied: the file's bytes are not 4-byte aligned in general.
    data = new Float32Array(count);
    new Uint8Array(data.buffer).set(bytes);
  } else {
    data = floatData(tensor);
    if (data.length !== count) return undefined;
  }
  return { dims, data };
}

function floatData(tensor: Field[]): Float32Array {
  const values: number[] = [];
  const scratch = new DataView(new ArrayBuffer(4));
  for (const field of tensor) {
    if (field.number !== 4) continue;
    if (field.wire === WIRE_FIXED32) {
      scratch.setUint32(0, field.value as number, true);
      values.push(scratch.getFloat32(0, true));
      continue;
    }
    const bytes = bytesOf(field);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at + 4 <= bytes.length; at += 4) values.push(view.getFloat32(at, true));
  }
  return Float32Array.from(values);
}

function intsNamed(branch: Branch, suffix: string): number[] | undefined {
  const tensor = constantEndingWith(branch, suffix);
  if (!tensor || dataType(tensor) !== TENSOR_INT64) return undefined;
  const raw = tensor.find((f) => f.number === 9);
  if (!raw) return int64sOf(tensor, 7);
  const bytes = bytesOf(raw);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  for (let at = 0; at + 8 <= bytes.length; at += 8) out.push(Number(view.getBigInt64(at, true)));
  return out;
}

function dataType(tensor: Field[]): number | undefined {
  const field = tensor.find((f) => f.number === 2);
  return field ? int64Of(field) : undefined;
}

interface ConvSettings {
  stride: number;
  padStart: number;
  padEnd: number;
  group: number;
}

function convNamed(branch: Branch, suffix: string): ConvSettings | undefined {
  const matches = branch.nodes.filter((node) => node.opType === 'Conv' && node.name.endsWith(suffix));
  if (matches.length !== 1) return undefined;
  const attributes = (matches[0] as NodeInfo).attributes;
  const ints = (name: string): number[] => {
    const attribute = attributes.get(name);
    return attribute ? int64sOf(attribute, 8) : [];
  };
  const dilations = ints('dilations');
  if (dilations.some((d) => d !== 1)) return undefined;
  const strides = ints('strides');
  const pads = ints('pads');
  const groupField = attributes.get('group')?.find((f) => f.number === 3);
  if (strides.length > 1 || pads.length > 2) return undefined;
  return {
    stride: strides[0] ?? 1,
    padStart: pads[0] ?? 0,
    padEnd: pads[1] ?? 0,
    group: groupField ? int64Of(groupField) : 1,
  };
}
