import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contextSize, type ModelSampleRate, STATE_SIZE, STATE_WIDTH, windowSize } from '../protocol.js';
import { importOrt, type ModelSession, openSession } from '../session.js';
import { audioToolsAvailable, makeFixture } from '../test-support/fixtures.js';
import { DEFAULT_MODEL_PATH } from '../vad.js';
import { buildBatchedGraph } from './batched-graph.js';
import { readSileroNetworks, type SileroNetwork } from './silero-weights.js';
import { WasmSileroNetwork } from './wasm-network.js';

const settings = { intraOpThreads: 1, forceCPU: true };

function network(rate: ModelSampleRate): SileroNetwork {
  const read = readSileroNetworks(readFileSync(DEFAULT_MODEL_PATH));
  if (!read.ok) throw new Error(read.reason);
  return read.networks.get(rate) as SileroNetwork;
}

const tools = audioToolsAvailable();

/**
 * `rows` streams of one spoken sentence, each starting at another point, at `rate`; without the audio
 * tools (outside CI) a harmonic tone in bursts stands in.
 */
function streams(rate: ModelSampleRate, rows: number): Float32Array[] {
  const length = Math.round(rate * 2.4);
  let samples: Float32Array;
  if (tools) {
    const fixture = makeFixture(
      [{ silenceMs: 300 }, { say: 'the quick brown fox jumps over the lazy dog' }, { silenceMs: 400 }],
      rate,
      { noiseAmplitude: 60 },
    );
    samples = Float32Array.from(fixture.samples, (v) => v / 32768);
  } else {
    samples = Float32Array.from({ length: length + rate }, (_, n) =>
      Math.floor(n / (rate / 4)) % 2 ? 0.3 * Math.sin(n * 0.05) + 0.1 * Math.sin(n * 0.13) : 0,
    );
  }
  return Array.from({ length: rows }, (_, k) => {
    const offset = Math.round((k * rate) / 7);
    return samples.subarray(offset, offset + Math.min(length, samples.length - rate));
  });
}

/** Runs both for `steps` windows, each carrying its own state; the largest differences seen. */
async function compare(rate: ModelSampleRate, net: SileroNetwork, batch: number) {
  const ort = await importOrt();
  const session: ModelSession = await openSession(
    ort,
    { kind: 'bytes', bytes: buildBatchedGraph(net), label: 'batched graph' },
    settings,
  );
  const wasm = new WasmSileroNetwork(net);
  const window = windowSize(rate);
  const row = window + contextSize(rate);
  const audio = streams(rate, batch);
  const steps = Math.floor(((audio[0] as Float32Array).length - row) / window);
  let ortState = new Float32Array(batch * STATE_SIZE);
  const wasmState = new Float32Array(batch * STATE_SIZE);
  let probability = 0;
  let state = 0;
  let speech = 0;
  try {
    for (let step = 0; step < steps; step++) {
      const input = new Float32Array(batch * row);
      audio.forEach((stream, b) => {
        input.set(stream.subarray(step * window, step * window + row), b * row);
      });
      const expected = new Float32Array(batch);
      const next = new Float32Array(batch * STATE_SIZE);
      session.run(
        {
          input: new ort.Tensor('float32', input, [batch, row]),
          state: new ort.Tensor('float32', ortState, [2, batch, STATE_WIDTH]),
        },
        {
          output: new ort.Tensor('float32', expected, [batch, 1]),
          stateN: new ort.Tensor('float32', next, [2, batch, STATE_WIDTH]),
        },
      );
      const actual = new Float32Array(batch);
      // The state is updated in place: the session's contract allows state and stateOut to alias.
      wasm.run(input, wasmState, actual, wasmState, batch);
      for (let b = 0; b < batch; b++) {
        probability = Math.max(probability, Math.abs((expected[b] as number) - (actual[b] as number)));
        if ((expected[b] as number) > 0.5) speech++;
      }
      for (let k = 0; k < next.length; k++)
        state = Math.max(state, Math.abs((next[k] as number) - (wasmState[k] as number)));
      ortState = next;
    }
  } finally {
    await session.release();
  }
  return { probability, state, speech };
}

describe('the WebAssembly Silero network', () => {
  it.each([
    [16000, 1],
    [16000, 3],
    [8000, 2],
  ] as [ModelSampleRate, number][])(
    "gives the batched graph's probabilities and states on speech at %i Hz, %i row(s)",
    async (rate, batch) => {
      const result = await compare(rate, network(rate), batch);
      expect(result.speech).toBeGreaterThan(20); // the comparison covers speech, not just silence
      expect(result.probability).toBeLessThan(1e-5);
      expect(result.state).toBeLessThan(1e-4);
    },
  );

  it('computes the STFT as the basis product when the basis is not a windowed DFT', async () => {
    const net = network(16000);
    const basis = Float32Array.from(net.stftBasis.data);
    // A different window on one bin's real row: no longer a windowed DFT, still a valid basis.
    for (let i = 0; i < 256; i++) basis[3 * 256 + i] = (basis[3 * 256 + i] as number) * (1 + i / 512);
    const perturbed = { ...net, stftBasis: { dims: net.stftBasis.dims, data: basis } };
    const result = await compare(16000, perturbed, 2);
    expect(result.probability).toBeLessThan(1e-5);
    expect(result.state).toBeLessThan(1e-4);
  });

  it('refuses a network whose layers do not fit the kernel, so the loader keeps onnxruntime', () => {
    const net = network(16000);
    const [first, ...rest] = net.encoder;
    const odd = {
      ...net,
      encoder: [
        { ...first!, weight: { dims: [126, 129, 3], data: first!.weight.data.subarray(0, 126 * 129 * 3) } },
        ...rest,
      ],
    };
    expect(() => new WasmSileroNetwork(odd)).toThrow(/126 channels/);
  });
});
