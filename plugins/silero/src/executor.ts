import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  type BatchViews,
  batchViews,
  CMD_EXIT,
  CMD_RUN,
  CTRL_BATCH,
  CTRL_CMD,
  CTRL_CMD_SEQ,
  CTRL_CRASH,
  CTRL_DONE_SEQ,
  CTRL_ERROR_LENGTH,
  CTRL_RATE,
  CTRL_SLOTS,
  CTRL_STATUS,
  CTRL_STEPS,
  CTRL_STOP,
  ERROR_TEXT_BYTES,
  floatsFor,
  type ModelSampleRate,
  STATUS_CRASHED,
  STATUS_OK,
  type WorkerInit,
  type WorkerReply,
} from './protocol.js';
import { BatchRunner } from './batch-runner.js';
import { type GraphReport, loadModel, type ModelSettings, reportOf } from './model-loader.js';
import { importOrt } from './session.js';
import { startWorker } from './worker-start.js';

/**
 * Runs batches of windows. The pool writes rows into `views`, calls `run`, and reads probabilities and
 * new states back from the same views once the promise settles.
 */
export interface InferenceExecutor {
  readonly views: BatchViews;
  /** Which graph runs at each rate. */
  readonly graphs: GraphReport;
  /**
   * Runs `steps` consecutive windows of `batch` rows. Resolves with the inference time in ms; rejects
   * when the batch failed (the views are then stale).
   */
  run(batch: number, steps: number, rate: ModelSampleRate): Promise<number>;
  close(): Promise<void>;
}

export interface ExecutorSettings extends ModelSettings {
  maxBatch: number;
}

/** Inference on the calling thread: the fallback when the worker file is not there (running from sources). */
export class InlineExecutor implements InferenceExecutor {
  readonly views: BatchViews;
  private constructor(
    private readonly runner: BatchRunner,
    views: BatchViews,
    readonly graphs: GraphReport,
  ) {
    this.views = views;
  }

  static async create(settings: ExecutorSettings): Promise<InlineExecutor> {
    const ort = await importOrt();
    const model = await loadModel(ort, settings);
    const views = batchViews(new ArrayBuffer(floatsFor(settings.maxBatch) * 4), settings.maxBatch);
    return new InlineExecutor(new BatchRunner(ort, model, settings.maxBatch), views, reportOf(model));
  }

  async run(batch: number, steps: number, rate: ModelSampleRate): Promise<number> {
    const started = performance.now();
    await this.runner.run(this.views, batch, steps, rate);
    return performance.now() - started;
  }

  close(): Promise<void> {
    return this.runner.release();
  }
}

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
// Node 20 has Atomics.waitAsync; TypeScript's ES2023 lib does not declare it yet.
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/**
 * Inference in a worker thread. Commands and completions are Atomics signals over shared memory;
 * the worker handle is referenced only while a batch runs, so an idle pool never keeps a process alive
 * and a running batch always completes.
 */
export class WorkerExecutor implements InferenceExecutor {
  readonly views: BatchViews;
  private readonly control: Int32Array;
  private readonly timing: Float64Array;
  private readonly errorText: Uint8Array;
  private seq = 0;
  private exited = false;
  private running: Promise<unknown> | undefined;

