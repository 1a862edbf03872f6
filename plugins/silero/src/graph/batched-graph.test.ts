import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchRunner } from '../batch-runner.js';
import { buildBatchedModel } from '../batched-model.js';
import { SileroModelError } from '../errors.js';
import { loadModel } from '../model-loader.js';
import { batchViews, contextSize, floatsFor, type ModelSampleRate, windowSize } from '../protocol.js';
import { importOrt, openSession } from '../session.js';
import { audioToolsAvailable, makeFixture } from '../test-support/fixtures.js';
import { DEFAULT_MODEL_PATH, SileroVAD } from '../vad.js';
import { buildBatchedGraph } from './batched-graph.js';
import { OnnxGraphBuilder } from './onnx-builder.js';
import { readSileroNetworks, type SileroNetwork } from './silero-weights.js';
import { compareGraphs } from './verify-graph.js';

const settings = {
  modelPath: DEFAULT_MODEL_PATH,
  intraOpThreads: 1,
  forceCPU: true,
  smallBatchKernel: 'onnxruntime' as const,
};
const tools = audioToolsAvailable();

describe('reading the Silero weights out of the model file', () => {
  it('finds both networks with the layer settings of Silero v5/v6', () => {
    const read = readSileroNetworks(readFileSync(DEFAULT_MODEL_PATH));
    if (!read.ok) throw new Error(read.reason);
    const wide = read.networks.get(16000) as SileroNetwork;
    const narrow = read.networks.get(8000) as SileroNetwork;
    expect(wide.stftBasis.dims).toEqual([258, 1, 256]);
    expect([wide.stftStride, wide.reflectPadding]).toEqual([128, 64]);
    expect(narrow.stftBasis.dims).toEqual([130, 1, 128]);
    expect([narrow.stftStride, narrow.reflectPadding]).toEqual([64, 32]);
    for (const network of [wide, narrow]) {
      expect(network.encoder.map((layer) => [layer.stride, layer.padding])).toEqual([
        [1, 1],
        [2, 1],
        [2, 1],
        [1, 1],
      ]);
      expect(network.lstm.weightIh.dims).toEqual([512, 128]);
      expect(network.decoderWeight.dims).toEqual([1, 128, 1]);
    }
  });

  it('says why when the bytes are not a model it knows', () => {
    const read = readSileroNetworks(Uint8Array.from([0x3a, 0x02, 0x0a]));
    expect(read.ok).toBe(false);
  });
});

/** Runs `streams` through `runner` window by window, all in one batch per step; returns [step][stream]. */
async function probabilities(
  runner: BatchRunner,
  streams: Float32Array[],
  rate: ModelSampleRate,
  batchSize: number,
): Promise<number[][]> {
  const window = windowSize(rate);
  const context = contextSize(rate);
  const row = window + context;
  const views = batchViews(new ArrayBuffer(floatsFor(batchSize) * 4), batchSize);
  const steps = Math.floor(((streams[0] as Float32Array).length - context) / window);
  const out: number[][] = [];
  for (let first = 0; first < streams.length; first += batchSize) {
    const group = streams.slice(first, first + batchSize);
    views.state.fill(0);
    for (let step = 0; step < steps; step++) {
      group.forEach((audio, i) => {
        views.input.set(audio.subarray(step * window, step * window + row), i * row);
      });
      await runner.run(views, group.length, 1, rate);
      out[step] ??= [];
      group.forEach((_, i) => {
        (out[step] as number[])[first + i] = views.output[i] as number;
      });
    }
  }
  return out;
}

describe.skipIf(!tools)('the batched graph on real speech', () => {
  it.each([16000, 8000] as ModelSampleRate[])(
    'gives the probabilities of the file graph at %i Hz, whatever the batch size',
    async (rate) => {
      const fixture = makeFixture(
        [{ silenceMs: 300 }, { say: 'the quick brown fox jumps over the lazy dog' }, { silenceMs: 400 }],
        rate,
        { noiseAmplitude: 60 },
      );
      // Four streams: the utterance from different starting points, so rows differ within a batch.
      const streams = [0, 1, 2, 3].map((k) => {
        const offset = Math.round((k * rate) / 7);
        const out = new Float32Array(fixture.samples.length - 4 * Math.round(rate / 7));
        for (let i = 0; i < out.length; i++) out[i] = (fixture.samples[i + offset] as number) / 32768;
        return out;
      });
      const ort = await importOrt();
      const file = new BatchRunner(ort, await loadModel(ort, { ...settings, graph: 'original' }), 4);
      const batched = new BatchRunner(ort, await loadModel(ort, { ...settings, graph: 'batched' }), 4);
      try {
        const expected = await probabilities(file, streams, rate, 4);
        const together = await probabilities(batched, streams, rate, 4);
        const alone = await probabilities(batched, streams, rate, 1);
        let worst = 0;
        let speech = 0;
        for (const [step, row] of expected.entries()) {
          for (const [stream, p] of row.entries()) {
            worst = Math.max(worst, Math.abs(p - (together[step]?.[stream] as number)));
            if (p > 0.5) speech++;
            // A row's result does not depend on the rows it shares the call with.
            expect(
              Math.abs((alone[step]?.[stream] as number) - (together[step]?.[stream] as number)),
            ).toBeLessThan(1e-6);
          }
        }
        expect(speech).toBeGreaterThan(20); // the comparison covers speech, not just silence
        expect(worst).toBeLessThan(1e-4);
      } finally {
        await Promise.all([file.release(), batched.release()]);
      }
    },
  );
});

