/**
 * One Silero network (one sample rate) for small batches: the STFT as an FFT in JavaScript, every
 * convolution and the LSTM's gate products through a WebAssembly SIMD kernel (`wasm-gemv.ts`).
 *
 * Why it exists: at one or two streams per process onnxruntime is called every 32 ms with one row, and on
 * a shared or virtualized machine its code is out of the caches again by the next call. Measured on the
 * 2-core bench VM (`plugins/silero/README.md`, "Small batches"), an empty two-node onnxruntime graph
 * costs about 15 µs when called back to back and about 220 µs 32 ms after the previous call; the whole
 * network about 50 and 480. This path has no per-call framework: its cold cost is mostly bringing the
 * weights back. Large batches stay on onnxruntime, whose matrix products pay at 16 rows and more
 * (`small-batch-session.ts` picks per call).
 *
 * Same weights and operations as the file's graph, float32 products as onnxruntime's; the loader checks
 * its output against the file's own graph before using it, as it does for the batched graph.
 */
import { contextSize, STATE_WIDTH, windowSize } from '../protocol.js';
import { FftSpectrum, windowOfDft } from './fft-spectrum.js';
import type { ConvLayer, SileroNetwork } from './silero-weights.js';
import { createGemvKernel, type GemvKernel, LENGTH_BLOCK, ROW_BLOCK } from './wasm-gemv.js';

/** An encoder layer placed in the kernel's memory; offsets in floats. */
interface Layer {
  readonly weight: number;
  readonly bias: number;
  /** Floats per output row: kernel x padded input channels. */
  readonly rowStride: number;
  readonly inChannels: number;
  readonly outChannels: number;
  readonly kernel: number;
  readonly stride: number;
  readonly padding: number;
  readonly inTime: number;
  readonly outTime: number;
  readonly input: number;
  readonly output: number;
}

const roundUp = (value: number, block: number) => Math.ceil(value / block) * block;

export class WasmSileroNetwork {
  readonly rowLength: number;
  private readonly kernel: GemvKernel;
  private readonly memory: Float32Array;
  private readonly frameLength: number;
  private readonly hop: number;
  private readonly frames: number;
  private readonly bins: number;
  /** Floats between frames in the spectrum: bins rounded up to the kernel's length block. */
  private readonly binStride: number;
  private readonly reflectPadding: number;
  private readonly padded: Float64Array;
  private readonly fft: FftSpectrum | undefined;
  /** Basis product fallback, when the file's basis is not a windowed DFT. */
  private readonly basis:
    | { weight: number; rows: number; frame: number; out: number; zeroBias: number }
    | undefined;
  private readonly layers: readonly Layer[];
  /** Where the spectrum, the first layer's input, sits in the kernel's memory (floats). */
  private readonly spectrumAt: number;
  private readonly lstm: { weight: number; bias: number; xh: number; gates: number; input: number };
  private readonly decoderWeight: Float32Array;
  private readonly decoderBias: number;

