import { EventEmitter } from 'node:events';
import { type AvailabilityRequest, JobStatus, type JobAssignment, WorkerStatus } from '@livekit/protocol';
import {
  type Clock,
  defaultLogger,
  type Logger,
  prewarmAgent,
  realClock,
  type TimerHandle,
} from '@voxwire/agents';
import {
  APIConnectionError,
  APIError,
  isAbortError,
  openWebSocket,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
  type SocketConnection,
  type WebSocketData,
  type WebSocketMessage,
  withTimeout,
} from '@voxwire/agents/provider-utils';
import WebSocket from 'ws';
import { connectRtcRoom } from '../room/rtc-room.js';
import type { RoomConnector } from '../room/room-connection.js';
import { JobRequest } from './job-request.js';
import { EndReports } from './end-reports.js';
import { HealthServer, type WorkerInfo } from './health-server.js';
import { WorkerMetrics } from './metrics.js';
import { CpuLoadMonitor, defaultLoad, type WorkerLoadInfo } from './load.js';
import { EventLoopWatchdog } from './stall-watchdog.js';
import { type AgentWorkerOptions, DEFAULT_RECONNECT_POLICY, resolveCredentials } from './options.js';
import {
  decodeServerMessage,
  encodeWorkerMessage,
  type WorkerMessageBody,
} from './protocol.js';
import { JobProcessPool } from './process-pool.js';
import { registrationMessage } from './registration.js';
import { describe, type JobHandle, type JobOutcome, RunningJob } from './running-job.js';
import { agentEndpoint, createWorkerToken } from './token.js';

export interface AgentWorkerEvents {
  registered: [{ workerId: string; reconnect: boolean }];
  disconnected: [{ error: unknown }];
  job_started: [{ jobId: string; room: string }];
  job_ended: [{ jobId: string; outcome: JobOutcome }];
  status: [{ status: 'available' | 'full'; load: number; jobCount: number }];
}

interface PendingJob {
  request: JobRequest;
  timer: TimerHandle;
}

type Connection = SocketConnection<WebSocketData, WebSocketMessage>;

/**
 * A LiveKit agent worker: registers with the server's `/agent` endpoint, answers job offers through
 * `requestFn`, runs each assigned job in this process (many per process), reports status and load, and
 * survives lost connections: it reconnects with backoff, registers again and reports the jobs still
 * running (`MigrateJobRequest`). `drain()` (SIGTERM under `run()`) stops taking jobs, lets the running
 * ones finish within `drainTimeoutMs`, then closes.
 */
export class AgentWorker<Prewarmed = unknown> extends EventEmitter<AgentWorkerEvents> {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly credentials: { url: string; apiKey: string; apiSecret: string };
  private readonly policy: RetryPolicy;
  private readonly connectRoom: RoomConnector;
  private readonly cpu: CpuLoadMonitor;
  private readonly jobs = new Map<string, JobHandle>();
  /** Sessions, turn latencies and errors of every job, in this process and the job processes. */
  readonly metrics = new WorkerMetrics();
  private pool: JobProcessPool | undefined;
  /** Job ends until the server has read them, across connections. */
  private readonly ends = new EndReports(
    (message) => this.send(message),
    () => this.clock.now(),
  );
  private readonly pending = new Map<string, PendingJob>();
  private readonly stop = new AbortController();
  private connection: Connection | undefined;
  private currentWorkerId: string | undefined;
  private prewarmed: Prewarmed | undefined;
  private running: Promise<void> | undefined;
  private drainPromise: Promise<void> | undefined;
  private closePromise: Promise<void> | undefined;
  private isDraining = false;
  /** The connection loop gave up and is closing the worker itself (so close() must not wait on it). */
  private serveFailed = false;
  private lastStatus: 'available' | 'full' | undefined;
  private health: HealthServer | undefined;
  private boundHealthPort: number | undefined;
  private watchdog: EventLoopWatchdog | undefined;

  constructor(private readonly options: AgentWorkerOptions<Prewarmed>) {
    super();
    this.credentials = resolveCredentials(options);
    agentEndpoint(this.credentials.url);
    this.clock = options.clock ?? realClock();
    this.logger = (options.logger ?? defaultLogger()).child({ component: 'livekit.worker' });
    this.policy = resolveRetryPolicy(options.reconnectPolicy, DEFAULT_RECONNECT_POLICY);
    this.connectRoom = options.connectRoom ?? connectRtcRoom;
    this.cpu = new CpuLoadMonitor(this.clock);
  }

