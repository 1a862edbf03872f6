import { type ExecutorSettings, type InferenceExecutor, InlineExecutor, WorkerExecutor } from './executor.js';
import type { GraphReport } from './model-loader.js';
import type { Placement, PlacementPolicy } from './placement.js';
import { messageOf } from './session.js';
import { contextSize, type ModelSampleRate, maxStepsFor, STATE_WIDTH, windowSize } from './protocol.js';

/**
 * One stream's side of the pool. Streams link themselves into the pending queue (no queue nodes are
 * allocated) and own their recurrent state row, which the pool packs into each batch.
 */
export interface InferenceJob {
  readonly modelRate: ModelSampleRate;
  /** [2][128] recurrent state, read before and written after each window. */
  readonly state: Float32Array;
  nextInQueue: InferenceJob | null;
  queued: boolean;
  inFlight: boolean;
  /** When the pending window was queued (performance.now()), for the batching deadline. */
  enqueuedAt: number;
  /** Complete windows waiting for inference. */
  availableWindows(): number;
  /** Writes context + window number `step` (0 = the next window) into `target` at `offset`. */
  fillWindow(target: Float32Array, offset: number, step: number): void;
  /** One window's result; called for each step of a batch while `inFlight` is still true. */
  completeWindow(probability: number, inferenceMs: number): void;
  /** The batch is over for this job (`inFlight` is false again): queue the next window or finish. */
  resume(): void;
  /** The batch failed; called with `inFlight` already false. */
  failWindow(error: Error): void;
}

export interface PoolSettings extends ExecutorSettings {
  executors: number;
  maxBatchDelayMs: number;
}

export type ExecutorFactory = (settings: ExecutorSettings) => Promise<InferenceExecutor>;

/**
 * `inference: 'auto'`: the pool's own executor runs on the main thread, and `settings.executors` workers
 * start from `workers` only when the policy says the load needs them.
 */
export interface AutoPlacement {
  workers: ExecutorFactory;
  policy: PlacementPolicy;
  warn(message: string): void;
}

/** Below this many rows per worker, splitting a batch costs more CPU than the parallelism saves. */
const MIN_SPLIT = 8;
const RESPAWN_DELAY_MS = 1000;
const TIMER_SLACK_MS = 1;

class JobQueue {
  head: InferenceJob | null = null;
  tail: InferenceJob | null = null;
  size = 0;

  push(job: InferenceJob): void {
    job.nextInQueue = null;
    if (this.tail) this.tail.nextInQueue = job;
    else this.head = job;
    this.tail = job;
    this.size++;
  }

  shift(): InferenceJob {
    const job = this.head as InferenceJob;
    this.head = job.nextInQueue;
    if (!this.head) this.tail = null;
    job.nextInQueue = null;
    this.size--;
    return job;
  }

  remove(job: InferenceJob): void {
    let previous: InferenceJob | null = null;
    for (let node = this.head; node; node = node.nextInQueue) {
      if (node !== job) {
        previous = node;
        continue;
      }
      if (previous) previous.nextInQueue = node.nextInQueue;
      else this.head = node.nextInQueue;
      if (this.tail === node) this.tail = previous;
      node.nextInQueue = null;
      this.size--;
      return;
    }
  }
}

interface Slot {
  executor: InferenceExecutor | undefined;
  busy: boolean;
  /** An auto pool's worker that is being retired: it takes no new batch and closes once idle. */
  retiring: boolean;
  readonly inWorker: boolean;
  count: number;
  steps: number;
  rate: ModelSampleRate;
  readonly jobs: Array<InferenceJob | undefined>;
  readonly onDone: (inferenceMs: number) => void;
  readonly onError: (error: unknown) => void;
}

/**
 * Batches the pending windows of every stream into as few inference calls as latency allows. A batch
 * leaves when it is full, when every active stream has a window waiting, when the streams have a
 * backlog, or when its oldest window has waited `maxBatchDelayMs`; with several idle executors a
 * backlog is split so all cores work.
 */
