import { availableParallelism } from 'node:os';
import type { ModelSampleRate } from './protocol.js';

export interface SileroVADOptions {
  /** Probability at or above which a window is speech. Default 0.5. */
  activationThreshold?: number;
  /** Probability below which a window is silence while speaking. Default `activationThreshold - 0.15` (at least 0.01). */
  deactivationThreshold?: number;
  /** Speech needed before `start_of_speech`. Default 50 ms. */
  minSpeechDurationMs?: number;
  /** Silence needed before `end_of_speech`. Default 550 ms. */
  minSilenceDurationMs?: number;
  /** Audio kept before the detected start and included in the speech frames. Default 500 ms. */
  prefixPaddingDurationMs?: number;
  /** Longest utterance (with padding) held for `end_of_speech` frames; later audio is not kept. Default 60 000 ms. */
  maxBufferedSpeechMs?: number;
  /** How often `inference_done` is emitted, in ms of audio. Default 32 ms (every window). */
  updateIntervalMs?: number;
  /** Rate the model runs at: 16 000 (512-sample windows) or 8 000 (256). Input of any rate is resampled. Default 16 000. */
  sampleRate?: ModelSampleRate;
  /** Only use the CPU execution provider. Default true. */
  forceCPU?: boolean;
  /** onnxruntime intra-op threads per session. Default 1: parallelism comes from `workers`. */
  threads?: number;
  /** Inference worker threads shared by every stream in the process (with `auto`, once started). Default: available cores, at most 4. */
  workers?: number;
  /**
   * Where inference runs. `auto` (default): on the main thread while inference takes a small share of
   * it, in `workers` worker threads, started then, once it takes more than 15% over 2 s, and back on the
   * main thread after a minute below 6% (see the README's "Placement"); always the main thread when
   * no worker file is found (TypeScript sources run without tsx, as test runners do). `workers`: worker threads from
   * the start. `main-thread`: never worker threads.
   */
  inference?: 'auto' | 'workers' | 'main-thread';
  /** Most streams per inference call. Default 64. */
  maxBatchSize?: number;
  /**
   * Longest a live window waits for other streams' windows to share its inference call, in ms: the
   * latency paid for cheaper inference with many streams. A batch leaves earlier when it is full, when
   * every active stream has a window waiting (always so with one stream) or when streams have a backlog.
   * Default 32 ms, one window: live streams sending equal frames finish their windows in step, so a
   * round of windows spans up to one frame period (20 ms for the usual 20 ms frames), and a delay that
   * covers it puts each stream's window in one shared call instead of splitting the round in two.
   */
  maxBatchDelayMs?: number;
  /** Unanalysed audio a stream holds before it drops the oldest (reported as an error). Default 30 000 ms. */
  maxBacklogMs?: number;
  /** Path of a Silero VAD v5/v6 ONNX file. Default: the model shipped in this package. */
  modelPath?: string;
  /**
   * `batched` (default): the file's weights run in a graph rebuilt so each layer is one matrix product
   * over the whole batch, checked against the file's graph when loaded (probabilities agree to about
   * 1e-6) and about 3x cheaper per window at 16+ streams. `original`: the file's own graph.
   */
  modelGraph?: 'batched' | 'original';
  /**
   * How batches of one or two streams' windows run with the batched graph. `wasm` (default): on a
   * WebAssembly SIMD copy of the network, checked against the file's graph when loaded like the batched
   * graph: a one-row call into onnxruntime costs about 2.5x as much when its code is out of the caches, as
   * it is for a stream or two calling every 32 ms (see the README's "Small batches"). `onnxruntime`: on
   * the batched graph like every other batch.
   */
  smallBatchKernel?: 'wasm' | 'onnxruntime';
  /** URL of the built inference worker, for bundlers that move it. Default: next to this module. */
  workerUrl?: URL;
}

export type ResolvedOptions = Required<Omit<SileroVADOptions, 'workerUrl'>> & { workerUrl: URL | undefined };

export function resolveOptions(options: SileroVADOptions, defaultModelPath: string): ResolvedOptions {
  const activationThreshold = options.activationThreshold ?? 0.5;
  const resolved: ResolvedOptions = {
    activationThreshold,
    deactivationThreshold: options.deactivationThreshold ?? Math.max(activationThreshold - 0.15, 0.01),
    minSpeechDurationMs: options.minSpeechDurationMs ?? 50,
    minSilenceDurationMs: options.minSilenceDurationMs ?? 550,
    prefixPaddingDurationMs: options.prefixPaddingDurationMs ?? 500,
    maxBufferedSpeechMs: options.maxBufferedSpeechMs ?? 60_000,
    updateIntervalMs: options.updateIntervalMs ?? 32,
    sampleRate: options.sampleRate ?? 16000,
    forceCPU: options.forceCPU ?? true,
    threads: options.threads ?? 1,
    workers: options.workers ?? Math.max(1, Math.min(4, availableParallelism())),
    inference: options.inference ?? 'auto',
    maxBatchSize: options.maxBatchSize ?? 64,
    maxBatchDelayMs: options.maxBatchDelayMs ?? 32,
    maxBacklogMs: options.maxBacklogMs ?? 30_000,
    modelPath: options.modelPath ?? defaultModelPath,
    modelGraph: options.modelGraph ?? 'batched',
    smallBatchKernel: options.smallBatchKernel ?? 'wasm',
    workerUrl: options.workerUrl,
  };
  const r = resolved;
  probability('activationThreshold', r.activationThreshold);
  probability('deactivationThreshold', r.deactivationThreshold);
  if (r.deactivationThreshold > r.activationThreshold) {
    throw new RangeError(
      `deactivationThreshold (${r.deactivationThreshold}) must not exceed activationThreshold (${r.activationThreshold})`,
    );
  }
  nonNegative('minSpeechDurationMs', r.minSpeechDurationMs);
  nonNegative('minSilenceDurationMs', r.minSilenceDurationMs);
  nonNegative('prefixPaddingDurationMs', r.prefixPaddingDurationMs);
  positive('maxBufferedSpeechMs', r.maxBufferedSpeechMs);
  positive('updateIntervalMs', r.updateIntervalMs);
  positive('maxBacklogMs', r.maxBacklogMs);
  nonNegative('maxBatchDelayMs', r.maxBatchDelayMs);
  if (r.sampleRate !== 8000 && r.sampleRate !== 16000) {
    throw new RangeError(`sampleRate must be 8000 or 16000, got ${r.sampleRate}`);
  }
  integerAtLeast('threads', r.threads, 1);
  integerAtLeast('workers', r.workers, 1);
  integerAtLeast('maxBatchSize', r.maxBatchSize, 1);
  if (r.modelGraph !== 'batched' && r.modelGraph !== 'original') {
    throw new RangeError(`modelGraph must be 'batched' or 'original', got ${String(r.modelGraph)}`);
  }
  if (r.smallBatchKernel !== 'wasm' && r.smallBatchKernel !== 'onnxruntime') {
    throw new RangeError(
      `smallBatchKernel must be 'wasm' or 'onnxruntime', got ${String(r.smallBatchKernel)}`,
    );
  }
  if (!['auto', 'workers', 'main-thread'].includes(r.inference)) {
    throw new RangeError(`inference must be 'auto', 'workers' or 'main-thread', got ${String(r.inference)}`);
  }
  return resolved;
}

function probability(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must be within 0..1, got ${value}`);
}

function nonNegative(name: string, value: number): void {
  if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`${name} must be >= 0 ms, got ${value}`);
}

function positive(name: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be > 0 ms, got ${value}`);
}

function integerAtLeast(name: string, value: number, min: number): void {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  }
}
