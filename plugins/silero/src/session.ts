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
 * Opens the model and checks it has the v5/v6 signature. Errors name the file, so a missing or
 * corrupt model is obvious from the message alone.
 */
export async function openSession(ort: OrtModule, settings: SessionSettings): Promise<Ort.InferenceSession> {
  const base: Ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
  let session: Ort.InferenceSession;
  try {
    if (settings.forceCPU) {
      session = await ort.InferenceSession.create(settings.modelPath, {
        ...base,
        executionProviders: ['cpu'],
      });
    } else {
      session = await ort.InferenceSession.create(settings.modelPath, {
        ...base,
        executionProviders: ['cuda', 'cpu'],
      }).catch(() =>
        ort.InferenceSession.create(settings.modelPath, { ...base, executionProviders: ['cpu'] }),
      );
    }
  } catch (error) {
    throw new Error(
      `The Silero VAD model at ${settings.modelPath} could not be loaded (missing, corrupt or not an ONNX file): ${messageOf(error)}`,
      { cause: error },
    );
  }
  const expected = ['input', 'state', 'sr'];
  if (
    !expected.every((name) => session.inputNames.includes(name)) ||
    !session.outputNames.includes('stateN')
  ) {
    await session.release().catch(() => undefined);
    throw new Error(
      `The model at ${settings.modelPath} is not a Silero VAD v5/v6 model: inputs [${session.inputNames.join(', ')}], expected [${expected.join(', ')}]`,
    );
  }
  return session;
}

interface BoundRun {
  feeds: Record<string, Ort.Tensor>;
  fetches: Record<string, Ort.Tensor>;
}

/**
 * Runs batches held in `BatchViews` (which may be shared memory: onnxruntime-node refuses
 * SharedArrayBuffer tensors, so each step is copied into private buffers, a few KB). Tensors are bound
 * once per (rate, batch size) and outputs are pre-allocated, so a run allocates nothing of ours.
 */
export class BatchRunner {
  private readonly bound = new Map<number, BoundRun>();
  private readonly input: Float32Array;
  private readonly state: Float32Array;
  private readonly stateOut: Float32Array;
  private readonly output: Float32Array;
  private readonly srTensors: Record<ModelSampleRate, Ort.Tensor>;

  constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    private readonly maxBatch: number,
  ) {
    this.input = new Float32Array(maxBatch * MAX_ROW);
    this.state = new Float32Array(maxBatch * STATE_SIZE);
    this.stateOut = new Float32Array(maxBatch * STATE_SIZE);
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
    const run = this.bind(batch, rate);
    const rowsLength = batch * (windowSize(rate) + contextSize(rate));
    const stateLength = batch * STATE_SIZE;
    copy(views.state, 0, this.state, stateLength);
    for (let step = 0; step < steps; step++) {
      if (stopped()) throw new Error('stopped: the process is exiting');
      copy(views.input, step * rowsLength, this.input, rowsLength);
      await this.session.run(run.feeds, run.fetches);
      // Inputs and outputs may not alias in onnxruntime, hence the second state buffer.
      copy(this.stateOut, 0, this.state, stateLength);
      const out = views.output;
      const at = step * batch;
      for (let i = 0; i < batch; i++) out[at + i] = this.output[i] as number;
    }
    copy(this.state, 0, views.state, stateLength);
  }

  release(): Promise<void> {
    return this.session.release();
  }

  private bind(batch: number, rate: ModelSampleRate): BoundRun {
    const key = rate * 1024 + batch;
    let run = this.bound.get(key);
    if (run) return run;
    const row = windowSize(rate) + contextSize(rate);
    const { Tensor } = this.ort;
    run = {
      feeds: {
        input: new Tensor('float32', this.input.subarray(0, batch * row), [batch, row]),
        state: new Tensor('float32', this.state.subarray(0, batch * STATE_SIZE), [2, batch, STATE_WIDTH]),
        sr: this.srTensors[rate],
      },
      fetches: {
        output: new Tensor('float32', this.output.subarray(0, batch), [batch, 1]),
        stateN: new Tensor('float32', this.stateOut.subarray(0, batch * STATE_SIZE), [2, batch, STATE_WIDTH]),
      },
    };
    this.bound.set(key, run);
    return run;
  }
}

function never(): boolean {
  return false;
}

function copy(from: Float32Array, offset: number, to: Float32Array, length: number): void {
  for (let i = 0; i < length; i++) to[i] = from[offset + i] as number;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
