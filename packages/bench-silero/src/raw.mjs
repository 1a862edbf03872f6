// Raw onnxruntime on the plugin's model, with the public API as a user would call it: the floors the
// plugin is measured against, on the file's own graph or on the plugin's batched graph of the same
// weights. Shared by the main-thread floors and the split floor's threads.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const WINDOW = 512;
export const CONTEXT = 64;

/**
 * The plugin's batched graph of the shipped model (16 kHz), as ONNX bytes. Made once in the case's
 * main thread and handed to the split floor's threads, which then need nothing from the plugin.
 */
export async function batchedGraphBytes() {
  const { buildBatchedModel } = await import('@voxwire/plugin-silero');
  return buildBatchedModel({ sampleRate: 16000 });
}

/**
 * A raw session on the model file the plugin ships (`graph` undefined: the file's own graph, fed its
 * `sr` input) or on the bytes of another graph (the batched one, which has no `sr` input).
 */
export async function openRaw(graph) {
  const require = createRequire(import.meta.url);
  const ort = require('onnxruntime-node');
  const modelPath = join(
    dirname(require.resolve('@voxwire/plugin-silero/package.json')),
    'model/silero_vad.onnx',
  );
  const session = await ort.InferenceSession.create(graph ?? modelPath, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  // Spread into every feed: the file's graph picks its network by `sr`.
  const extra = session.inputNames.includes('sr')
    ? { sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []) }
    : {};
  return { ort, session, extra };
}

/** Runs `windows` windows of every stream in `group`, one row per stream in each call. */
export async function runGroup({ ort, session, extra }, group, windows) {
  const b = group.length;
  const input = new Float32Array(b * (CONTEXT + WINDOW));
  const state = new Float32Array(2 * b * 128);
  const feeds = {
    input: new ort.Tensor('float32', input, [b, CONTEXT + WINDOW]),
    state: new ort.Tensor('float32', state, [2, b, 128]),
    ...extra,
  };
  for (let w = 0; w < windows; w++) {
    for (let r = 0; r < b; r++) {
      const audio = group[r];
      const base = r * (CONTEXT + WINDOW);
      const from = w * WINDOW - CONTEXT;
      for (let k = 0; k < CONTEXT + WINDOW; k++) {
        const at = from + k;
        input[base + k] = at < 0 ? 0 : audio[at] / 32768;
      }
    }
    const result = await session.run(feeds);
    state.set(result.stateN.data);
  }
}
