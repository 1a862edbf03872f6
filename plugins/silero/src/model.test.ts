import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SileroModelError } from './errors.js';
import { batchViews, CONTEXT_16K, floatsFor, STATE_SIZE, WINDOW_16K } from './protocol.js';
import { BatchRunner } from './batch-runner.js';
import { loadModel, type ModelGraph } from './model-loader.js';
import { importOrt, openSession } from './session.js';
import { DEFAULT_MODEL_PATH, SileroVAD } from './vad.js';

describe('loading the model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxwire-silero-model-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ships the model in the package', async () => {
    expect(DEFAULT_MODEL_PATH).toMatch(/silero[/\\]model[/\\]silero_vad\.onnx$/);
    const a = await SileroVAD.load({ inference: 'main-thread' });
    const b = await SileroVAD.load({ inference: 'main-thread', activationThreshold: 0.6 });
    // One session per process: both instances share the pool.
    expect((a as unknown as { pool: unknown }).pool).toBe((b as unknown as { pool: unknown }).pool);
    await a.close();
    const stream = b.stream();
    await stream.close();
    await b.close();
  });

  it('names the path of a missing model', async () => {
    const path = join(dir, 'nope.onnx');
    const error = await SileroVAD.load({ modelPath: path, inference: 'main-thread' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SileroModelError);
    expect((error as SileroModelError).modelPath).toBe(path);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/not found/);
  });

  it('names the path of a corrupt model', async () => {
    const path = join(dir, 'corrupt.onnx');
    writeFileSync(path, Buffer.alloc(64 * 1024, 7));
    const error = await SileroVAD.load({ modelPath: path, inference: 'main-thread' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SileroModelError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/could not be loaded/);
    // A failed load is not cached: the next attempt tries again.
    const again = await SileroVAD.load({ modelPath: path, inference: 'main-thread' }).catch(
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(SileroModelError);
  });

  it('refuses worker inference without a worker file when asked for it explicitly', async () => {
    await expect(SileroVAD.load({ inference: 'workers' })).rejects.toThrow(/worker/);
  });
});