export class InferencePool {
  private readonly slots: Slot[] = [];
  /** Retired auto workers still running their last batch. */
  private readonly retiring = new Set<Slot>();
  /** The slots batches go to now: every slot, or for an auto pool its inline slot or its workers. */
  private current: Slot[] = this.slots;
  private workerSlots: Slot[] = [];
  private startingWorkers = false;
  private readonly queues: Record<ModelSampleRate, JobQueue> = {
    8000: new JobQueue(),
    16000: new JobQueue(),
  };
  private readonly active: Record<ModelSampleRate, number> = { 8000: 0, 16000: 0 };
  private readonly inFlight: Record<ModelSampleRate, number> = { 8000: 0, 16000: 0 };
  private dispatchScheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly dispatchBound = () => this.dispatch();
  private timerDeadline = Number.POSITIVE_INFINITY;
  private graphReport!: GraphReport;
  private readonly onTimer = () => {
    this.timer = undefined;
    this.timerDeadline = Number.POSITIVE_INFINITY;
    this.dispatch();
  };

  private constructor(
    readonly settings: PoolSettings,
    private readonly factory: ExecutorFactory,
    private readonly auto: AutoPlacement | undefined,
  ) {}

  /** With `auto`, the pool opens one executor from `factory` (the main thread's) and its workers later. */
  static async create(
    settings: PoolSettings,
    factory: ExecutorFactory,
    auto?: AutoPlacement,
  ): Promise<InferencePool> {
    const pool = new InferencePool(settings, factory, auto);
    const executors = await Promise.allSettled(
      Array.from({ length: auto ? 1 : settings.executors }, () => factory(settings)),
    );
    const failed = executors.find((r) => r.status === 'rejected');
    if (failed) {
      await Promise.all(
        executors.map((r) => (r.status === 'fulfilled' ? r.value.close().catch(() => undefined) : undefined)),
      );
      throw (failed as PromiseRejectedResult).reason;
    }
    for (const result of executors) {
      pool.slots.push(pool.makeSlot((result as PromiseFulfilledResult<InferenceExecutor>).value, false));
    }
    pool.graphReport = (executors[0] as PromiseFulfilledResult<InferenceExecutor>).value.graphs;
    return pool;
  }

  /** Which graph runs at each rate: every executor opens the same file the same way. */
  get graphs(): GraphReport {
    return this.graphReport;
  }

  /** Where an auto pool runs new batches now (a pool that is not auto always says main-thread). */
  get placement(): Placement {
    return this.current === this.workerSlots ? 'workers' : 'main-thread';
  }

  /** The stream accepts audio: the batcher waits for its windows before the deadline. */
  activate(job: InferenceJob): void {
    this.active[job.modelRate]++;
  }

  /** The stream will send no more windows beyond those already queued. */
  deactivate(job: InferenceJob): void {
    this.active[job.modelRate]--;
    this.scheduleDispatch();
  }

  enqueue(job: InferenceJob): void {
    if (job.queued || job.inFlight || this.closed) return;
    job.queued = true;
    job.enqueuedAt = performance.now();
    this.queues[job.modelRate].push(job);
    this.scheduleDispatch();
  }

  /** Drops the job's queued window; an in-flight window completes and is ignored by the job. */
  cancel(job: InferenceJob): void {
    if (!job.queued) return;
    this.queues[job.modelRate].remove(job);
    job.queued = false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.armTimer(Number.POSITIVE_INFINITY, 0);
    for (const rate of [8000, 16000] as const) {
      const queue = this.queues[rate];
      while (queue.size > 0) queue.shift().queued = false;
    }
    const all = [...this.slots, ...this.workerSlots, ...this.retiring];
    await Promise.all(all.map((slot) => slot.executor?.close().catch(() => undefined)));
  }

  private makeSlot(executor: InferenceExecutor, inWorker: boolean): Slot {
    const slot: Slot = {
      executor,
      busy: false,
      retiring: false,
      inWorker,
      count: 0,
      steps: 0,
      rate: 16000,
      jobs: new Array<InferenceJob | undefined>(this.settings.maxBatch).fill(undefined),
      onDone: (inferenceMs) => this.finish(slot, inferenceMs),
      onError: (error) => this.fail(slot, error),
    };
    return slot;
  }

