/**
 * Rebuilds one Silero network (one sample rate) as a graph whose every layer is a matrix product over
 * the whole batch.
 *
 * The exported file runs its 1-D convolutions as onnxruntime `Conv` nodes, which compute each batch row
 * on its own with a tiny matrix (the STFT's has 4 columns), and wraps the network in `If` nodes and shape
 * arithmetic that cost a kernel launch each per call. Here the audio is cut into frames by a Gather and
 * every convolution becomes one im2col matrix product of `batch x time` rows, so batching pays: at 16 to
 * 32 rows per call a window costs about a third of what it costs in the file's own graph. Same weights,
 * same operations; results differ only by float rounding (about 1e-6 in the probability), which
 * `compareGraphs` (verify-graph.ts) checks against the file's graph when it is loaded.
 *
 * Layout inside: time-major `[batch, time, channels]`, so a convolution's taps are time positions
 * gathered side by side and its input channels are the contiguous last axis of the matrix product.
 */
import { contextSize, STATE_WIDTH, windowSize } from '../protocol.js';
import { OnnxGraphBuilder } from './onnx-builder.js';
import type { ConvLayer, SileroNetwork } from './silero-weights.js';

const ONNX_LSTM_GATES = ['i', 'o', 'f', 'c'] as const;
/** Rows of each gate in PyTorch's LSTM weights (i, f, g, o); ONNX calls g `c`. */
const TORCH_GATE_INDEX = { i: 0, f: 1, c: 2, o: 3 } as const;

export function buildBatchedGraph(network: SileroNetwork): Uint8Array {
  const g = new OnnxGraphBuilder();
  const rate = network.rate;
  const inputLength = windowSize(rate) + contextSize(rate);
  const input = g.input('input', ['batch', inputLength]);
  const state = g.input('state', [2, 'batch', STATE_WIDTH]);

  let x = spectrum(g, network, input, inputLength);
  let time = framesOf(network, inputLength);
  network.encoder.forEach((layer, index) => {
    const result = convolution(g, layer, x, time, `encoder${index}`);
    x = result.output;
    time = result.time;
  });
  if (time !== 1) throw new Error(`the encoder ends with ${time} time steps, expected 1`);
  const features = g.node('Reshape', [x, g.ints('flatten', [0, -1])]);

  const hidden = network.lstm.weightHh.dims[1] as number;
  if (hidden !== STATE_WIDTH) throw new Error(`LSTM width ${hidden}, expected ${STATE_WIDTH}`);
  g.node('Split', [state], { axis: 0 }, ['h0', 'c0']);
  const sequence = g.node('Unsqueeze', [features, g.ints('time_axis', [0])]);
  g.node(
    'LSTM',
    [
      sequence,
      g.floats(
        'lstm_w',
        [1, 4 * hidden, inputWidth(network)],
        onnxGateOrder(network.lstm.weightIh.data, hidden),
      ),
      g.floats('lstm_r', [1, 4 * hidden, hidden], onnxGateOrder(network.lstm.weightHh.data, hidden)),
      g.floats('lstm_b', [1, 8 * hidden], lstmBias(network, hidden)),
      '',
      'h0',
      'c0',
    ],
    { hidden_size: hidden },
    ['lstm_y', 'h1', 'c1'],
  );
  g.node('Concat', ['h1', 'c1'], { axis: 0 }, ['stateN']);
  const h = g.node('Squeeze', ['h1', g.ints('direction_axis', [0])]);
  const logit = g.node('Add', [
    g.node('MatMul', [g.node('Relu', [h]), g.floats('decoder_w', [hidden, 1], network.decoderWeight.data)]),
    g.floats('decoder_b', [1], network.decoderBias.data),
  ]);
  g.node('Sigmoid', [logit], {}, ['output']);
  g.output('output', ['batch', 1]);
  g.output('stateN', [2, 'batch', STATE_WIDTH]);
  return g.toModel(`silero_vad_batched_${rate / 1000}k`);
}

function framesOf(network: SileroNetwork, inputLength: number): number {
  const frameLength = network.stftBasis.dims[2] as number;
  return (inputLength + network.reflectPadding - frameLength) / network.stftStride + 1;
}

/**
 * |STFT| of each row: [batch, frames, bins]. Frames overlap by whole hops, so after the reflect padding
 * the row is viewed as hops and one Gather puts each frame's hops side by side (copies of whole hops).
 */
