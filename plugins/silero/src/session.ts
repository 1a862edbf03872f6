import type * as Ort from 'onnxruntime-node';
import {
  type BatchViews,
  contextSize,
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
  stateOut: Float32Array;
}

/**
 * Runs batches whose inputs sit in fixed buffers. Tensors are bound once per (rate, batch size) to
 * views of those buffers, and outputs are pre-allocated, so a run allocates nothing of ours.
 */
export class BatchRunner {
  private readonly bound = new Map<number, BoundRun>();
  private readonly stateOut: Float32Array;
  private readonly srTensors: Record<ModelSampleRate, Ort.Tensor>;

  constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    private readonly views: BatchViews,
    private readonly maxBatch: number,
  ) {
    this.stateOut = new Float32Array(maxBatch * STATE_SIZE);
    this.srTensors = {
      8000: new ort.Tensor('int64', BigInt64Array.from([8000n]), []),
      16000: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
    };
  }

  /** Runs `batch` rows at `rate`; afterwards `views.state` holds the new states, `views.output` the probabilities. */
  async run(batch: number, rate: ModelSampleRate): Promise<void> {
    if (batch < 1 || batch > this.maxBatch)
      throw new RangeError(`batch ${batch} outside 1..${this.maxBatch}`);
    const run = this.bind(batch, rate);
    await this.session.run(run.feeds, run.fetches);
    // Inputs and outputs may not alias in onnxruntime, hence the second buffer and this copy.
    this.views.state.set(run.stateOut);
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
    const stateOut = this.stateOut.subarray(0, batch * STATE_SIZE);
    run = {
      stateOut,
      feeds: {
        input: new Tensor('float32', this.views.input.subarray(0, batch * row), [batch, row]),
        state: new Tensor('float32', this.views.state.subarray(0, batch * STATE_SIZE), [
          2,
          batch,
          STATE_WIDTH,
        ]),
        sr: this.srTensors[rate],
      },
      fetches: {
        output: new Tensor('float32', this.views.output.subarray(0, batch), [batch, 1]),
        stateN: new Tensor('float32', stateOut, [2, batch, STATE_WIDTH]),
      },
    };
    this.bound.set(key, run);
    return run;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