  constructor(network: SileroNetwork) {
    const rate = network.rate;
    this.rowLength = windowSize(rate) + contextSize(rate);
    const [outputs, , frameLength] = network.stftBasis.dims as [number, number, number];
    this.frameLength = frameLength;
    this.hop = network.stftStride;
    this.reflectPadding = network.reflectPadding;
    this.frames = (this.rowLength + this.reflectPadding - frameLength) / this.hop + 1;
    this.bins = outputs / 2;
    if (!Number.isInteger(this.frames) || this.frames < 1 || frameLength % LENGTH_BLOCK !== 0)
      throw new Error(`STFT frames of ${frameLength} every ${this.hop} do not tile the row`);
    this.binStride = roundUp(this.bins, LENGTH_BLOCK);
    this.padded = new Float64Array(this.rowLength + this.reflectPadding);
    const window = windowOfDft(network.stftBasis.data, this.bins, frameLength);
    this.fft = window ? new FftSpectrum(frameLength, window) : undefined;

    // Lay everything out in floats, each block 16-byte aligned, then copy it into the kernel's memory.
    let size = 0;
    const place = (floats: number) => {
      const at = size;
      size += roundUp(floats, LENGTH_BLOCK);
      return at;
    };
    const writes: Array<() => void> = [];
    const spectrum = place(this.frames * this.binStride);
    if (!window) {
      const rows = roundUp(outputs, ROW_BLOCK);
      const basis = {
        weight: place(rows * frameLength),
        rows,
        frame: place(frameLength),
        out: place(rows),
        zeroBias: place(rows),
      };
      this.basis = basis;
      writes.push(() => this.memory.set(network.stftBasis.data, basis.weight));
    } else {
      this.basis = undefined;
    }
    this.spectrumAt = spectrum;
    let time = this.frames;
    let channels = this.bins;
    let inputStride = this.binStride;
    const layers: Layer[] = [];
    for (const layer of network.encoder) {
      const [outChannels, inChannels, kernel] = layer.weight.dims as [number, number, number];
      if (inChannels !== channels) throw new Error(`a layer takes ${inChannels} channels, gets ${channels}`);
      if (outChannels % ROW_BLOCK !== 0 || outChannels % LENGTH_BLOCK !== 0)
        throw new Error(`a layer of ${outChannels} channels does not fit the kernel's blocks`);
      const outTime = Math.floor((time + 2 * layer.padding - kernel) / layer.stride) + 1;
      if (outTime < 1) throw new Error(`no output for ${time} time steps`);
      const rowStride = kernel * inputStride;
      const placed: Layer = {
        weight: place(outChannels * rowStride),
        bias: place(outChannels),
        rowStride,
        inChannels: inputStride,
        outChannels,
        kernel,
        stride: layer.stride,
        padding: layer.padding,
        inTime: time,
        outTime,
        // Where each layer reads and writes is settled below, once the LSTM's input is placed.
        input: 0,
        output: 0,
      };
      layers.push(placed);
      writes.push(() => this.writeLayer(layer, placed, inChannels));
      time = outTime;
      channels = outChannels;
      inputStride = outChannels;
    }
    if (time !== 1) throw new Error(`the encoder ends with ${time} time steps, expected 1`);

    const { weightIh, weightHh, biasIh, biasHh } = network.lstm;
    const hidden = weightHh.dims[1] as number;
    if (hidden !== STATE_WIDTH) throw new Error(`LSTM width ${hidden}, expected ${STATE_WIDTH}`);
    const lstmInput = weightIh.dims[1] as number;
    if (lstmInput !== channels) throw new Error(`LSTM input ${lstmInput}, encoder output ${channels}`);
    const width = lstmInput + hidden;
    this.lstm = {
      weight: place(4 * hidden * width),
      bias: place(4 * hidden),
      xh: place(width),
      gates: place(4 * hidden),
      input: lstmInput,
    };
    // Each layer writes where the next reads; the last one writes the LSTM's input half of [x; h].
    const outputsAt = layers.map((layer, i) =>
      i === layers.length - 1 ? this.lstm.xh : place(layer.outTime * layer.outChannels),
    );
    this.layers = layers.map((layer, i) => ({
      ...layer,
      input: i === 0 ? spectrum : (outputsAt[i - 1] as number),
      output: outputsAt[i] as number,
    }));

    this.kernel = createGemvKernel(size * 4);
    this.memory = new Float32Array(this.kernel.memory.buffer);
    for (const write of writes) write();
    const lstm = this.lstm;
    for (let r = 0; r < 4 * hidden; r++) {
      this.memory.set(weightIh.data.subarray(r * lstmInput, (r + 1) * lstmInput), lstm.weight + r * width);
      this.memory.set(
        weightHh.data.subarray(r * hidden, (r + 1) * hidden),
        lstm.weight + r * width + lstmInput,
      );
      this.memory[lstm.bias + r] = (biasIh.data[r] as number) + (biasHh.data[r] as number);
    }
    this.decoderWeight = Float32Array.from(network.decoderWeight.data);
    this.decoderBias = network.decoderBias.data[0] as number;
  }

  /**
   * The batched graph's contract: `input` [batch, row], `state` [2, batch, 128] in; `output` [batch] and
   * `stateOut` [2, batch, 128] out. `state` and `stateOut` may be the same array.
   */
  run(
    input: Float32Array,
    state: Float32Array,
    output: Float32Array,
    stateOut: Float32Array,
    batch: number,
  ): void {
    for (let b = 0; b < batch; b++) {
      this.spectrum(input, b * this.rowLength);
      for (const layer of this.layers) this.convolve(layer);
      output[b] = this.lstmAndDecoder(state, stateOut, b, batch);
    }
  }