function spectrum(g: OnnxGraphBuilder, network: SileroNetwork, input: string, inputLength: number): string {
  const { stftBasis: basis, stftStride: stride, reflectPadding: pad } = network;
  const outputs = basis.dims[0] as number;
  const frameLength = basis.dims[2] as number;
  const padded = inputLength + pad;
  if (frameLength % stride !== 0 || padded % stride !== 0 || pad < 1 || pad > inputLength - 2) {
    throw new Error(`STFT frames of ${frameLength} every ${stride} over ${padded} samples do not tile`);
  }
  const full = g.node('Pad', [input, g.ints('reflect_pads', [0, 0, 0, pad])], { mode: 'reflect' });
  const hops = g.node('Reshape', [full, g.ints('hops_shape', [0, padded / stride, stride])]);
  const frames = framesOf(network, inputLength);
  const parts = frameLength / stride;
  const hopIndices: number[] = [];
  for (let f = 0; f < frames; f++) for (let p = 0; p < parts; p++) hopIndices.push(f + p);
  const framed = g.node('Reshape', [
    g.node('Gather', [hops, g.intsShaped('frame_hops', [frames, parts], hopIndices)], { axis: 1 }),
    g.ints('frames_shape', [0, frames, frameLength]),
  ]);
  const basisT = transpose2d(basis.data, outputs, frameLength);
  const complex = g.node('MatMul', [framed, g.floats('stft_basis', [frameLength, outputs], basisT)]);
  const bins = outputs / 2;
  const part = (name: string, from: number) =>
    g.node('Slice', [
      complex,
      g.ints(`${name}_start`, [from]),
      g.ints(`${name}_end`, [from + bins]),
      g.ints(`${name}_axis`, [2]),
    ]);
  const re = part('real', 0);
  const im = part('imaginary', bins);
  return g.node('Sqrt', [g.node('Add', [g.node('Mul', [re, re]), g.node('Mul', [im, im])])]);
}

/**
 * A 1-D convolution (+ ReLU) over `[batch, time, channels]` as one matrix product: one Gather lays each
 * output step's input taps side by side (im2col). Taps that only ever read padding are dropped, and the
 * zero padding is materialized only when a kept tap reads it.
 */
function convolution(
  g: OnnxGraphBuilder,
  layer: ConvLayer,
  x: string,
  time: number,
  name: string,
): { output: string; time: number } {
  const [outChannels, inChannels, kernel] = layer.weight.dims as [number, number, number];
  const { stride, padding } = layer;
  const outTime = Math.floor((time + 2 * padding - kernel) / stride) + 1;
  if (outTime < 1) throw new Error(`${name}: no output for ${time} time steps`);
  const reads = (tap: number, t: number) => t * stride + tap - padding;
  const inside = (at: number) => at >= 0 && at < time;
  const taps: number[] = [];
  for (let tap = 0; tap < kernel; tap++) {
    if (Array.from({ length: outTime }, (_, t) => reads(tap, t)).some(inside)) taps.push(tap);
  }
  const readsPadding = taps.some((tap) =>
    Array.from({ length: outTime }, (_, t) => reads(tap, t)).some((at) => !inside(at)),
  );
  const source = readsPadding
    ? g.node('Pad', [x, g.ints(`${name}_pads`, [0, padding, 0, 0, padding, 0])])
    : x;
  const shift = readsPadding ? padding : 0;
  const positions: number[] = [];
  for (let t = 0; t < outTime; t++) for (const tap of taps) positions.push(reads(tap, t) + shift);
  const identity = taps.length === 1 && outTime === time && positions.every((at, t) => at === t);
  const im2col = identity
    ? source
    : g.node('Reshape', [
        g.node('Gather', [source, g.intsShaped(`${name}_taps`, [outTime, taps.length], positions)], {
          axis: 1,
        }),
        g.ints(`${name}_columns`, [0, outTime, taps.length * inChannels]),
      ]);
  const weight = new Float32Array(taps.length * inChannels * outChannels);
  taps.forEach((tap, j) => {
    for (let c = 0; c < inChannels; c++) {
      for (let o = 0; o < outChannels; o++) {
        weight[(j * inChannels + c) * outChannels + o] = layer.weight.data[
          (o * inChannels + c) * kernel + tap
        ] as number;
      }
    }
  });
  const product = g.node('MatMul', [
    im2col,
    g.floats(`${name}_w`, [taps.length * inChannels, outChannels], weight),
  ]);
  const biased = g.node('Add', [product, g.floats(`${name}_b`, [outChannels], layer.bias.data)]);
  return { output: g.node('Relu', [biased]), time: outTime };
}

function inputWidth(network: SileroNetwork): number {
  return network.lstm.weightIh.dims[1] as number;
}

/** PyTorch gate rows (i, f, g, o) reordered to ONNX's (i, o, f, c). */
function onnxGateOrder(data: Float32Array, hidden: number): Float32Array {
  const width = data.length / (4 * hidden);
  const out = new Float32Array(data.length);
  ONNX_LSTM_GATES.forEach((gate, slot) => {
    const from = TORCH_GATE_INDEX[gate] * hidden * width;
    out.set(data.subarray(from, from + hidden * width), slot * hidden * width);
  });
  return out;
}

function lstmBias(network: SileroNetwork, hidden: number): Float32Array {
  const out = new Float32Array(8 * hidden);
  out.set(onnxGateOrder(network.lstm.biasIh.data, hidden), 0);
  out.set(onnxGateOrder(network.lstm.biasHh.data, hidden), 4 * hidden);
  return out;
}

function transpose2d(data: Float32Array, rows: number, columns: number): Float32Array {
  const out = new Float32Array(rows * columns);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < columns; c++) out[c * rows + r] = data[r * columns + c] as number;
  return out;
}