  /** The id the server gave this connection (a new one after each reconnect). */
  get workerId(): string | undefined {
    return this.currentWorkerId;
  }

  get activeJobIds(): string[] {
    return [...this.jobs.keys()];
  }

  get draining(): boolean {
    return this.isDraining;
  }

  /** The job processes ready for jobs (with `jobProcesses`), by pid. */
  get jobProcessIds(): number[] {
    return this.pool?.processIds ?? [];
  }

  /** The port of the health server, once listening. */
  get healthPort(): number | undefined {
    return this.boundHealthPort;
  }

  /** What the health server's `/worker` reports. */
  info(): WorkerInfo {
    const load = this.computeLoad();
    return {
      workerId: this.currentWorkerId ?? null,
      agentName: this.options.agentName ?? '',
      url: this.credentials.url,
      connected: this.currentWorkerId !== undefined,
      draining: this.isDraining,
      status: this.isDraining || load >= (this.options.loadThreshold ?? 0.7) ? 'full' : 'available',
      load,
      jobs: [...this.jobs.values()].map((job) => ({ id: job.id, room: job.roomName })),
      metrics: this.metrics.snapshot(),
    };
  }

  /** The load as last computed, 0..1. */
  get load(): number {
    return this.computeLoad();
  }

  /**
   * Prewarms the agent, connects and serves jobs until `drain()` or `close()` completes. Rejects when
   * the server cannot be reached after the reconnection policy's retries, or refuses the credentials.
   */
  start(): Promise<void> {
    this.running ??= this.serve();
    return this.running;
  }

  /**
   * Stops taking jobs (reports full), waits for the running jobs to end by themselves up to `timeoutMs`,
   * ends the rest, then closes. Later calls return the same promise.
   */
  drain(timeoutMs = this.options.drainTimeoutMs ?? 1_800_000): Promise<void> {
    this.drainPromise ??= this.doDrain(timeoutMs);
    return this.drainPromise;
  }

  /** Ends every job now and disconnects. */
  close(reason = 'worker closed'): Promise<void> {
    this.closePromise ??= this.doClose(reason);
    return this.closePromise;
  }

  private async serve(): Promise<void> {
    if (this.options.jobProcesses) {
      this.pool = new JobProcessPool(this.options.jobProcesses, {
        clock: this.clock,
        logger: this.logger,
        roomIO: this.options.roomIO ?? {},
        jobShutdownTimeoutMs: this.options.jobShutdownTimeoutMs ?? 10_000,
        metrics: this.metrics,
      });
      try {
        await this.pool.start();
      } catch (error) {
        // Stops the replacements it would otherwise keep spawning.
        await this.pool.close();
        throw error;
      }
    } else {
      this.prewarmed = await prewarmAgent(this.options.agent);
    }
    if (this.options.healthPort !== undefined) {
      this.health = new HealthServer(() => this.info());
      this.boundHealthPort = await this.health.listen(
        this.options.healthPort,
        this.options.healthHost ?? '0.0.0.0',
      );
    }
    const stallWarnMs = this.options.eventLoopStallWarnMs ?? 500;
    if (stallWarnMs > 0) {
      this.watchdog = new EventLoopWatchdog(stallWarnMs, (stalledMs) =>
        this.logger.warn(
          { stalledMs, jobs: this.jobs.size },
          'the event loop was blocked: every session of this process stalled',
        ),
      );
      this.watchdog.start();
    }
    this.cpu.start();
    let failures = 0;
    let everRegistered = false;
    try {
      while (!this.stop.signal.aborted) {
        let registered = false;
        try {
          await this.runConnection(everRegistered, () => {
            registered = true;
            everRegistered = true;
            failures = 0;
          });
          if (this.stop.signal.aborted) break;
          throw new APIConnectionError('livekit.worker: the server closed the connection');
        } catch (error) {
          if (this.stop.signal.aborted) break;
          this.connection = undefined;
          this.currentWorkerId = undefined;
          this.emit('disconnected', { error });
          if (error instanceof APIError && !error.retryable) {
            this.logger.error({ error: describe(error) }, 'the LiveKit server refused the worker');
            throw error;
          }
          if (!registered) failures++;
          else failures = 1;
          if (failures > this.policy.maxRetries) {
            throw new APIConnectionError(
              `livekit.worker: could not reach ${this.credentials.url} after ${failures} attempts: ${describe(error)}`,
              { cause: error },
            );
          }
          const delayMs = retryDelayMs(this.policy, failures, this.options.random);
          this.logger.warn(
            { error: describe(error), attempt: failures, delayMs },
            'lost the LiveKit server, reconnecting',
          );
          try {
            await this.clock.sleep(delayMs, this.stop.signal);
          } catch {
            break;
          }
        }
      }
    } catch (error) {
      this.serveFailed = true;
      await this.close(`worker failed: ${describe(error)}`);
      throw error;
    } finally {
      this.cpu.stop();
      this.watchdog?.stop();
      await this.health?.close();
    }
  }

