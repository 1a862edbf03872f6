import { createRequire } from 'node:module';
import type * as Ort from 'onnxruntime-node';
import {
  type BatchViews,
  contextSize,
  MAX_ROW,
  type ModelSampleRate,
  STATE_SIZE,
  STATE_WIDTH,
  windowSize,
} from './protocol.js';

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
 * One loaded model. `run` writes into the preallocated output tensors of `fetches`; it returns
 * `undefined` when it ran synchronously (the native binding) and a promise otherwise.
 */
export interface ModelSession {
  /** `native`: onnxruntime-node's synchronous binding; `api`: the public, promise-based `InferenceSession`. */
  readonly kind: 'native' | 'api';
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
  readonly inputMetadata: ReadonlyArray<{ name: string }>;
  readonly outputMetadata: ReadonlyArray<{ name: string }>;
  run(feeds: object, fetches: object, options: object): unknown;
  dispose(): void;
}

const EXPECTED_INPUTS = ['input', 'state', 'sr'];
const NO_RUN_OPTIONS = {};

/**
 * Opens the model and checks it has the v5/v6 signature. Errors name the file, so a missing or
 * corrupt model is obvious from the message alone.
 *
 * The public `InferenceSession.run` defers every call through `setImmediate`, validates its arguments
 * and wraps the outputs in new tensors: at one window per call that is 10-15% of the model's own cost.
 * The inference workers only ever run inference, so they call onnxruntime-node's synchronous binding
 * (the object the public session wraps) when this version of the package has it, and fall back to the
 * public API otherwise (`preferNative: false` forces it).
 */
