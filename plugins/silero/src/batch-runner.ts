import type * as Ort from 'onnxruntime-node';
import type { LoadedModel } from './model-loader.js';
import {
  type BatchViews,
  contextSize,
  MAX_ROW,
  type ModelSampleRate,
  STATE_SIZE,
  STATE_WIDTH,
  windowSize,
} from './protocol.js';
import type { OrtModule } from './session.js';

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
    private readonly model: LoadedModel,
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
    const session = this.model.rates[rate].session;
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
      const pending = session.run(current.feeds, current.fetches);
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
    return this.model.release();
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
    const existing = this.bound.get(key);
    if (existing) return existing;
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
    // The file's graph picks its network with an `sr` input; a batched graph is built for one rate.
    const sr: Record<string, Ort.Tensor> = this.model.rates[rate].session.inputNames.includes('sr')
      ? { sr: this.srTensors[rate] }
      : {};
    const next: BoundRun = {
      run: { feeds: { input, state: stateA, ...sr }, fetches: { output, stateN: stateB } },
      flip: { feeds: { input, state: stateB, ...sr }, fetches: { output, stateN: stateA } },
      steps: [],
      stepsOf: undefined,
    };
    this.bound.set(key, next);
    return next;
  }
}

function never(): boolean {
  return false;
}
