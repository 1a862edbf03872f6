import type { VAD } from '@voxwire/agents';
import { type ProviderCallOptions, SPECIFICATION_VERSION } from '@voxwire/agents/provider-utils';
import { SileroModelError } from './errors.js';
import { SileroWorkerStartError } from './worker-start.js';
import { defaultWorkerUrl } from './executor.js';
import { checkModelFile } from './model-file.js';
import { type ResolvedOptions, resolveOptions, type SileroVADOptions } from './options.js';
import { type Placement, PlacementPolicy } from './placement.js';
import {
  type AutoPlacement,
  createExecutorFactory,
  type ExecutorFactory,
  InferencePool,
  type PoolSettings,
} from './pool.js';
import { defaultModelPath } from './model-loader.js';
import { messageOf } from './session.js';
import { publicStream, type SileroVADStream, StreamCore } from './stream.js';

/** The model shipped in this package. */
export const DEFAULT_MODEL_PATH = defaultModelPath();

interface PoolEntry {
  pool: Promise<InferencePool>;
  users: number;
}

/** One pool (model sessions and workers) per distinct configuration in the process, shared by every VAD. */
const pools = new Map<string, PoolEntry>();
let warnedInline = false;
type Mode = 'auto' | Placement;
let construct: (options: ResolvedOptions, pool: InferencePool, key: string, inference: Mode) => SileroVAD;

/**
 * Silero voice activity detection. `SileroVAD.load()` opens the model once per process (on the main
 * thread, moving to worker threads when the load needs them); every stream shares it and keeps its own
 * recurrent state.
 *
 * ```ts
 * const vad = await SileroVAD.load({ minSilenceDurationMs: 400 });
 * const stream = vad.stream();
 * ```
 */
export class SileroVAD implements VAD {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'silero';
  readonly minSilenceDurationMs: number;
  readonly minSpeechDurationMs: number;
  /**
   * How this instance places inference: `workers` or `main-thread` as asked, or `auto` (the default when
   * the built worker file is found): on the main thread while inference is light, in worker threads once
   * it takes more than 15% of the main thread. `placement` says where it runs now.
   */
  readonly inference: 'auto' | 'workers' | 'main-thread';
  /**
   * The graph that runs at this instance's `sampleRate`: `original` when asked for, or when the batched
   * rebuild did not match this model file (a warning then says why).
   */
  readonly modelGraph: 'batched' | 'original';
  /**
   * How batches of one or two streams' windows run at this instance's `sampleRate`: `wasm` when asked
   * for (the default) and the WebAssembly network matched the model file, otherwise `onnxruntime`.
   */
  readonly smallBatchKernel: 'wasm' | 'onnxruntime';
  private closed = false;
  private readonly streams = new Set<SileroVADStream>();

  static {
    construct = (options, pool, key, inference) => new SileroVAD(options, pool, key, inference);
  }

  private constructor(
    readonly options: Readonly<ResolvedOptions>,
    private readonly pool: InferencePool,
    private readonly poolKey: string,
    inference: Mode,
  ) {
    this.minSilenceDurationMs = options.minSilenceDurationMs;
    this.minSpeechDurationMs = options.minSpeechDurationMs;
    this.inference = inference;
    this.modelGraph = pool.graphs[options.sampleRate].graph;
    this.smallBatchKernel = pool.graphs[options.sampleRate].smallBatchKernel;
  }

  /**
   * Loads the model (or joins the process's already loaded one). Rejects with `SileroModelError`,
   * naming the path, when the file is missing or cannot be loaded.
   */
  static async load(options: SileroVADOptions = {}): Promise<SileroVAD> {
    const resolved = resolveOptions(options, DEFAULT_MODEL_PATH);
    const { mode, workerUrl } = chooseInference(resolved);
    const discriminator = workerUrl?.href ?? '';
    if (mode !== 'auto')
      return openVAD(resolved, mode, createExecutorFactory(mode, workerUrl), discriminator);
    const auto: AutoPlacement = {
      workers: createExecutorFactory('workers', workerUrl),
      policy: new PlacementPolicy(),
      warn: (message) => process.emitWarning(message, { code: 'VOXWIRE_SILERO_WORKERS' }),
    };
    return openVAD(resolved, mode, createExecutorFactory('main-thread'), discriminator, true, auto);
  }

