/**
 * Writes a small ONNX model (opset 16, default domain): float32 inputs and outputs, float32 and int64
 * initializers, nodes with integer and string attributes. Just what the batched Silero graph needs.
 */
import { ProtobufWriter } from './protobuf.js';

const IR_VERSION = 8;
const OPSET = 16;
const TENSOR_FLOAT = 1;
const TENSOR_INT64 = 7;
const ATTRIBUTE_INT = 2;
const ATTRIBUTE_STRING = 3;
const ATTRIBUTE_INTS = 7;

/** A dimension: a fixed size or a symbolic name (e.g. `batch`). */
export type Dim = number | string;

export class OnnxGraphBuilder {
  private readonly nodes: ProtobufWriter[] = [];
  private readonly initializers: ProtobufWriter[] = [];
  private readonly inputs: ProtobufWriter[] = [];
  private readonly outputs: ProtobufWriter[] = [];
  private readonly names = new Set<string>();
  private nodeCount = 0;

  input(name: string, dims: readonly Dim[], type: 'float32' | 'int64' = 'float32'): string {
    this.claim(name);
    this.inputs.push(valueInfo(name, dims, type === 'float32' ? TENSOR_FLOAT : TENSOR_INT64));
    return name;
  }

  output(name: string, dims: readonly Dim[]): void {
    this.outputs.push(valueInfo(name, dims, TENSOR_FLOAT));
  }

  floats(name: string, dims: readonly number[], data: Float32Array): string {
    const count = dims.reduce((a, b) => a * b, 1);
    if (data.length !== count)
      throw new RangeError(`${name}: ${data.length} values for dims [${dims.join(', ')}]`);
    this.claim(name);
    const raw = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    this.initializers.push(tensor(name, dims, TENSOR_FLOAT, raw));
    return name;
  }

  ints(name: string, values: readonly number[]): string {
    return this.intsShaped(name, [values.length], values);
  }

  /** An int64 initializer of any shape (e.g. Gather indices). */
  intsShaped(name: string, dims: readonly number[], values: readonly number[]): string {
    this.claim(name);
    const raw = new Uint8Array(values.length * 8);
    const view = new DataView(raw.buffer);
    values.forEach((value, i) => {
      view.setBigInt64(i * 8, BigInt(value), true);
    });
    this.initializers.push(tensor(name, dims, TENSOR_INT64, raw));
    return name;
  }

  /**
   * Adds a node and returns its first output's name. Outputs are named after the node unless given;
   * an empty input name is an omitted optional input.
   */
  node(
    opType: string,
    inputs: readonly string[],
    attributes: Record<string, number | string | readonly number[]> = {},
    outputs?: readonly string[],
  ): string {
    const id = `${opType}_${this.nodeCount++}`;
    const outs = outputs ?? [id];
    for (const out of outs) this.claim(out);
    const node = new ProtobufWriter();
    for (const input of inputs) node.string(1, input);
    for (const out of outs) node.string(2, out);
    node.string(3, id).string(4, opType);
    for (const [name, value] of Object.entries(attributes)) {
      const attribute = new ProtobufWriter().string(1, name);
      if (typeof value === 'number') attribute.int(3, value).int(20, ATTRIBUTE_INT);
      else if (typeof value === 'string') attribute.string(4, value).int(20, ATTRIBUTE_STRING);
      else attribute.packedInts(8, value).int(20, ATTRIBUTE_INTS);
      node.message(5, attribute);
    }
    this.nodes.push(node);
    return outs[0] as string;
  }

  toModel(graphName: string): Uint8Array {
    const graph = new ProtobufWriter();
    for (const node of this.nodes) graph.message(1, node);
    graph.string(2, graphName);
    for (const init of this.initializers) graph.message(5, init);
    for (const input of this.inputs) graph.message(11, input);
    for (const output of this.outputs) graph.message(12, output);
    return new ProtobufWriter()
      .int(1, IR_VERSION)
      .string(2, 'voxwire')
      .message(7, graph)
      .message(8, new ProtobufWriter().string(1, '').int(2, OPSET))
      .finish();
  }

  private claim(name: string): void {
    if (this.names.has(name)) throw new Error(`duplicate tensor name ${name}`);
    this.names.add(name);
  }
}

function tensor(name: string, dims: readonly number[], dataType: number, raw: Uint8Array): ProtobufWriter {
  return new ProtobufWriter().packedInts(1, dims).int(2, dataType).string(8, name).bytes(9, raw);
}

function valueInfo(name: string, dims: readonly Dim[], elementType: number): ProtobufWriter {
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