  private scheduleDispatch(): void {
    if (this.dispatchScheduled || this.closed) return;
    this.dispatchScheduled = true;
    // A microtask lets every frame pushed in the same tick join one batch.
    queueMicrotask(this.dispatchBound);
  }

  private dispatch(): void {
    this.dispatchScheduled = false;
    if (this.closed) return;
    const now = performance.now();
    let waiting = false;
    for (const slot of this.current) {
      if (slot.busy || !slot.executor) continue;
      const rate = this.pickQueue(now);
      if (rate === undefined) {
        waiting = true;
        break;
      }
      this.launch(slot, rate);
    }
    // Only an idle executor waits for a deadline: a busy pool dispatches again when a batch finishes.
    this.armTimer(
      waiting ? Math.min(this.deadline(8000), this.deadline(16000)) : Number.POSITIVE_INFINITY,
      now,
    );
  }

  /**
   * Keeps one timer, at the deadline that matters now. Every timer that fires is a thread wake-up, which
   * costs about as much CPU as one window's inference on a virtual machine (100-180 µs measured here),
   * so a deadline that passed or no longer exists is disarmed rather than left to fire for nothing.
   */
  private armTimer(deadline: number, now: number): void {
    if (deadline === this.timerDeadline) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDeadline = deadline;
    if (deadline === Number.POSITIVE_INFINITY) return;
    // Timers count whole milliseconds: rounding down would fire early and cost a second wake-up.
    this.timer = setTimeout(this.onTimer, Math.max(0, Math.ceil(deadline - now)));
  }

  /** The rate whose queue may leave now, preferring the longer queue. */
  private pickQueue(now: number): ModelSampleRate | undefined {
    const a = this.ready(16000, now);
    const b = this.ready(8000, now);
    if (a && b) return this.queues[16000].size >= this.queues[8000].size ? 16000 : 8000;
    return a ? 16000 : b ? 8000 : undefined;
  }

  private ready(rate: ModelSampleRate, now: number): boolean {
    const queue = this.queues[rate];
    if (queue.size === 0) return false;
    if (queue.size >= this.settings.maxBatch) return true;
    // Every active stream is waiting: nobody else can join (this is always the case for one stream).
    if (queue.size >= this.active[rate]) return true;
    // A backlog is throughput work: waiting would only idle the executors.
    if ((queue.head as InferenceJob).availableWindows() > 1) return true;
    // Live streams whose windows are in flight count as coming: their next window joins this batch
    // unless the oldest waiting window reaches its deadline first.
    // The timer's clock lags real time by up to a millisecond or so: a window that close to its deadline
    // leaves now rather than costing another wake-up.
    return now - (queue.head as InferenceJob).enqueuedAt >= this.settings.maxBatchDelayMs - TIMER_SLACK_MS;
  }

  private deadline(rate: ModelSampleRate): number {
    const head = this.queues[rate].head;
    return head ? head.enqueuedAt + this.settings.maxBatchDelayMs : Number.POSITIVE_INFINITY;
  }

