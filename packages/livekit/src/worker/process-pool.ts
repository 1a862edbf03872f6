import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Job as JobProto } from '@livekit/protocol';
import type { Clock, Logger, TimerHandle } from '@voxwire/agents';
import type { RoomIOOptions } from '../room/room-io-options.js';
import {
  type FromJobProcess,
  JOB_PROCESS_ENV,
  type JobProcessConfig,
  type ToJobProcess,
} from './job-process-protocol.js';
import type { WorkerMetrics } from './metrics.js';
import type { JobHandle, JobOutcome } from './running-job.js';

/** Jobs in a pool of child processes, so a job that hangs its event loop or exits takes only its process down. */
export interface JobProcessOptions {
  /** The agent file each process loads and prewarms (the worker's `agent` is then not run in-process). */
  agentFile: string;
  /** How many processes, each holding several jobs. Default 2. */
  processes?: number;
  /** Node flags of the processes, e.g. `['--import', 'tsx']` for a TypeScript agent file. Default: the worker's. */
  execArgv?: string[];
  /** Extra environment of the processes. */
  env?: Record<string, string>;
  /** How often each process is pinged. Default 2500 ms. */
  pingIntervalMs?: number;
  /** A process that has not answered a ping for this long is killed and its jobs fail. Default 15000 ms. */
  pingTimeoutMs?: number;
  /** Log a warning when a process uses more memory (RSS). Default 1000 MB. */
  memoryWarnMb?: number;
  /** Kill a process above this RSS; 0 (default) never. */
  memoryLimitMb?: number;
  /** Longest a process may take to load and prewarm the agent. Default 30000 ms. */
  startTimeoutMs?: number;
  /** A module exporting `connectRoom(url, token)`, used instead of rtc-node (tests). */
  roomConnectorModule?: string;
  /** The process entry; default the one next to this module. */
  entry?: string;
}

interface PoolContext {
  clock: Clock;
  logger: Logger;
  roomIO: RoomIOOptions;
  jobShutdownTimeoutMs: number;
  /** Receives what the processes measured, with each pong. */
  metrics?: Pick<WorkerMetrics, 'merge'>;
}

class RemoteJob implements JobHandle {
  readonly done: Promise<JobOutcome>;
  resolve!: (outcome: JobOutcome) => void;
  private ended = false;

  constructor(
    readonly id: string,
    readonly roomName: string,
    private readonly process: JobProcess | undefined,
  ) {
    this.done = new Promise((resolve) => {
      this.resolve = (outcome) => {
        if (this.ended) return;
        this.ended = true;
        resolve(outcome);
      };
    });
  }

  end(reason: string): Promise<JobOutcome> {
    this.process?.send({ type: 'end', jobId: this.id, reason });
    return this.done;
  }
}

class JobProcess {
  readonly jobs = new Map<string, RemoteJob>();
  readonly ready: Promise<boolean>;
  private child: ChildProcess;
  private alive = true;
  private started = false;
  /** Why the process could not load the agent, when it said. */
  failure: string | undefined;
  private lastPongAt: number;
  private seq = 0;
  private pinger: TimerHandle | undefined;
  private warnedMemory = false;
  private readonly exited: Promise<void>;

