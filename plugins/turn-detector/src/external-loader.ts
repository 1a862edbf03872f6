import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { TurnModelError } from './errors.js';
import { importOrt } from './ort.js';
import { parseTokenizer, TokenizerProblem, type WordTokenizer } from './tokenizer.js';

export const INPUT_IDS = 'input_ids';
export const ATTENTION_MASK = 'attention_mask';
export const TOKEN_TYPE_IDS = 'token_type_ids';
const KNOWN_INPUTS = new Set([INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS]);

/** A user-supplied token model, opened once per process per path. */
export interface LoadedTokenModel {
  /** Absolute path of the ONNX file. */
  readonly modelPath: string;
  /** The inputs the model declares, among `input_ids`, `attention_mask`, `token_type_ids`. */
  readonly inputNames: readonly string[];
  /** Probability that the turn is complete, from the token ids of one sequence. */
  run(ids: readonly number[]): Promise<number>;
}

const sessions = new Map<string, Promise<LoadedTokenModel>>();
const tokenizers = new Map<string, Promise<WordTokenizer>>();
let sessionsOpened = 0;

/** How many ONNX sessions this process has opened for user-supplied token models: for tests of the sharing. */
export function tokenModelSessionsOpened(): number {
  return sessionsOpened;
}

/** One promise per key; a failed load is forgotten, so a later call retries (e.g. after the file was fixed). */
function once<T>(cache: Map<string, Promise<T>>, key: string, open: () => Promise<T>): Promise<T> {
  let entry = cache.get(key);
  if (!entry) {
    entry = open();
    cache.set(key, entry);
    entry.catch(() => {
      if (cache.get(key) === entry) cache.delete(key);
    });
  }
  return entry;
}

export function loadTokenModel(modelPath: string): Promise<LoadedTokenModel> {
  const key = resolve(modelPath);
  return once(sessions, key, () => openModel(key));
}

export function loadTokenizer(tokenizerPath: string): Promise<WordTokenizer> {
  const key = resolve(tokenizerPath);
  return once(tokenizers, key, () => openTokenizer(key));
}

async function readOrThrow(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new TurnModelError(`${what} not found at ${path}: ${messageOf(error)}`, {
      code: 'not_found',
      modelPath: path,
      cause: error,
    });
  }
}

async function openTokenizer(path: string): Promise<WordTokenizer> {
  const text = (await readOrThrow(path, 'Turn detector tokenizer')).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TurnModelError(`Turn detector tokenizer at ${path} is not JSON: ${messageOf(error)}`, {
      code: 'invalid',
      modelPath: path,
      cause: error,
    });
  }
  try {
    return parseTokenizer(json);
  } catch (error) {
    if (!(error instanceof TokenizerProblem)) throw error;
    throw new TurnModelError(`Turn detector tokenizer at ${path}: ${error.message}`, {
      code: error.kind,
      modelPath: path,
    });
  }
}

async function openModel(path: string): Promise<LoadedTokenModel> {
  const bytes = await readOrThrow(path, 'Turn detector model');
  const ort = await importOrt();
  let session: Ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(new Uint8Array(bytes), {
      // Same reasoning as the bundled model: one short sequence, threads would cost more than they save.
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
  } catch (error) {
    throw new TurnModelError(`Turn detector model at ${path} could not be loaded: ${messageOf(error)}`, {
      code: 'load_failed',
      modelPath: path,
      cause: error,
    });
  }
  sessionsOpened++;
  const problem = signatureProblem(session);
  if (problem !== undefined) {
    await session.release().catch(() => undefined);
    throw new TurnModelError(`Turn detector model at ${path} ${problem}`, {
      code: 'invalid',
      modelPath: path,
    });
  }
  const inputNames = [...session.inputNames];
  const outputName = session.outputNames[0] as string;
  return {
    modelPath: path,
    inputNames,
    async run(ids) {
      const n = ids.length;
      const feeds: Record<string, Ort.Tensor> = {};
      feeds[INPUT_IDS] = new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]);
      // One unpadded sequence: every position is real, and it is all one segment.
      if (inputNames.includes(ATTENTION_MASK)) {
        feeds[ATTENTION_MASK] = new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]);
      }
      if (inputNames.includes(TOKEN_TYPE_IDS)) {
        feeds[TOKEN_TYPE_IDS] = new ort.Tensor('int64', new BigInt64Array(n), [1, n]);
      }
      const result = await session.run(feeds);
      return probabilityOf(result[outputName]);
    },
  };
}

/** What is wrong with the model's inputs and outputs for this loader, or undefined. */
function signatureProblem(session: Ort.InferenceSession): string | undefined {
  const inputs = session.inputNames;
  const described = `has inputs [${inputs.join(', ')}] and outputs [${session.outputNames.join(', ')}]`;
  if (!inputs.includes(INPUT_IDS)) return `${described}; expected an input ${INPUT_IDS}`;
  const unknown = inputs.filter((name) => !KNOWN_INPUTS.has(name));
  if (unknown.length > 0) {
    return `${described}; cannot feed ${unknown.join(', ')} (only ${[...KNOWN_INPUTS].join(', ')})`;
  }
  for (const meta of session.inputMetadata) {
    if (meta.isTensor && meta.type !== 'int64')
      return `${described}; input ${meta.name} is ${meta.type}, expected int64`;
  }
  if (session.outputNames.length !== 1) return `${described}; expected exactly one output`;
  const output = session.outputMetadata[0];
  if (output?.isTensor) {
    if (output.type !== 'float32')
      return `${described}; output ${output.name} is ${output.type}, expected float32`;
    const size = output.shape.every((dim) => typeof dim === 'number')
      ? (output.shape as number[]).reduce((a, b) => a * b, 1)
      : undefined;
    if (size !== undefined && size !== 1 && size !== 2) {
      return `${described}; output ${output.name} has shape [${output.shape.join(', ')}], expected [1], [1, 1] or [1, 2]`;
    }
  }
  return undefined;
}

/** One value is a probability; two are logits of [incomplete, complete], softmaxed. */
function probabilityOf(output: Ort.OnnxValue | undefined): number {
  const data = (output as Ort.Tensor | undefined)?.data;
  if (!(data instanceof Float32Array)) throw new Error('turn detector model returned no float32 output');
  if (data.length === 1) {
    const p = data[0] as number;
    if (!(p >= 0 && p <= 1)) throw new Error(`turn detector model returned ${p}, not a probability`);
    return p;
  }
  if (data.length === 2) {
    const [incomplete, complete] = data as unknown as [number, number];
    const p = 1 / (1 + Math.exp(incomplete - complete));
    if (Number.isNaN(p)) throw new Error('turn detector model returned NaN logits');
    return p;
  }
  throw new Error(
    `turn detector model returned ${data.length} values; expected 1 (probability) or 2 (logits)`,
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