  private launch(slot: Slot, rate: ModelSampleRate): void {
    const executor = slot.executor as InferenceExecutor;
    const queue = this.queues[rate];
    let take = queue.size;
    // Splitting spreads a backlog (streams fed faster than real time) over all cores. Live windows are
    // better kept in one large batch: per-window cost falls with batch size, and one executor keeps up.
    const backlog = take > this.settings.maxBatch || (queue.head as InferenceJob).availableWindows() > 1;
    if (backlog && take >= 2 * MIN_SPLIT) {
      let idle = 0;
      for (const s of this.current) if (!s.busy && s.executor) idle++;
      if (idle > 1) take = Math.ceil(take / idle);
    }
    take = Math.min(take, this.settings.maxBatch);
    const { input, state } = executor.views;
    const row = windowSize(rate) + contextSize(rate);
    // Streams fed faster than real time have several windows waiting; running them as consecutive
    // steps of one command saves a thread round trip per window. Live streams have one, so steps = 1.
    let steps = maxStepsFor(take, this.settings.maxBatch);
    for (let i = 0; i < take; i++) {
      const job = queue.shift();
      job.queued = false;
      job.inFlight = true;
      slot.jobs[i] = job;
      steps = Math.min(steps, job.availableWindows());
      packState(job.state, state, i, take);
    }
    const stepLength = take * row;
    for (let i = 0; i < take; i++) {
      const job = slot.jobs[i] as InferenceJob;
      for (let step = 0; step < steps; step++) job.fillWindow(input, step * stepLength + i * row, step);
    }
    slot.busy = true;
    slot.count = take;
    slot.steps = steps;
    slot.rate = rate;
    this.inFlight[rate] += take;
    executor.run(take, steps, rate).then(slot.onDone, slot.onError);
  }

  private finish(slot: Slot, inferenceMs: number): void {
    const { output, state } = (slot.executor as InferenceExecutor).views;
    const count = slot.count;
    const steps = slot.steps;
    const perWindowMs = inferenceMs / (count * steps);
    this.release(slot);
    for (let i = 0; i < count; i++) {
      const job = slot.jobs[i] as InferenceJob;
      slot.jobs[i] = undefined;
      unpackState(state, job.state, i, count);
      for (let step = 0; step < steps; step++)
        job.completeWindow(output[step * count + i] as number, perWindowMs);
      job.inFlight = false;
      job.resume();
    }
    if (this.auto) this.observe(slot, inferenceMs);
    this.dispatch();
  }

  private fail(slot: Slot, error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    const count = slot.count;
    this.release(slot);
    if (this.auto && slot.inWorker) {
      if (isDead(slot.executor)) {
        this.workersDied(slot, failure, count);
        return;
      }
      if (slot.retiring) this.closeSlot(slot);
    } else if (slot.executor instanceof WorkerExecutor && !slot.executor.alive) this.respawn(slot);
    for (let i = 0; i < count; i++) {
      const job = slot.jobs[i] as InferenceJob;
      slot.jobs[i] = undefined;
      job.inFlight = false;
      job.failWindow(failure);
    }
    this.dispatch();
  }

  private release(slot: Slot): void {
    slot.busy = false;
    this.inFlight[slot.rate] -= slot.count;
    slot.count = 0;
  }

  /** Auto placement: feeds the policy and moves batches between the main thread and the workers. */
  private observe(slot: Slot, inferenceMs: number): void {
    const auto = this.auto as AutoPlacement;
    const now = performance.now();
    if (slot.retiring) {
      this.closeSlot(slot);
    } else if (slot.inWorker) {
      if (auto.policy.ranInWorker(inferenceMs, now)) this.retireWorkers();
    } else if (auto.policy.ranInline(inferenceMs, now) && !this.startingWorkers) {
      if (this.workerSlots.length === 0) this.startWorkers();
    }
  }

  /**
   * Starts the workers while the main thread goes on running batches; batches move to the workers once
   * they are ready. Switching between batches is safe because streams own their states: a stream has at
   * most one window in flight, wherever it runs, and its state is written back only when that batch ends.
   */
  private startWorkers(): void {
    const auto = this.auto as AutoPlacement;
    const wanted = this.settings.executors;
    this.startingWorkers = true;
    const starting = Array.from({ length: wanted }, () => auto.workers(this.settings));
    void Promise.allSettled(starting).then((results) => {
      this.startingWorkers = false;
      const started: InferenceExecutor[] = [];
      let failure: unknown;
      for (const r of results) {
        if (r.status === 'fulfilled') started.push(r.value);
        else failure ??= r.reason;
      }
      if (this.closed) {
        for (const executor of started) void executor.close().catch(() => undefined);
        return;
      }
      const now = performance.now();
      if (started.length === 0) {
        auto.policy.workersFailed(now);
        auto.warn(
          `Silero VAD keeps inference on the main thread: its worker threads could not start (${messageOf(failure)}); it tries again in ${auto.policy.settings.retryAfterMs / 1000} s if the load still needs them`,
        );
        return;
      }
      if (failure !== undefined) {
        auto.warn(
          `Silero VAD runs inference in ${started.length} of ${wanted} worker threads: the others could not start (${messageOf(failure)})`,
        );
      }
      this.workerSlots = started.map((executor) => this.makeSlot(executor, true));
      this.current = this.workerSlots;
      auto.policy.workersStarted(now);
      this.dispatch();
    });
  }

