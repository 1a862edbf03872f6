import { readFile } from 'node:fs/promises';
import { SileroModelError } from './errors.js';
import { buildBatchedGraph } from './graph/batched-graph.js';
import { readSileroNetworks } from './graph/silero-weights.js';
import { checkModelFile } from './model-file.js';
import { defaultModelPath } from './model-loader.js';
import type { ModelSampleRate } from './protocol.js';
import { messageOf } from './session.js';

/**
 * The batched graph of a Silero VAD v5/v6 file for one model rate, as ONNX bytes: for running it
 * elsewhere (another runtime, a benchmark). Unlike `SileroVAD.load`, which falls back to the file's own
 * graph, this rejects with `SileroModelError` when the file cannot be read or rebuilt.
 */
export async function buildBatchedModel(
  options: { modelPath?: string; sampleRate?: ModelSampleRate } = {},
): Promise<Uint8Array> {
  const path = options.modelPath ?? defaultModelPath();
  const rate = options.sampleRate ?? 16000;
  await checkModelFile(path);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new SileroModelError(`Silero VAD model at ${path} could not be read: ${messageOf(error)}`, path, {
      cause: error,
    });
  }
  const read = readSileroNetworks(bytes);
  if (!read.ok)
    throw new SileroModelError(
      `The model at ${path} is not laid out as Silero VAD v5/v6: ${read.reason}`,
      path,
    );
  const network = read.networks.get(rate);
  if (!network) throw new SileroModelError(`The model at ${path} has no ${rate} Hz network`, path);
  try {
    return buildBatchedGraph(network);
  } catch (error) {
    throw new SileroModelError(
      `The ${rate} Hz network of ${path} could not be rebuilt: ${messageOf(error)}`,
      path,
      {
        cause: error,
      },
    );
  }
}