describe('checking the batched graph before using it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxwire-silero-graph-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('notices a rebuild that disagrees with the file', async () => {
    const read = readSileroNetworks(readFileSync(DEFAULT_MODEL_PATH));
    if (!read.ok) throw new Error(read.reason);
    const network = read.networks.get(16000) as SileroNetwork;
    const wrongBias = {
      ...network,
      decoderBias: { dims: [1], data: Float32Array.from([network.decoderBias.data[0]! + 1]) },
    };
    const ort = await importOrt();
    const file = await openSession(ort, { kind: 'file', path: DEFAULT_MODEL_PATH }, settings);
    const good = await openSession(
      ort,
      { kind: 'bytes', bytes: buildBatchedGraph(network), label: 'good' },
      settings,
    );
    const bad = await openSession(
      ort,
      { kind: 'bytes', bytes: buildBatchedGraph(wrongBias), label: 'bad' },
      settings,
    );
    try {
      expect(await compareGraphs(ort, file, good, 16000)).toBeUndefined();
      expect(await compareGraphs(ort, file, bad, 16000)).toMatch(/probability/);
    } finally {
      await Promise.all([file.release(), good.release(), bad.release()]);
    }
  });

  it("keeps the file's own graph, and says why, for a model it cannot rebuild", async () => {
    // A model with Silero's inputs and outputs but none of its layers.
    const g = new OnnxGraphBuilder();
    g.input('input', ['batch', 'samples']);
    g.input('state', [2, 'batch', 128]);
    g.input('sr', [], 'int64');
    const padding = g.floats('unused_padding', [512], new Float32Array(512));
    g.node('Sigmoid', [g.node('ReduceMean', ['input'], { axes: [1], keepdims: 1 })], {}, ['output']);
    g.node('Add', ['state', g.node('ReduceSum', [padding], { keepdims: 0 })], {}, ['stateN']);
    g.output('output', ['batch', 1]);
    g.output('stateN', [2, 'batch', 128]);
    const path = join(dir, 'not-silero-inside.onnx');
    writeFileSync(path, g.toModel('plain'));

    const ort = await importOrt();
    const model = await loadModel(ort, { ...settings, modelPath: path, graph: 'batched' });
    try {
      expect(model.rates[16000].graph).toBe('original');
      expect(model.rates[16000].fallbackReason).toMatch(/not recognized.*If/);
    } finally {
      await model.release();
    }

    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const vad = await SileroVAD.load({ modelPath: path, inference: 'main-thread' });
      expect(vad.modelGraph).toBe('original');
      await vad.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.message).join('\n')).toMatch(/own graph at 16000 Hz/);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('hands out the batched graph as ONNX bytes, or a SileroModelError naming the file', async () => {
    const bytes = await buildBatchedModel({ sampleRate: 8000 });
    const ort = await importOrt();
    const session = await ort.InferenceSession.create(bytes);
    expect(session.inputNames).toEqual(['input', 'state']);
    expect(session.outputNames).toEqual(['output', 'stateN']);
    await session.release();
    const missing = join(dir, 'missing.onnx');
    const error = await buildBatchedModel({ modelPath: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SileroModelError);
    expect((error as SileroModelError).modelPath).toBe(missing);
  });

  it('runs the batched graph for the shipped model', async () => {
    const vad = await SileroVAD.load({ inference: 'main-thread', sampleRate: 8000 });
    expect(vad.modelGraph).toBe('batched');
    await vad.close();
    const file = await SileroVAD.load({ inference: 'main-thread', modelGraph: 'original' });
    expect(file.modelGraph).toBe('original');
    await file.close();
  });
});
