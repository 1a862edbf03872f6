import type { GraphReport, ModelGraph, SmallBatchKernel } from './model-loader.js';

/**
 * Layout of the memory a pool shares with one inference worker. Windows, recurrent states and
 * probabilities travel through a SharedArrayBuffer and the two sides signal with Atomics, so a batch
 * costs no message allocation and no structured clone in either thread.
 */

/** Model input per window: new samples plus the context carried over from the previous window. */
export const WINDOW_16K = 512;
export const CONTEXT_16K = 64;
export const WINDOW_8K = 256;
export const CONTEXT_8K = 32;
/** Silero v5/v6 recurrent state: [2, batch, 128]. */
export const STATE_WIDTH = 128;
export const STATE_SIZE = 2 * STATE_WIDTH;
/** The widest model input row (16 kHz); 8 kHz batches use rows of 288 packed the same way. */
export const MAX_ROW = WINDOW_16K + CONTEXT_16K;

export type ModelSampleRate = 8000 | 16000;

export function windowSize(rate: ModelSampleRate): number {
  return rate === 16000 ? WINDOW_16K : WINDOW_8K;
}

export function contextSize(rate: ModelSampleRate): number {
  return rate === 16000 ? CONTEXT_16K : CONTEXT_8K;
}

/** Int32 control slots. */
export const CTRL_CMD_SEQ = 0; // bumped by the pool for every command
export const CTRL_DONE_SEQ = 1; // set by the worker to the sequence it finished
export const CTRL_CMD = 2;
export const CTRL_BATCH = 3;
export const CTRL_RATE = 4;
export const CTRL_STATUS = 5;
export const CTRL_ERROR_LENGTH = 6;
export const CTRL_STEPS = 7;
/** Set to 1 to make the worker exit at the start of its next run: how tests exercise crash recovery. */
export const CTRL_CRASH = 8;
/** Set to 1 when the process is exiting: the worker stops between steps instead of running on. */
export const CTRL_STOP = 9;
export const CTRL_SLOTS = 10;

/**
 * The shared input buffer holds this many full batches (`maxBatch` rows each). A command may carry
 * consecutive windows of the same streams: a stream with a backlog (audio fed faster than real time)
 * then pays one thread round trip per several windows instead of per window. Smaller batches fit more
 * steps into the same buffer, so a lone backlogged stream gets the most windows per round trip.
 */
export const BUFFER_STEPS = 8;
/**
 * Most consecutive windows one command carries, whatever the batch size: about 16 ms of single-row
 * inference, so a live window queued behind a backlog command does not wait much longer than the
 * batching delay.
 */
export const MAX_STEPS = 64;

/** Most consecutive steps a command of `batch` rows may carry in a buffer made for `maxBatch`. */
export function maxStepsFor(batch: number, maxBatch: number): number {
  return Math.min(MAX_STEPS, Math.floor((BUFFER_STEPS * maxBatch) / batch));
}

export const CMD_RUN = 1;
export const CMD_EXIT = 2;

export const STATUS_OK = 0;
export const STATUS_FAILED = 1;
/** Written by the pool itself when the worker died, to release the waiting batch. */
export const STATUS_CRASHED = 2;

/** Bytes reserved for the text of an inference error. */
export const ERROR_TEXT_BYTES = 2048;

export interface BatchViews {
  /** [steps, batch, row] model input: step after step, rows packed back to back. */
  input: Float32Array;
  /** [2, batch, 128] recurrent state in, replaced by the state after the last step. */
  state: Float32Array;
  /** [steps, batch] speech probability per step and row. */
  output: Float32Array;
}

export function floatsFor(maxBatch: number): number {
  return BUFFER_STEPS * maxBatch * MAX_ROW + maxBatch * STATE_SIZE + BUFFER_STEPS * maxBatch;
}

/** Views over one buffer holding input, state and output for up to `BUFFER_STEPS * maxBatch` windows. */
export function batchViews(buffer: ArrayBufferLike, maxBatch: number): BatchViews {
  const inputLength = BUFFER_STEPS * maxBatch * MAX_ROW;
  const stateLength = maxBatch * STATE_SIZE;
  return {
    input: new Float32Array(buffer, 0, inputLength),
    state: new Float32Array(buffer, inputLength * 4, stateLength),
    output: new Float32Array(buffer, (inputLength + stateLength) * 4, BUFFER_STEPS * maxBatch),
  };
}

/** What the pool hands a worker at start. */
export interface WorkerInit {
  modelPath: string;
  graph: ModelGraph;
  smallBatchKernel: SmallBatchKernel;
  maxBatch: number;
  intraOpThreads: number;
  forceCPU: boolean;
  control: SharedArrayBuffer;
  data: SharedArrayBuffer;
  /** Float64 slot where the worker reports how long the last run took, in ms. */
  timing: SharedArrayBuffer;
  errorText: SharedArrayBuffer;
}

export type WorkerReply = { type: 'ready'; graphs: GraphReport } | { type: 'load-error'; message: string };