export async function openSession(
  ort: OrtModule,
  settings: SessionSettings,
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
  const native = preferNative ? loadNativeBinding() : undefined;
  if (native) {
    for (const options of attempts) {
      const session = openNative(native, settings.modelPath, options);
      if (session) return session;
    }
  }
  // Also the path that reports a missing or corrupt file: the native attempts above stay silent.
  let session: Ort.InferenceSession | undefined;
  let failure: unknown;
  for (const options of attempts) {
    try {
      session = await ort.InferenceSession.create(settings.modelPath, options);
      break;
    } catch (error) {
      failure ??= error;
    }
  }
  if (!session) {
    throw new Error(
      `The Silero VAD model at ${settings.modelPath} could not be loaded (missing, corrupt or not an ONNX file): ${messageOf(failure)}`,
      { cause: failure },
    );
  }
  if (!isSilero(session.inputNames, session.outputNames)) {
    const names = session.inputNames;
    await session.release().catch(() => undefined);
    throw notSilero(settings.modelPath, names);
  }
  const api = session;
  return {
    kind: 'api',
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
  modelPath: string,
  options: Ort.InferenceSession.SessionOptions,
): ModelSession | undefined {
  let session: NativeSession;
  try {
    session = new native.binding.InferenceSession();
    session.loadModel(modelPath, options);
  } catch {
    return undefined;
  }
  const inputs = session.inputMetadata.map((m) => m.name);
  const outputs = session.outputMetadata.map((m) => m.name);
  if (!isSilero(inputs, outputs)) {
    session.dispose();
    throw notSilero(modelPath, inputs);
  }
  return {
    kind: 'native',
    run: (feeds, fetches) => {
      session.run(feeds, fetches, NO_RUN_OPTIONS);
      return undefined;
    },
    release: async () => session.dispose(),
  };
}

/** The Silero VAD v5/v6 signature: `input`, `state` and `sr` in, `stateN` among the outputs. */
function isSilero(inputs: readonly string[], outputs: readonly string[]): boolean {
  return EXPECTED_INPUTS.every((name) => inputs.includes(name)) && outputs.includes('stateN');
}

function notSilero(modelPath: string, inputs: readonly string[]): Error {
  return new Error(
    `The model at ${modelPath} is not a Silero VAD v5/v6 model: inputs [${inputs.join(', ')}], expected [${EXPECTED_INPUTS.join(', ')}]`,
  );
}

/** Feeds and fetches for one (rate, batch size); `flip` reads the state `run` writes, and back. */
interface BoundRun {
  run: RunArgs;
  flip: RunArgs;
  /** Views of the shared input, one per step, so a step's rows are copied with one memcpy. */
  steps: Float32Array[];
  stepsOf: Float32Array | undefined;
}

interface RunArgs {
  feeds: Record<string, Ort.Tensor>;
  fetches: Record<string, Ort.Tensor>;
}

/**
 * Runs batches held in `BatchViews` (which may be shared memory: onnxruntime-node refuses
 * SharedArrayBuffer tensors, so each step's rows are copied into a private buffer, a few KB). Tensors
 * are bound once per (rate, batch size) and outputs are pre-allocated, so a run allocates nothing of
 * ours.
 */
export class BatchRunner {
  private readonly bound = new Map<number, BoundRun>();
  private readonly input: Float32Array;
  /** Two state buffers used in turn: inputs and outputs may not alias in onnxruntime. */
  private readonly stateA: Float32Array;
  private readonly stateB: Float32Array;
  private readonly output: Float32Array;
  private readonly srTensors: Record<ModelSampleRate, Ort.Tensor>;

  constructor(
    private readonly ort: OrtModule,
    private readonly session: ModelSession,
    private readonly maxBatch: number,
  ) {
    this.input = new Float32Array(maxBatch * MAX_ROW);
    this.stateA = new Float32Array(maxBatch * STATE_SIZE);
    this.stateB = new Float32Array(maxBatch * STATE_SIZE);
    this.output = new Float32Array(maxBatch);
    this.srTensors = {
      8000: new ort.Tensor('int64', BigInt64Array.from([8000n]), []),
      16000: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
    };
  }

  /**
   * Runs `steps` consecutive windows of `batch` rows at `rate`, carrying each row's state from step to
   * step. Afterwards `views.state` holds the final states and `views.output` the probabilities.
   */
  async run(
    views: BatchViews,
    batch: number,
    steps: number,
    rate: ModelSampleRate,
    stopped: () => boolean = never,
  ): Promise<void> {
    if (batch < 1 || batch > this.maxBatch)
      throw new RangeError(`batch ${batch} outside 1..${this.maxBatch}`);
    const bound = this.bind(batch, rate);
    const stepInputs = this.stepViews(bound, views, batch, rate, steps);
    const stateLength = batch * STATE_SIZE;
    const input = this.input;
    const output = this.output;
    const out = views.output;
    const stateA = this.stateA;
    const shared = views.state;
    for (let k = 0; k < stateLength; k++) stateA[k] = shared[k] as number;
    // Ping-pong between the two state buffers instead of copying the new state back every step.
    let current = bound.run;
    for (let step = 0; step < steps; step++) {
      if (stopped()) throw new Error('stopped: the process is exiting');
      input.set(stepInputs[step] as Float32Array);
      const pending = this.session.run(current.feeds, current.fetches);
      if (pending) await pending;
      const at = step * batch;
      for (let i = 0; i < batch; i++) out[at + i] = output[i] as number;
      current = current === bound.run ? bound.flip : bound.run;
    }
    // After an odd number of steps the last state went to B.
    const last = steps % 2 === 1 ? this.stateB : this.stateA;
    for (let k = 0; k < stateLength; k++) shared[k] = last[k] as number;
  }

  release(): Promise<void> {
    return this.session.release();
  }

  /** The per-step input views of `views` for this batch shape, made once and reused. */
  private stepViews(
    bound: BoundRun,
    views: BatchViews,
    batch: number,
    rate: ModelSampleRate,
    steps: number,
  ): Float32Array[] {
    if (bound.stepsOf !== views.input) {
      bound.steps.length = 0;
      bound.stepsOf = views.input;
    }
    const rowsLength = batch * (windowSize(rate) + contextSize(rate));
    for (let step = bound.steps.length; step < steps; step++) {
      bound.steps.push(views.input.subarray(step * rowsLength, (step + 1) * rowsLength));
    }
    return bound.steps;
  }

  private bind(batch: number, rate: ModelSampleRate): BoundRun {
    const key = rate * 1024 + batch;
    let bound = this.bound.get(key);
    if (bound) return bound;
    const row = windowSize(rate) + contextSize(rate);
    const { Tensor } = this.ort;
    const input = new Tensor('float32', this.input.subarray(0, batch * row), [batch, row]);
    const output = new Tensor('float32', this.output.subarray(0, batch), [batch, 1]);
    const stateA = new Tensor('float32', this.stateA.subarray(0, batch * STATE_SIZE), [
      2,
      batch,
      STATE_WIDTH,
    ]);
    const stateB = new Tensor('float32', this.stateB.subarray(0, batch * STATE_SIZE), [
      2,
      batch,
      STATE_WIDTH,
    ]);
    const sr = this.srTensors[rate];
    bound = {
      run: { feeds: { input, state: stateA, sr }, fetches: { output, stateN: stateB } },
      flip: { feeds: { input, state: stateB, sr }, fetches: { output, stateN: stateA } },
      steps: [],
      stepsOf: undefined,
    };
    this.bound.set(key, bound);
    return bound;
  }
}

function never(): boolean {
  return false;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