  /** One connection: handshake, register, then messages until it drops (throws) or is closed by us. */
  private async runConnection(reconnect: boolean, onRegistered: () => void): Promise<void> {
    const { apiKey, apiSecret, url } = this.credentials;
    const token = await createWorkerToken(apiKey, apiSecret, this.options.tokenTtlMs);
    const registerTimeoutMs = this.options.registerTimeoutMs ?? 10_000;
    const connection = await withTimeout(
      (signal) =>
        openWebSocket(new WebSocket(agentEndpoint(url), { headers: { authorization: `Bearer ${token}` } }), {
          signal,
          label: 'livekit.worker',
          // A server that closes the socket right away (restarting, overloaded) is worth retrying.
          isRetryableClose: (code) => code !== 1008,
        }),
      {
        clock: this.clock,
        timeoutMs: registerTimeoutMs,
        signal: this.stop.signal,
        label: 'livekit.worker connect',
      },
    );
    this.connection = connection;
    let failure: Error | undefined;
    const dropWith = (error: Error): void => {
      failure ??= error;
      connection.close(4000, error.message.slice(0, 100));
    };
    let lastHeardAt = this.clock.now();
    const timers: TimerHandle[] = [];
    let registered = false;
    timers.push(
      this.clock.setTimer(registerTimeoutMs, () => {
        if (!registered) {
          dropWith(
            new APIConnectionError(`livekit.worker: no registration answer within ${registerTimeoutMs} ms`),
          );
        }
      }),
    );
    const onStop = (): void => connection.close(1000, 'worker closing');
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    try {
      this.send(registrationMessage(this.options));
      for await (const raw of connection.messages) {
        lastHeardAt = this.clock.now();
        const decoded = decodeServerMessage(raw);
        if (!decoded.ok) {
          this.logger.warn({ problem: decoded.error }, 'ignored a frame from the LiveKit server');
          continue;
        }
        const message = decoded.message;
        switch (message.case) {
          case 'register': {
            if (registered) break;
            registered = true;
            this.currentWorkerId = message.value.workerId;
            onRegistered();
            this.logger.info(
              { workerId: message.value.workerId, url, agentName: this.options.agentName ?? '' },
              reconnect ? 'registered again with the LiveKit server' : 'registered with the LiveKit server',
            );
            this.ends.flush();
            if (this.jobs.size > 0) {
              this.send({ case: 'migrateJob', value: { jobIds: [...this.jobs.keys()] } });
              for (const id of this.jobs.keys()) {
                this.send({
                  case: 'updateJob',
                  value: { jobId: id, status: JobStatus.JS_RUNNING, error: '' },
                });
              }
            }
            this.lastStatus = undefined;
            this.sendStatus();
            timers.push(
              this.clock.setRepeatingTimer(this.options.statusIntervalMs ?? 2500, () => this.sendStatus()),
            );
            const pingIntervalMs = this.options.pingIntervalMs ?? 10_000;
            const pingTimeoutMs = this.options.pingTimeoutMs ?? 30_000;
            timers.push(
              this.clock.setRepeatingTimer(pingIntervalMs, () => {
                if (this.clock.now() - lastHeardAt > pingTimeoutMs) {
                  dropWith(
                    new APIConnectionError(`livekit.worker: the server was silent for ${pingTimeoutMs} ms`),
                  );
                  return;
                }
                this.ends.ping();
              }),
            );
            this.emit('registered', { workerId: message.value.workerId, reconnect });
            break;
          }
          case 'availability':
            if (registered) void this.onAvailability(message.value);
            break;
          case 'assignment':
            if (registered) this.onAssignment(message.value);
            break;
          case 'termination': {
            const job = this.jobs.get(message.value.jobId);
            if (job) {
              this.logger.info({ jobId: message.value.jobId }, 'the server terminated the job');
              void job.end('terminated by the LiveKit server');
            }
            break;
          }
          case 'pong': {
            this.ends.confirmed(message.value.lastTimestamp);
            break;
          }
          default:
            // Newer servers may send messages this worker does not know: forward compatible.
            break;
        }
      }
      if (failure) throw failure;
    } catch (error) {
      if (failure && error !== failure && !isAbortError(error)) throw failure;
      throw error;
    } finally {
      this.stop.signal.removeEventListener('abort', onStop);
      for (const timer of timers) timer.cancel();
      connection.close();
      if (this.connection === connection) this.connection = undefined;
      this.releasePendingOnDisconnect();
      this.ends.disconnected();
    }
  }