  /** Where the process's inference for this configuration runs now. */
  get placement(): 'workers' | 'main-thread' {
    return this.inference === 'auto' ? this.pool.placement : this.inference;
  }

  stream(options: ProviderCallOptions = {}): SileroVADStream {
    if (this.closed) throw new Error('SileroVAD is closed');
    const core = new StreamCore(this.pool, this.options, options, () => this.streams.delete(stream));
    const stream = publicStream(core);
    this.streams.add(stream);
    return stream;
  }

  /** Closes this instance's streams and releases its use of the shared model; the last user stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Streams cannot outlive the model they run on: their iteration ends instead of hanging.
    await Promise.all([...this.streams].map((stream) => stream.close()));
    const entry = pools.get(this.poolKey);
    if (!entry || --entry.users > 0) return;
    pools.delete(this.poolKey);
    await this.pool.close();
  }
}

async function openVAD(
  options: ResolvedOptions,
  mode: Mode,
  factory: ExecutorFactory,
  discriminator: string,
  checkFile = true,
  auto?: AutoPlacement,
): Promise<SileroVAD> {
  if (checkFile) await checkModelFile(options.modelPath);
  const settings: PoolSettings = {
    modelPath: options.modelPath,
    graph: options.modelGraph,
    smallBatchKernel: options.smallBatchKernel,
    intraOpThreads: options.threads,
    forceCPU: options.forceCPU,
    maxBatch: options.maxBatchSize,
    executors: mode === 'main-thread' ? 1 : options.workers,
    maxBatchDelayMs: options.maxBatchDelayMs,
  };
  const key = JSON.stringify([mode, discriminator, settings]);
  let entry = pools.get(key);
  if (!entry) {
    const pool = InferencePool.create(settings, factory, auto).catch((error: unknown) => {
      pools.delete(key);
      if (error instanceof SileroModelError || error instanceof SileroWorkerStartError) throw error;
      throw new SileroModelError(messageOf(error), options.modelPath, { cause: error });
    });
    entry = { pool, users: 0 };
    pools.set(key, entry);
  }
  entry.users++;
  try {
    const pool = await entry.pool;
    warnOnFallback(options, pool);
    return construct(options, pool, key, mode);
  } catch (error) {
    entry.users--;
    throw error;
  }
}

/**
 * Opens with a custom executor factory: how tests run the whole pipeline on a fake model (with `auto`,
 * `factory` stands for the main thread's executor). Not public.
 */
export function openWithExecutor(
  options: SileroVADOptions,
  factory: ExecutorFactory,
  key: string,
  auto?: AutoPlacement,
): Promise<SileroVAD> {
  const resolved = resolveOptions({ ...options, modelPath: options.modelPath ?? `fake:${key}` }, '');
  return openVAD(resolved, auto ? 'auto' : 'main-thread', factory, key, false, auto);
}

function chooseInference(options: ResolvedOptions): { mode: Mode; workerUrl?: URL } {
  if (options.inference === 'main-thread') return { mode: 'main-thread' };
  const workerUrl = options.workerUrl ?? defaultWorkerUrl();
  if (workerUrl) return { mode: options.inference === 'workers' ? 'workers' : 'auto', workerUrl };
  if (options.inference === 'workers') {
    throw new Error(
      'Silero VAD worker inference needs the built worker (dist/inference-worker.js); pass workerUrl or build the package',
    );
  }
  if (!warnedInline) {
    warnedInline = true;
    process.emitWarning(
      'Silero VAD is running inference on the main thread only: the built worker (plugins/silero/dist/inference-worker.js) was not found, so inference cannot move to worker threads under load as in production. Run `pnpm build` once.',
      { code: 'VOXWIRE_SILERO_INLINE' },
    );
  }
  return { mode: 'main-thread' };
}

const warnedFallback = new Set<string>();

function warnOnFallback(options: ResolvedOptions, pool: InferencePool): void {
  const { fallbackReason } = pool.graphs[options.sampleRate];
  const key = `${options.modelPath}@${options.sampleRate}`;
  if (options.modelGraph !== 'batched' || fallbackReason === undefined || warnedFallback.has(key)) return;
  warnedFallback.add(key);
  process.emitWarning(
    `Silero VAD runs the model file's own graph at ${options.sampleRate} Hz (slower with many streams): the batched graph was not used because ${fallbackReason}`,
    { code: 'VOXWIRE_SILERO_GRAPH' },
  );
}
