import { createRequire } from 'node:module';
import type * as Ort from 'onnxruntime-node';

export type OrtModule = typeof Ort;

/** Normalizes `import()` of the CommonJS onnxruntime-node package across ESM and CJS callers. */
export async function importOrt(): Promise<OrtModule> {
  const mod = (await import('onnxruntime-node')) as OrtModule & { default?: OrtModule };
  return typeof mod.InferenceSession === 'function' ? mod : (mod.default as OrtModule);
}

export interface SessionSettings {
  modelPath: string;
  intraOpThreads: number;
  forceCPU: boolean;
}

/**
 * What to open: the model file, or a graph built in memory (`label` names it in errors). `inputs` are
 * the input names the graph must have: the file's `input`, `state` and `sr`; a batched graph has no `sr`.
 */
export type ModelSource =
  | { kind: 'file'; path: string }
  | { kind: 'bytes'; bytes: Uint8Array; label: string };

/**
 * One loaded graph. `run` writes into the preallocated output tensors of `fetches`; it returns
 * `undefined` when it ran synchronously (the native binding) and a promise otherwise.
 */
export interface ModelSession {
  /**
   * `native`: onnxruntime-node's synchronous binding; `api`: the public, promise-based `InferenceSession`;
   * `wasm`: the WebAssembly network (`graph/wasm-network.ts`), synchronous.
   */
  readonly kind: 'native' | 'api' | 'wasm';
  readonly inputNames: readonly string[];
  run(feeds: Record<string, Ort.Tensor>, fetches: Record<string, Ort.Tensor>): Promise<unknown> | undefined;
  release(): Promise<void>;
}

/** onnxruntime-node's own session wrap: the object its public session calls inside a setImmediate. */
interface NativeBinding {
  binding: {
    InferenceSession: new () => NativeSession;
  };
  initOrt(): void;
}

interface NativeSession {
  loadModel(path: string, options: Ort.InferenceSession.SessionOptions): void;
  loadModel(
    buffer: ArrayBufferLike,
    byteOffset: number,
    byteLength: number,
    options: Ort.InferenceSession.SessionOptions,
  ): void;
  readonly inputMetadata: ReadonlyArray<{ name: string }>;
  readonly outputMetadata: ReadonlyArray<{ name: string }>;
  run(feeds: object, fetches: object, options: object): unknown;
  dispose(): void;
}

/** Inputs of the Silero VAD v5/v6 file; the batched graph has the first two. */
export const FILE_INPUTS = ['input', 'state', 'sr'] as const;
export const BATCHED_INPUTS = ['input', 'state'] as const;
const NO_RUN_OPTIONS = {};

/**
 * Opens a graph and checks its signature. Errors name the file, so a missing or corrupt model is
 * obvious from the message alone.
 *
 * The public `InferenceSession.run` defers every call through `setImmediate`, validates its arguments
 * and wraps the outputs in new tensors: at one window per call that is 10-15% of the model's own cost.
 * The inference workers only ever run inference, so they call onnxruntime-node's synchronous binding
 * (the object the public session wraps) when this version of the package has it, and fall back to the
 * public API otherwise (`preferNative: false` forces it).
 */
export async function openSession(
  ort: OrtModule,
  source: ModelSource,
  settings: Omit<SessionSettings, 'modelPath'>,
  { preferNative = true }: { preferNative?: boolean } = {},
): Promise<ModelSession> {
  const base: Ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
  const attempts: Ort.InferenceSession.SessionOptions[] = settings.forceCPU
    ? [{ ...base, executionProviders: ['cpu'] }]
    : [
        { ...base, executionProviders: ['cuda', 'cpu'] },
        { ...base, executionProviders: ['cpu'] },
      ];
  const expected = source.kind === 'file' ? FILE_INPUTS : BATCHED_INPUTS;
  const native = preferNative ? loadNativeBinding() : undefined;
  if (native) {
    for (const options of attempts) {
      const session = openNative(native, source, options, expected);
      if (session) return session;
    }
  }
  // Also the path that reports a missing or corrupt file: the native attempts above stay silent.
  let session: Ort.InferenceSession | undefined;
  let failure: unknown;
  for (const options of attempts) {
    try {
      session =
        source.kind === 'file'
          ? await ort.InferenceSession.create(source.path, options)
          : await ort.InferenceSession.create(source.bytes, options);
      break;
    } catch (error) {
      failure ??= error;
    }
  }
  if (!session) {
    throw new Error(
      source.kind === 'file'
        ? `The Silero VAD model at ${source.path} could not be loaded (missing, corrupt or not an ONNX file): ${messageOf(failure)}`
        : `The ${source.label} could not be loaded: ${messageOf(failure)}`,
      { cause: failure },
    );
  }
  if (!hasSignature(session.inputNames, session.outputNames, expected)) {
    const names = session.inputNames;
    await session.release().catch(() => undefined);
    throw notSilero(source, names, expected);
  }
  const api = session;
  return {
    kind: 'api',
    inputNames: api.inputNames,
    run: (feeds, fetches) => api.run(feeds, fetches),
    release: () => api.release(),
  };
}

function loadNativeBinding(): NativeBinding | undefined {
  try {
    const required = createRequire(import.meta.url)(
      'onnxruntime-node/dist/binding',
    ) as Partial<NativeBinding>;
    if (typeof required.initOrt !== 'function' || typeof required.binding?.InferenceSession !== 'function')
      return undefined;
    required.initOrt();
    return required as NativeBinding;
  } catch {
    return undefined;
  }
}

/** A native session, or undefined when this binding cannot open the model this way. */
function openNative(
  native: NativeBinding,
  source: ModelSource,
  options: Ort.InferenceSession.SessionOptions,
  expected: readonly string[],
): ModelSession | undefined {
  let session: NativeSession;
  try {
    session = new native.binding.InferenceSession();
    if (source.kind === 'file') session.loadModel(source.path, options);
    else session.loadModel(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength, options);
  } catch {
    return undefined;
  }
  const inputs = session.inputMetadata.map((m) => m.name);
  const outputs = session.outputMetadata.map((m) => m.name);
  if (!hasSignature(inputs, outputs, expected)) {
    session.dispose();
    throw notSilero(source, inputs, expected);
  }
  return {
    kind: 'native',
    inputNames: inputs,
    run: (feeds, fetches) => {
      session.run(feeds, fetches, NO_RUN_OPTIONS);
      return undefined;
    },
    release: async () => session.dispose(),
  };
}

/** The Silero VAD v5/v6 signature: the expected inputs, `output` and `stateN` out. */
function hasSignature(
  inputs: readonly string[],
  outputs: readonly string[],
  expected: readonly string[],
): boolean {
  return (
    expected.every((name) => inputs.includes(name)) &&
    outputs.includes('output') &&
    outputs.includes('stateN')
  );
}

function notSilero(source: ModelSource, inputs: readonly string[], expected: readonly string[]): Error {
  const what = source.kind === 'file' ? `The model at ${source.path}` : `The ${source.label}`;
  return new Error(
    `${what} is not a Silero VAD v5/v6 model: inputs [${inputs.join(', ')}], expected [${expected.join(', ')}]`,
  );
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