  constructor(
    private readonly options: JobProcessOptions,
    private readonly context: PoolContext,
    private readonly onExit: (process: JobProcess) => void,
  ) {
    const config: JobProcessConfig = {
      agentFile: options.agentFile,
      ...(options.roomConnectorModule ? { roomConnectorModule: options.roomConnectorModule } : {}),
      roomIO: withoutFunctions(context.roomIO),
      jobShutdownTimeoutMs: context.jobShutdownTimeoutMs,
    };
    this.child = fork(options.entry ?? defaultEntry(), [], {
      execArgv: options.execArgv ?? process.execArgv,
      env: { ...process.env, ...options.env, [JOB_PROCESS_ENV]: JSON.stringify(config) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.lastPongAt = context.clock.now();
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise((resolve) => {
      const timer = context.clock.setTimer(options.startTimeoutMs ?? 30_000, () => {
        context.logger.error({ pid: this.pid }, 'a job process did not start in time');
        this.kill();
        resolve(false);
      });
      this.child.on('message', (message: FromJobProcess) => {
        if (message.type === 'ready') {
          timer.cancel();
          this.started = true;
          this.startPinging();
          resolve(true);
        } else if (message.type === 'failed') {
          timer.cancel();
          this.failure = message.message;
          context.logger.error(
            { pid: this.pid, error: message.message },
            'a job process could not load the agent',
          );
          resolve(false);
        } else {
          this.onMessage(message);
        }
      });
      this.child.once('exit', (code, signal) => {
        timer.cancel();
        resolve(false);
        this.onChildExit(code, signal);
      });
    });
    this.child.on('error', (error) => context.logger.warn({ error: error.message }, 'job process error'));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get isAlive(): boolean {
    return this.alive;
  }

  /** Alive and done loading the agent: ready for jobs. */
  get isReady(): boolean {
    return this.alive && this.started;
  }

  send(message: ToJobProcess): void {
    if (!this.alive || !this.child.connected) return;
    try {
      this.child.send(message, (error) => {
        if (error)
          this.context.logger.debug(
            { pid: this.pid, error: error.message },
            'job process did not take a message',
          );
      });
    } catch {
      // The process is going down; its exit fails its jobs.
    }
  }

  run(info: JobProto, url: string, token: string): RemoteJob {
    const job = new RemoteJob(info.id, info.room?.name ?? '', this);
    this.jobs.set(info.id, job);
    this.send({
      type: 'start',
      jobId: info.id,
      job: Buffer.from(info.toBinary()).toString('base64'),
      url,
      token,
    });
    return job;
  }

  kill(): void {
    if (!this.alive) return;
    this.child.kill('SIGKILL');
  }

  /** Asks the process to end its jobs and leave (closing its IPC channel), then kills what is left. */
  async stop(timeoutMs: number): Promise<void> {
    if (!this.alive) return;
    for (const job of this.jobs.values()) job.end('worker closing');
    if (this.child.connected) this.child.disconnect();
    const timer = new AbortController();
    await Promise.race([this.exited, this.context.clock.sleep(timeoutMs, timer.signal).catch(() => {})]);
    timer.abort();
    this.kill();
    await this.exited;
  }

  private onMessage(message: FromJobProcess): void {
    switch (message.type) {
      case 'ended': {
        const job = this.jobs.get(message.jobId);
        this.jobs.delete(message.jobId);
        job?.resolve(message.outcome);
        break;
      }
      case 'pong': {
        this.lastPongAt = this.context.clock.now();
        this.context.metrics?.merge(message.metrics);
        const { memoryWarnMb = 1000, memoryLimitMb = 0 } = this.options;
        if (memoryLimitMb > 0 && message.rssMb > memoryLimitMb) {
          this.context.logger.error(
            { pid: this.pid, rssMb: message.rssMb, memoryLimitMb },
            'job process over its memory limit: killing it',
          );
          this.kill();
        } else if (message.rssMb > memoryWarnMb && !this.warnedMemory) {
          this.warnedMemory = true;
          this.context.logger.warn(
            { pid: this.pid, rssMb: message.rssMb, memoryWarnMb },
            'job process uses a lot of memory',
          );
        }
        break;
      }
    }
  }

  private startPinging(): void {
    const intervalMs = this.options.pingIntervalMs ?? 2500;
    const timeoutMs = this.options.pingTimeoutMs ?? 15_000;
    this.lastPongAt = this.context.clock.now();
    this.pinger = this.context.clock.setRepeatingTimer(intervalMs, () => {
      if (this.context.clock.now() - this.lastPongAt > timeoutMs) {
        this.context.logger.error(
          { pid: this.pid, jobs: [...this.jobs.keys()], timeoutMs },
          'job process unresponsive (its event loop is blocked): killing it',
        );
        this.kill();
        return;
      }
      this.send({ type: 'ping', seq: ++this.seq });
    });
  }

  private onChildExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.alive = false;
    this.pinger?.cancel();
    const how = signal ? `signal ${signal}` : `code ${code}`;
    for (const job of this.jobs.values()) {
      job.resolve({ status: 'failed', error: `the job process exited (${how})` });
    }
    if (this.jobs.size > 0)
      this.context.logger.error({ pid: this.pid, how, jobs: [...this.jobs.keys()] }, 'job process died');
    this.jobs.clear();
    this.onExit(this);
  }
}

/**
 * A few pre-warmed processes, each running several jobs: a job goes to the live process with the
 * fewest jobs. A process that dies (crash, `process.exit`, killed for hanging or memory) fails only its
 * own jobs and is replaced.
 */
export class JobProcessPool {
  private readonly processes = new Set<JobProcess>();
  private closing = false;

  constructor(
    private readonly options: JobProcessOptions,
    private readonly context: PoolContext,
  ) {}

  /** Starts the processes; resolves once each has loaded the agent (or failed to). */
  async start(): Promise<void> {
    const count = Math.max(1, this.options.processes ?? 2);
    const started = Array.from({ length: count }, () => this.spawn());
    const ready = await Promise.all(started.map((p) => p.ready));
    if (!ready.some(Boolean)) {
      const why = started.find((p) => p.failure)?.failure;
      throw new Error(`no job process could load ${this.options.agentFile}${why ? `: ${why}` : ''}`);
    }
  }

  /** The processes ready for jobs. */
  get processIds(): number[] {
    return [...this.processes].filter((p) => p.isReady).map((p) => p.pid ?? -1);
  }

  run(info: JobProto, url: string, token: string): JobHandle {
    const live = [...this.processes].filter((p) => p.isReady);
    const target = live.sort((a, b) => a.jobs.size - b.jobs.size)[0];
    if (!target) {
      const job = new RemoteJob(info.id, info.room?.name ?? '', undefined);
      job.resolve({ status: 'failed', error: 'no job process is running' });
      return job;
    }
    return target.run(info, url, token);
  }

  async close(timeoutMs = 10_000): Promise<void> {
    this.closing = true;
    await Promise.all([...this.processes].map((p) => p.stop(timeoutMs)));
    this.processes.clear();
  }

  private spawn(): JobProcess {
    const process = new JobProcess(this.options, this.context, (dead) => {
      this.processes.delete(dead);
      if (!this.closing) {
        // Replaced after a pause, so an agent file that crashes at once does not spin.
        this.context.clock.setTimer(1000, () => {
          if (!this.closing) this.spawn();
        });
      }
    });
    this.processes.add(process);
    return process;
  }
}

function defaultEntry(): string {
  // Next to this module: src/worker/ in the repository, dist/ once built (tsup emits both entries there).
  const here = import.meta.url;
  const extension = here.endsWith('.ts') ? '.ts' : here.endsWith('.cjs') ? '.cjs' : '.js';
  return fileURLToPath(new URL(`./job-process-main${extension}`, here));
}

function withoutFunctions(options: RoomIOOptions): Omit<RoomIOOptions, 'onDtmf'> {
  const { onDtmf: _onDtmf, ...rest } = options;
  return rest;
}
