import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Ort from 'onnxruntime-node';
import { TurnModelError } from './errors.js';
import type { HashedFeatures } from './features.js';
import { configProblem, type TurnModelConfig } from './model-config.js';
import { INPUT_INDICES, INPUT_WEIGHTS, OUTPUT_PROBABILITY } from './onnx/turn-graph.js';
import { importOrt } from './ort.js';

/** The bundled English model's description (its ONNX file sits beside it). */
export const DEFAULT_MODEL_PATH = fileURLToPath(new URL('../model/turn-detector-en.json', import.meta.url));

export interface LoadedTurnModel {
  readonly config: TurnModelConfig;
  /** Absolute path of the description. */
  readonly configPath: string;
  /** Probability that the turn is complete. */
  run(features: HashedFeatures): Promise<number>;
}

const loaded = new Map<string, Promise<LoadedTurnModel>>();
let sessionsOpened = 0;

/** How many ONNX sessions this process has opened (each model once): for tests of the sharing. */
export function turnModelSessionsOpened(): number {
  return sessionsOpened;
}

/**
 * Loads a model once per process: every caller with the same description path shares one session.
 * A failed load is forgotten, so a later call retries (e.g. after the file was fixed).
 */
export function loadTurnModel(configPath: string = DEFAULT_MODEL_PATH): Promise<LoadedTurnModel> {
  const key = resolve(configPath);
  let entry = loaded.get(key);
  if (!entry) {
    entry = open(key);
    loaded.set(key, entry);
    entry.catch(() => {
      if (loaded.get(key) === entry) loaded.delete(key);
    });
  }
  return entry;
}

async function open(configPath: string): Promise<LoadedTurnModel> {
  let text: string;
  try {
    text = await readFile(configPath, 'utf8');
  } catch (error) {
    throw new TurnModelError(
      `Turn detector model description not found at ${configPath}: ${messageOf(error)}`,
      {
        code: 'not_found',
        modelPath: configPath,
        cause: error,
      },
    );
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new TurnModelError(
      `Turn detector model description at ${configPath} is not JSON: ${messageOf(error)}`,
      {
        code: 'invalid',
        modelPath: configPath,
        cause: error,
      },
    );
  }
  const problem = configProblem(config);
  if (problem !== undefined) {
    throw new TurnModelError(`Turn detector model description at ${configPath} is unusable: ${problem}`, {
      code: 'invalid',
      modelPath: configPath,
    });
  }
  const valid = config as TurnModelConfig;
  const onnxPath = resolve(dirname(configPath), valid.model);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(onnxPath);
  } catch (error) {
    throw new TurnModelError(`Turn detector model not found at ${onnxPath}: ${messageOf(error)}`, {
      code: 'not_found',
      modelPath: onnxPath,
      cause: error,
    });
  }
  const ort = await importOrt();
  let session: Ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(bytes, {
      // One prediction is a few thousand multiply-adds: threads would cost more than they save.
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
  } catch (error) {
    throw new TurnModelError(`Turn detector model at ${onnxPath} could not be loaded: ${messageOf(error)}`, {
      code: 'load_failed',
      modelPath: onnxPath,
      cause: error,
    });
  }
  sessionsOpened++;
  const expected = [INPUT_INDICES, INPUT_WEIGHTS];
  if (
    !expected.every((name) => session.inputNames.includes(name)) ||
    !session.outputNames.includes(OUTPUT_PROBABILITY)
  ) {
    const inputs = session.inputNames.join(', ');
    await session.release().catch(() => undefined);
    throw new TurnModelError(
      `Turn detector model at ${onnxPath} has inputs [${inputs}]; expected [${expected.join(', ')}] and output ${OUTPUT_PROBABILITY}`,
      { code: 'invalid', modelPath: onnxPath },
    );
  }
  return {
    config: valid,
    configPath,
    async run(features) {
      const n = features.indices.length;
      const indices = new BigInt64Array(n);
      for (let i = 0; i < n; i++) indices[i] = BigInt(features.indices[i] as number);
      const result = await session.run({
        [INPUT_INDICES]: new ort.Tensor('int64', indices, [n]),
        [INPUT_WEIGHTS]: new ort.Tensor('float32', features.weights, [n, 1]),
      });
      const output = result[OUTPUT_PROBABILITY];
      const value = (output?.data as Float32Array | undefined)?.[0];
      if (typeof value !== 'number' || Number.isNaN(value))
        throw new Error('turn detector model returned no probability');
      return value;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