  private constructor(
    private readonly worker: Worker,
    init: WorkerInit,
    readonly graphs: GraphReport,
  ) {
    this.views = batchViews(init.data, init.maxBatch);
    this.control = new Int32Array(init.control);
    this.timing = new Float64Array(init.timing);
    this.errorText = new Uint8Array(init.errorText);
    worker.on('exit', () => this.onExit());
    worker.on('error', () => this.onExit());
    live.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', settleOnExit);
    }
  }

  /**
   * Called as the process exits: lets a running batch reach the end of its current step. Node
   * terminates worker threads at exit, and onnxruntime aborts the whole process (SIGABRT) when that
   * happens inside one of its calls, so `process.exit()` during inference would otherwise crash.
   */
  settleForExit(deadline: number): void {
    const control = this.control;
    Atomics.store(control, CTRL_STOP, 1);
    while (Atomics.load(control, CTRL_DONE_SEQ) !== this.seq && !this.exited) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      Atomics.wait(control, CTRL_DONE_SEQ, this.seq - 1, left);
    }
  }

  static async create(settings: ExecutorSettings, workerUrl: URL): Promise<WorkerExecutor> {
    const init: WorkerInit = {
      modelPath: settings.modelPath,
      graph: settings.graph,
      smallBatchKernel: settings.smallBatchKernel,
      maxBatch: settings.maxBatch,
      intraOpThreads: settings.intraOpThreads,
      forceCPU: settings.forceCPU,
      control: new SharedArrayBuffer(CTRL_SLOTS * 4),
      data: new SharedArrayBuffer(floatsFor(settings.maxBatch) * 4),
      timing: new SharedArrayBuffer(8),
      errorText: new SharedArrayBuffer(ERROR_TEXT_BYTES),
    };
    const file = fileURLToPath(workerUrl);
    const worker = startWorker(
      (execArgv) => new Worker(file, { workerData: init, name: 'silero-vad-inference', execArgv }),
      process.execArgv,
    );
    const graphs = await new Promise<GraphReport>((resolve, reject) => {
      const onMessage = (reply: WorkerReply) => {
        cleanup();
        if (reply.type === 'ready') resolve(reply.graphs);
        else reject(new Error(reply.message));
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onExit = (code: number) => {
        cleanup();
        reject(new Error(`the Silero inference worker exited during start-up (code ${code})`));
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    worker.unref();
    return new WorkerExecutor(worker, init, graphs);
  }

  get alive(): boolean {
    return !this.exited;
  }

  run(batch: number, steps: number, rate: ModelSampleRate): Promise<number> {
    if (this.exited) return Promise.reject(new Error('the Silero inference worker has exited'));
    const control = this.control;
    const seq = ++this.seq;
    control[CTRL_BATCH] = batch;
    control[CTRL_STEPS] = steps;
    control[CTRL_RATE] = rate;
    control[CTRL_CMD] = CMD_RUN;
    this.worker.ref();
    Atomics.store(control, CTRL_CMD_SEQ, seq);
    Atomics.notify(control, CTRL_CMD_SEQ);
    const waited = waitAsync(control, CTRL_DONE_SEQ, seq - 1);
    const done = waited.async
      ? waited.value.then(() => this.settle())
      : Promise.resolve().then(() => this.settle());
    this.running = done.catch(() => undefined);
    return done;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    await this.running;
    const control = this.control;
    control[CTRL_CMD] = CMD_EXIT;
    Atomics.store(control, CTRL_CMD_SEQ, ++this.seq);
    Atomics.notify(control, CTRL_CMD_SEQ);
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const timer = setTimeout(() => void this.worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }

  /** Makes the worker die at the start of its next batch, as a crash would: for tests of recovery. */
  crashOnNextRun(): void {
    Atomics.store(this.control, CTRL_CRASH, 1);
  }

  private settle(): number {
    this.worker.unref();
    const status = this.control[CTRL_STATUS];
    if (status === STATUS_OK) return this.timing[0] as number;
    if (status === STATUS_CRASHED) throw new Error('the Silero inference worker exited during a batch');
    const length = this.control[CTRL_ERROR_LENGTH] as number;
    // The text lives in shared memory, which TextDecoder refuses to read directly.
    const text = new TextDecoder().decode(this.errorText.slice(0, length));
    throw new Error(`Silero inference failed: ${text}`);
  }

  private onExit(): void {
    if (this.exited) return;
    this.exited = true;
    live.delete(this);
    // Release a batch that is waiting on a worker that will never answer.
    this.control[CTRL_STATUS] = STATUS_CRASHED;
    Atomics.store(this.control, CTRL_DONE_SEQ, this.seq);
    Atomics.notify(this.control, CTRL_DONE_SEQ);
  }
}

const live = new Set<WorkerExecutor>();
let exitHookInstalled = false;

function settleOnExit(): void {
  // Blocking is allowed here and bounded: the process is going away either way.
  const deadline = performance.now() + 500;
  for (const executor of live) executor.settleForExit(deadline);
}

/**
 * The worker next to the running module: the built one (dist/), or, when running from sources under a
 * TypeScript loader the worker inherits (`node --import tsx`, as `pnpm dev` runs), the source file.
 * Undefined otherwise (a test runner that transforms TypeScript itself starts no loader in workers).
 */
export function defaultWorkerUrl(execArgv: readonly string[] = process.execArgv): URL | undefined {
  const built = new URL('./inference-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  const source = new URL('./inference-worker-source.mjs', import.meta.url);
  if (hasTypeScriptLoader(execArgv) && existsSync(fileURLToPath(source))) return source;
  return undefined;
}

/** Whether the flags load tsx (`--import tsx`, `--import=tsx`, `--loader tsx`): a worker given them runs .ts. */
export function hasTypeScriptLoader(execArgv: readonly string[]): boolean {
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, execArgv[i + 1]];
    if ((flag === '--import' || flag === '--loader' || flag === '--experimental-loader') && inline) {
      if (inline === 'tsx' || inline.startsWith('tsx/')) return true;
    }
  }
  return false;
}