describe('running consecutive windows in one call', () => {
  it.each([
    [true, 'batched'],
    [false, 'batched'],
    [true, 'original'],
    [false, 'original'],
  ] as [boolean, ModelGraph][])(
    'carries each row state from step to step exactly as one window per call does (native binding: %s, %s graph)',
    async (preferNative, graph) => {
      const ort = await importOrt();
      const model = await loadModel(
        ort,
        {
          modelPath: DEFAULT_MODEL_PATH,
          graph,
          intraOpThreads: 1,
          forceCPU: true,
          smallBatchKernel: 'onnxruntime' as const,
        },
        { preferNative },
      );
      expect(model.rates[16000].session.kind).toBe(preferNative ? 'native' : 'api');
      expect(model.rates[16000].graph).toBe(graph);
      expect(model.rates[8000].graph).toBe(graph);
      const runner = new BatchRunner(ort, model, 4);
      const batch = 3;
      const row = WINDOW_16K + CONTEXT_16K;
      const steps = 5; // odd and even step counts end in different state buffers
      const many = batchViews(new ArrayBuffer(floatsFor(4) * 4), 4);
      const one = batchViews(new ArrayBuffer(floatsFor(4) * 4), 4);
      for (let i = 0; i < many.input.length; i++) many.input[i] = Math.sin(i / 7) * 0.3 * ((i >> 11) % 2);
      try {
        for (const count of [steps, steps - 1]) {
          many.state.fill(0);
          one.state.fill(0);
          await runner.run(many, batch, count, 16000);
          for (let step = 0; step < count; step++) {
            one.input.set(many.input.subarray(step * batch * row, (step + 1) * batch * row));
            await runner.run(one, batch, 1, 16000);
            for (let r = 0; r < batch; r++) expect(many.output[step * batch + r]).toBe(one.output[r]);
          }
          for (let k = 0; k < batch * STATE_SIZE; k++) expect(many.state[k]).toBe(one.state[k]);
        }
      } finally {
        await runner.release();
      }
    },
  );

  it.each(['batched', 'original'] as ModelGraph[])(
    'gives bit-identical results through the native binding and the public API (%s graph)',
    async (graph) => {
      const ort = await importOrt();
      const settings = {
        modelPath: DEFAULT_MODEL_PATH,
        graph,
        intraOpThreads: 1,
        forceCPU: true,
        smallBatchKernel: 'onnxruntime' as const,
      };
      const runners = [
        new BatchRunner(ort, await loadModel(ort, settings, { preferNative: true }), 8),
        new BatchRunner(ort, await loadModel(ort, settings, { preferNative: false }), 8),
      ];
      const views = runners.map(() => batchViews(new ArrayBuffer(floatsFor(8) * 4), 8));
      try {
        for (const v of views) {
          for (let i = 0; i < v.input.length; i++)
            v.input[i] = Math.sin(i / 11) * 0.4 * ((i >> 12) % 3 === 0 ? 1 : 0.1);
          v.state.fill(0);
        }
        for (const [i, runner] of runners.entries()) await runner.run(views[i]!, 8, 6, 16000);
        expect(Array.from(views[0]!.output)).toEqual(Array.from(views[1]!.output));
        expect(Array.from(views[0]!.state)).toEqual(Array.from(views[1]!.state));
      } finally {
        await Promise.all(runners.map((r) => r.release()));
      }
    },
  );

  it('reports a corrupt file with its path whichever path is preferred', async () => {
    // The native attempt fails quietly and the public API then produces the message users see.
    const ort = await importOrt();
    const dir = mkdtempSync(join(tmpdir(), 'voxwire-silero-sig-'));
    try {
      const path = join(dir, 'bad.onnx');
      writeFileSync(path, Buffer.alloc(1024, 1));
      for (const preferNative of [true, false]) {
        await expect(
          openSession(ort, { kind: 'file', path }, { intraOpThreads: 1, forceCPU: true }, { preferNative }),
        ).rejects.toThrow(/could not be loaded/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('small batches on the WebAssembly network', () => {
  const base = { modelPath: DEFAULT_MODEL_PATH, intraOpThreads: 1, forceCPU: true };

  it('runs batches of one or two rows on it and larger ones on onnxruntime, with the same results', async () => {
    const ort = await importOrt();
    const hybrid = await loadModel(ort, { ...base, graph: 'batched', smallBatchKernel: 'wasm' });
    const plain = await loadModel(ort, { ...base, graph: 'batched', smallBatchKernel: 'onnxruntime' });
    expect(hybrid.rates[16000].smallBatchKernel).toBe('wasm');
    expect(hybrid.rates[8000].smallBatchKernel).toBe('wasm');
    expect(plain.rates[16000].smallBatchKernel).toBe('onnxruntime');
    const runners = [new BatchRunner(ort, hybrid, 4), new BatchRunner(ort, plain, 4)];
    const views = runners.map(() => batchViews(new ArrayBuffer(floatsFor(4) * 4), 4));
    try {
      for (const batch of [1, 2, 3, 4]) {
        for (const v of views) {
          for (let i = 0; i < v.input.length; i++) v.input[i] = Math.sin(i / 9) * 0.4 * ((i >> 10) % 2);
          v.state.fill(0);
        }
        for (const [i, runner] of runners.entries()) await runner.run(views[i]!, batch, 3, 16000);
        const [wasm, onnx] = views as [BatchViewsOf, BatchViewsOf];
        for (let k = 0; k < 3 * batch; k++)
          expect(Math.abs(wasm.output[k]! - onnx.output[k]!)).toBeLessThan(1e-5);
        for (let k = 0; k < batch * STATE_SIZE; k++)
          expect(Math.abs(wasm.state[k]! - onnx.state[k]!)).toBeLessThan(1e-4);
        // From three rows on both run the same onnxruntime graph: bit for bit the same.
        if (batch > 2)
          expect(Array.from(wasm.output.subarray(0, 3 * batch))).toEqual(
            Array.from(onnx.output.subarray(0, 3 * batch)),
          );
      }
    } finally {
      await Promise.all(runners.map((r) => r.release()));
    }
  });

  it("is not used with the file's own graph, and says so on the instance", async () => {
    const ort = await importOrt();
    const model = await loadModel(ort, { ...base, graph: 'original', smallBatchKernel: 'wasm' });
    expect(model.rates[16000].smallBatchKernel).toBe('onnxruntime');
    await model.release();
    const fallback = await SileroVAD.load({ inference: 'main-thread', modelGraph: 'original' });
    expect(fallback.smallBatchKernel).toBe('onnxruntime');
    await fallback.close();
    const vad = await SileroVAD.load({ inference: 'main-thread' });
    expect(vad.smallBatchKernel).toBe('wasm');
    await vad.close();
    const asked = await SileroVAD.load({ inference: 'main-thread', smallBatchKernel: 'onnxruntime' });
    expect(asked.smallBatchKernel).toBe('onnxruntime');
    await asked.close();
  });

  it('refuses an unknown kernel with a message naming the choices', async () => {
    await expect(
      SileroVAD.load({ inference: 'main-thread', smallBatchKernel: 'gpu' as 'wasm' }),
    ).rejects.toThrow(/smallBatchKernel must be 'wasm' or 'onnxruntime'/);
  });
});

type BatchViewsOf = ReturnType<typeof batchViews>;
