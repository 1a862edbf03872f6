/**
 * Checks a batched graph against the model file's own graph before it is trusted: both run the same
 * probe audio (silence, a noisy harmonic sweep, loud noise bursts), each carrying its own recurrent
 * state as a stream would, and every probability and the final states must agree to within float
 * rounding. A file whose layout the rebuild misread fails here, and the plugin keeps the file's graph.
 */
import { contextSize, type ModelSampleRate, STATE_SIZE, STATE_WIDTH, windowSize } from '../protocol.js';
import type { ModelSession, OrtModule } from '../session.js';

const PROBE_ROWS = 3;
const PROBE_STEPS = 12;
/** Measured differences are about 1e-6 (probability) and 3e-5 (state); a misread layer is off by far more. */
const PROBABILITY_TOLERANCE = 1e-4;
const STATE_TOLERANCE = 1e-3;

/** `undefined` when the graphs agree, otherwise what differed. */
export async function compareGraphs(
  ort: OrtModule,
  file: ModelSession,
  batched: ModelSession,
  rate: ModelSampleRate,
): Promise<string | undefined> {
  const row = windowSize(rate) + contextSize(rate);
  let fileState: Float32Array = new Float32Array(PROBE_ROWS * STATE_SIZE);
  let batchedState: Float32Array = new Float32Array(PROBE_ROWS * STATE_SIZE);
  for (let step = 0; step < PROBE_STEPS; step++) {
    const input = probeInput(step, row, windowSize(rate));
    const a = await runOnce(ort, file, rate, input, fileState);
    const b = await runOnce(ort, batched, rate, input, batchedState);
    for (let r = 0; r < PROBE_ROWS; r++) {
      const difference = Math.abs((a.output[r] as number) - (b.output[r] as number));
      if (!(difference <= PROBABILITY_TOLERANCE)) {
        return `probe row ${r}, window ${step}: probability ${b.output[r]} instead of ${a.output[r]}`;
      }
    }
    fileState = a.state;
    batchedState = b.state;
  }
  for (let k = 0; k < fileState.length; k++) {
    const expected = fileState[k] as number;
    if (
      !(Math.abs(expected - (batchedState[k] as number)) <= STATE_TOLERANCE * Math.max(1, Math.abs(expected)))
    ) {
      return `state value ${k} is ${batchedState[k]} instead of ${expected}`;
    }
  }
  return undefined;
}

async function runOnce(
  ort: OrtModule,
  session: ModelSession,
  rate: ModelSampleRate,
  input: Float32Array,
  state: Float32Array,
): Promise<{ output: Float32Array; state: Float32Array }> {
  const row = input.length / PROBE_ROWS;
  const output = new Float32Array(PROBE_ROWS);
  const next = new Float32Array(state.length);
  const feeds: Record<string, InstanceType<OrtModule['Tensor']>> = {
    input: new ort.Tensor('float32', input, [PROBE_ROWS, row]),
    state: new ort.Tensor('float32', state, [2, PROBE_ROWS, STATE_WIDTH]),
  };
  if (session.inputNames.includes('sr'))
    feeds.sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), []);
  const fetches = {
    output: new ort.Tensor('float32', output, [PROBE_ROWS, 1]),
    stateN: new ort.Tensor('float32', next, [2, PROBE_ROWS, STATE_WIDTH]),
  };
  const pending = session.run(feeds, fetches);
  if (pending) await pending;
  return { output, state: next };
}

/** Rows of window `step`: silence, a noisy harmonic sweep, and noise bursts that switch on and off. */
function probeInput(step: number, row: number, hop: number): Float32Array {
  const input = new Float32Array(PROBE_ROWS * row);
  let seed = 12345 + step;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648 - 0.5;
  };
  for (let k = 0; k < row; k++) {
    const n = step * hop + k;
    const pitch = 0.03 + 0.02 * Math.sin(n / 2000);
    input[row + k] = 0.3 * Math.sin(n * pitch) + 0.15 * Math.sin(n * pitch * 2.5) + 0.05 * noise();
    input[2 * row + k] = (step % 4 < 2 ? 0.6 : 0.01) * noise();
  }
  return input;
}