  private async onAvailability(request: AvailabilityRequest): Promise<void> {
    const info = request.job;
    if (!info) return;
    if (this.isDraining || this.stop.signal.aborted) {
      this.send({ case: 'availability', value: { jobId: info.id, available: false } });
      return;
    }
    const jobRequest = new JobRequest(info, request.resuming, this.options.agentName ?? '');
    // The slot is held while requestFn decides, so concurrent offers see the load it will add.
    const slot: PendingJob = { request: jobRequest, timer: { cancel() {} } };
    this.pending.set(info.id, slot);
    const requestFn = this.options.requestFn ?? ((r: JobRequest) => r.accept());
    try {
      await withTimeout(async () => requestFn(jobRequest), {
        clock: this.clock,
        timeoutMs: this.options.availabilityTimeoutMs ?? 5000,
        label: 'requestFn',
      });
    } catch (error) {
      this.logger.warn({ jobId: info.id, error: describe(error) }, 'requestFn failed: rejecting the job');
    }
    if (!jobRequest.answered) {
      if (!(this.pending.get(info.id) === slot)) return;
      this.logger.warn({ jobId: info.id }, 'requestFn neither accepted nor rejected the job: rejecting it');
      jobRequest.reject();
    }
    const answer = jobRequest.answer!;
    if (this.pending.get(info.id) !== slot) return;
    if (!answer.accepted || this.isDraining) {
      this.pending.delete(info.id);
      this.send({
        case: 'availability',
        value: { jobId: info.id, available: false, terminate: !answer.accepted && answer.terminate },
      });
      this.sendStatus();
      return;
    }
    const assignmentTimeoutMs = this.options.assignmentTimeoutMs ?? 7500;
    slot.timer = this.clock.setTimer(assignmentTimeoutMs, () => {
      if (this.pending.get(info.id) !== slot) return;
      this.pending.delete(info.id);
      this.logger.warn({ jobId: info.id, assignmentTimeoutMs }, 'no assignment came for an accepted job');
      this.sendStatus();
    });
    const sent = this.send({
      case: 'availability',
      value: {
        jobId: info.id,
        available: true,
        participantIdentity: answer.identity,
        participantName: answer.name,
        participantMetadata: answer.metadata,
        participantAttributes: answer.attributes,
      },
    });
    if (!sent) {
      slot.timer.cancel();
      this.pending.delete(info.id);
    }
    this.sendStatus();
  }