  /** Back to the main thread: the workers take no new batch and close once their last one is done. */
  private retireWorkers(): void {
    const retiring = this.workerSlots;
    this.workerSlots = [];
    this.current = this.slots;
    (this.auto as AutoPlacement).policy.returnedInline();
    for (const slot of retiring) {
      slot.retiring = true;
      if (slot.busy) this.retiring.add(slot);
      else this.closeSlot(slot);
    }
  }

  private closeSlot(slot: Slot): void {
    this.retiring.delete(slot);
    // After close() the pool closes every executor itself, and a batch may still read its views.
    if (this.closed) return;
    const executor = slot.executor;
    slot.executor = undefined;
    void executor?.close().catch(() => undefined);
  }

  /**
   * An auto pool's worker died during a batch. The batch never ended, so its streams' states are as
   * they were before it and their windows are still buffered: the streams queue the same windows again
   * and they run on the main thread, with nothing lost or repeated. The other workers are retired too
   * (what killed one is likely to kill the next) until the policy tries again.
   */
  private workersDied(slot: Slot, failure: Error, count: number): void {
    for (let i = 0; i < count; i++) {
      const job = slot.jobs[i] as InferenceJob;
      slot.jobs[i] = undefined;
      job.inFlight = false;
      job.resume();
    }
    const wasCurrent = this.workerSlots.includes(slot);
    slot.retiring = true;
    this.closeSlot(slot);
    if (wasCurrent) {
      const auto = this.auto as AutoPlacement;
      this.retireWorkers();
      auto.policy.workersFailed(performance.now());
      auto.warn(
        `Silero VAD moved inference back to the main thread: ${failure.message}; it tries again in ${auto.policy.settings.retryAfterMs / 1000} s if the load still needs workers`,
      );
    }
    this.dispatch();
  }

  private respawn(slot: Slot): void {
    slot.executor = undefined;
    const attempt = () => {
      if (this.closed) return;
      this.factory(this.settings).then(
        (executor) => {
          if (this.closed) {
            void executor.close();
            return;
          }
          slot.executor = executor;
          this.dispatch();
        },
        () => setTimeout(attempt, RESPAWN_DELAY_MS).unref(),
      );
    };
    attempt();
  }
}

/** Whether an executor reports that its thread is gone (a fake or inline executor never does). */
function isDead(executor: InferenceExecutor | undefined): boolean {
  return executor !== undefined && (executor as { alive?: boolean }).alive === false;
}

function packState(from: Float32Array, to: Float32Array, row: number, batch: number): void {
  const a = row * STATE_WIDTH;
  const b = (batch + row) * STATE_WIDTH;
  for (let k = 0; k < STATE_WIDTH; k++) {
    to[a + k] = from[k] as number;
    to[b + k] = from[STATE_WIDTH + k] as number;
  }
}

function unpackState(from: Float32Array, to: Float32Array, row: number, batch: number): void {
  const a = row * STATE_WIDTH;
  const b = (batch + row) * STATE_WIDTH;
  for (let k = 0; k < STATE_WIDTH; k++) {
    to[k] = from[a + k] as number;
    to[STATE_WIDTH + k] = from[b + k] as number;
  }
}

export function createExecutorFactory(mode: 'workers' | 'main-thread', workerUrl?: URL): ExecutorFactory {
  if (mode === 'main-thread') return (settings) => InlineExecutor.create(settings);
  if (!workerUrl) throw new Error('worker inference needs the worker file URL');
  return (settings) => WorkerExecutor.create(settings, workerUrl);
}
