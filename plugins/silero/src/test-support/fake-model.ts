import type { ExecutorSettings, InferenceExecutor } from '../executor.js';
import type { ExecutorFactory } from '../pool.js';
import {
  batchViews,
  contextSize,
  floatsFor,
  type ModelSampleRate,
  STATE_WIDTH,
  windowSize,
} from '../protocol.js';

export interface FakeCall {
  batch: number;
  steps: number;
  rate: ModelSampleRate;
  /** Per row: the state counter the row arrived with, its context and its new samples. */
  rows: { stateCounter: number; context: Float32Array; window: Float32Array }[];
}

/**
 * A stand-in for the model: a window's probability is the mean of its new samples, so a test writes the
 * probability it wants straight into the audio. Each row's state counts the windows that stream has
 * run since its last reset, which shows whether states stay with their streams.
 */
export class FakeModel {
  readonly calls: FakeCall[] = [];
  /** Makes the n-th call (0-based) fail. */
  failOn = new Set<number>();
  /** While set, runs wait for it. */
  gate: Promise<void> | undefined;

  factory(): ExecutorFactory {
    return async (settings: ExecutorSettings) => this.executor(settings);
  }

  executor(settings: ExecutorSettings): InferenceExecutor {
    const views = batchViews(new ArrayBuffer(floatsFor(settings.maxBatch) * 4), settings.maxBatch);
    return {
      views,
      graphs: {
        16000: { graph: 'original', smallBatchKernel: 'onnxruntime' },
        8000: { graph: 'original', smallBatchKernel: 'onnxruntime' },
      },
      run: async (batch, steps, rate) => {
        const index = this.calls.length;
        const context = contextSize(rate);
        const window = windowSize(rate);
        const row = context + window;
        const call: FakeCall = { batch, steps, rate, rows: [] };
        this.calls.push(call);
        if (this.gate) await this.gate;
        if (this.failOn.has(index)) throw new Error(`fake failure ${index}`);
        for (let step = 0; step < steps; step++) {
          for (let i = 0; i < batch; i++) {
            const at = (step * batch + i) * row;
            const input = views.input.subarray(at, at + row);
            const counter = views.state[i * STATE_WIDTH] as number;
            call.rows.push({
              stateCounter: counter,
              context: input.slice(0, context),
              window: input.slice(context),
            });
            let sum = 0;
            for (let k = context; k < row; k++) sum += input[k] as number;
            views.output[step * batch + i] = Math.min(1, Math.max(0, sum / window));
            views.state[i * STATE_WIDTH] = counter + 1;
            views.state[(batch + i) * STATE_WIDTH] = counter + 1;
          }
        }
        return 0.25;
      },
      close: async () => undefined,
    };
  }
}

/** 16 kHz audio whose consecutive 512-sample windows have the given probabilities under FakeModel. */
export function probabilityAudio(probabilities: number[], window = 512): Int16Array {
  const samples = new Int16Array(probabilities.length * window);
  probabilities.forEach((p, i) => {
    samples.fill(Math.round(p * 32767), i * window, (i + 1) * window);
  });
  return samples;
}

/** `count` copies of `value`, for building probability sequences. */
export function repeat(value: number, count: number): number[] {
  return new Array<number>(count).fill(value);
}