  private onAssignment(assignment: JobAssignment): void {
    const info = assignment.job;
    if (!info) return;
    const slot = this.pending.get(info.id);
    if (!slot || this.jobs.has(info.id)) {
      this.logger.warn({ jobId: info.id }, 'assignment for a job this worker is not waiting for');
      this.send({
        case: 'updateJob',
        value: {
          jobId: info.id,
          status: JobStatus.JS_FAILED,
          error: 'the worker was not waiting for this assignment',
        },
      });
      return;
    }
    slot.timer.cancel();
    this.pending.delete(info.id);
    // Self-hosted servers send no URL: the job joins the server the worker knows.
    const url = assignment.url || this.credentials.url;
    const job: JobHandle = this.pool
      ? this.pool.run(info, url, assignment.token)
      : new RunningJob<Prewarmed>({
          info,
          url,
          token: assignment.token,
          definition: this.options.agent,
          prewarmed: this.prewarmed as Prewarmed,
          connectRoom: this.connectRoom,
          roomIO: this.options.roomIO ?? {},
          clock: this.clock,
          logger: this.logger,
          shutdownTimeoutMs: this.options.jobShutdownTimeoutMs ?? 10_000,
          metrics: this.metrics,
        });
    this.jobs.set(info.id, job);
    this.send({ case: 'updateJob', value: { jobId: info.id, status: JobStatus.JS_RUNNING, error: '' } });
    this.emit('job_started', { jobId: info.id, room: info.room?.name ?? '' });
    this.sendStatus();
    void job.done.then((outcome) => {
      this.jobs.delete(info.id);
      const final: WorkerMessageBody = {
        case: 'updateJob',
        value: {
          jobId: info.id,
          status: outcome.status === 'success' ? JobStatus.JS_SUCCESS : JobStatus.JS_FAILED,
          error: outcome.status === 'failed' ? outcome.error : '',
        },
      };
      this.ends.report(final);
      this.emit('job_ended', { jobId: info.id, outcome });
      this.sendStatus();
    });
  }

  private releasePendingOnDisconnect(): void {
    // The server drops this connection's offers with it: a new connection gets a new worker id.
    for (const slot of this.pending.values()) slot.timer.cancel();
    this.pending.clear();
  }

  private computeLoad(): number {
    const info: WorkerLoadInfo = {
      activeJobs: this.jobs.size,
      pendingJobs: this.pending.size,
      cpuLoad: this.cpu.load,
      sessionCapacity: this.options.sessionCapacity,
    };
    let load: number;
    try {
      load = (this.options.loadFn ?? defaultLoad)(info);
    } catch (error) {
      this.logger.warn({ error: describe(error) }, 'loadFn failed: reporting the default load');
      load = defaultLoad(info);
    }
    return Number.isFinite(load) ? Math.min(1, Math.max(0, load)) : 1;
  }

  private sendStatus(): void {
    if (!this.connection) return;
    const load = this.computeLoad();
    const full = this.isDraining || load >= (this.options.loadThreshold ?? 0.7);
    const status = full ? 'full' : 'available';
    const jobCount = this.jobs.size + this.pending.size;
    // Every report carries the load: a missing one counts as 0 on the server.
    const sent = this.send({
      case: 'updateWorker',
      value: { status: full ? WorkerStatus.WS_FULL : WorkerStatus.WS_AVAILABLE, load, jobCount },
    });
    if (sent && status !== this.lastStatus) {
      if (this.lastStatus !== undefined) this.logger.info({ status, load }, 'worker status changed');
      this.lastStatus = status;
    }
    if (sent) this.emit('status', { status, load, jobCount });
  }

  private send(message: WorkerMessageBody): boolean {
    const connection = this.connection;
    if (!connection) return false;
    try {
      connection.send(encodeWorkerMessage(message));
      return true;
    } catch (error) {
      this.logger.debug({ error: describe(error), message: message.case }, 'could not send to the server');
      return false;
    }
  }

  private async doDrain(timeoutMs: number): Promise<void> {
    if (!this.isDraining) {
      this.isDraining = true;
      this.logger.info({ jobs: this.jobs.size, timeoutMs }, 'draining: no new jobs');
      this.sendStatus();
    }
    const allDone = Promise.all([...this.jobs.values()].map((job) => job.done));
    const timer = new AbortController();
    const timedOut = await Promise.race([
      allDone.then(() => false),
      this.clock.sleep(timeoutMs, timer.signal).then(
        () => true,
        () => false,
      ),
    ]);
    timer.abort();
    await this.close(timedOut ? 'drain timed out' : 'drained');
  }

  private async doClose(reason: string): Promise<void> {
    this.isDraining = true;
    this.sendStatus();
    for (const slot of this.pending.values()) slot.timer.cancel();
    this.pending.clear();
    await Promise.all([...this.jobs.values()].map((job) => job.end(reason)));
    this.stop.abort(new Error(reason));
    this.connection?.close(1000, 'worker closing');
    await this.pool?.close(this.options.jobShutdownTimeoutMs ?? 10_000);
    this.cpu.stop();
    if (!this.serveFailed) await this.running?.catch(() => {});
    this.logger.info({ reason }, 'worker closed');
  }
}