  private writeLayer(layer: ConvLayer, placed: Layer, inChannels: number): void {
    const { kernel, outChannels } = placed;
    const memory = this.memory;
    for (let o = 0; o < outChannels; o++) {
      for (let tap = 0; tap < kernel; tap++) {
        const row = placed.weight + o * placed.rowStride + tap * placed.inChannels;
        for (let c = 0; c < inChannels; c++)
          memory[row + c] = layer.weight.data[(o * inChannels + c) * kernel + tap] as number;
      }
    }
    memory.set(layer.bias.data, placed.bias);
  }

  /** |STFT| of the reflect-padded row, [frame][bin] with rows `binStride` apart. */
  private spectrum(input: Float32Array, offset: number): void {
    const length = this.rowLength;
    const padded = this.padded;
    for (let i = 0; i < length; i++) padded[i] = input[offset + i] as number;
    // Reflection past the last sample, the edge itself not repeated (ONNX Pad, mode reflect).
    for (let k = 0; k < this.reflectPadding; k++) padded[length + k] = padded[length - 2 - k] as number;
    const memory = this.memory;
    for (let f = 0; f < this.frames; f++) {
      const at = this.spectrumAt + f * this.binStride;
      if (this.fft) {
        this.fft.magnitudes(padded, f * this.hop, memory, at);
        continue;
      }
      const basis = this.basis as NonNullable<WasmSileroNetwork['basis']>;
      for (let i = 0; i < this.frameLength; i++) memory[basis.frame + i] = padded[f * this.hop + i] as number;
      this.kernel.gemv(
        4 * basis.weight,
        this.frameLength,
        4 * basis.frame,
        this.frameLength,
        basis.rows,
        4 * basis.out,
        4 * basis.zeroBias,
        false,
      );
      for (let k = 0; k < this.bins; k++) {
        const re = memory[basis.out + k] as number;
        const im = memory[basis.out + this.bins + k] as number;
        memory[at + k] = Math.sqrt(re * re + im * im);
      }
    }
  }

  /** Convolution + ReLU; taps that would only read the zero padding are left out of each product. */
  private convolve(layer: Layer): void {
    const { inChannels, outChannels, kernel, stride, padding, inTime, outTime } = layer;
    for (let t = 0; t < outTime; t++) {
      const first = t * stride - padding;
      const tapLo = Math.max(0, -first);
      const tapHi = Math.min(kernel, inTime - first);
      this.kernel.gemv(
        4 * (layer.weight + tapLo * inChannels),
        layer.rowStride,
        4 * (layer.input + (first + tapLo) * inChannels),
        (tapHi - tapLo) * inChannels,
        outChannels,
        4 * (layer.output + t * outChannels),
        4 * layer.bias,
        true,
      );
    }
  }

  private lstmAndDecoder(state: Float32Array, stateOut: Float32Array, b: number, batch: number): number {
    const hidden = STATE_WIDTH;
    const { weight, bias, xh, gates, input } = this.lstm;
    const memory = this.memory;
    const hAt = b * hidden;
    const cAt = (batch + b) * hidden;
    memory.set(state.subarray(hAt, hAt + hidden), xh + input);
    this.kernel.gemv(
      4 * weight,
      input + hidden,
      4 * xh,
      input + hidden,
      4 * hidden,
      4 * gates,
      4 * bias,
      false,
    );
    let logit = this.decoderBias;
    const decoder = this.decoderWeight;
    for (let i = 0; i < hidden; i++) {
      // PyTorch's gate order: input, forget, cell, output.
      const inputGate = sigmoid(memory[gates + i] as number);
      const forgetGate = sigmoid(memory[gates + hidden + i] as number);
      const cell = Math.tanh(memory[gates + 2 * hidden + i] as number);
      const outputGate = sigmoid(memory[gates + 3 * hidden + i] as number);
      const c = forgetGate * (state[cAt + i] as number) + inputGate * cell;
      const h = outputGate * Math.tanh(c);
      stateOut[hAt + i] = h;
      stateOut[cAt + i] = c;
      if (h > 0) logit += h * (decoder[i] as number);
    }
    return sigmoid(logit);
  }
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}
