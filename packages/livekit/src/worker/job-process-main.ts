/**
 * The entry of a job process: loads and prewarms the agent file once, then runs the jobs the worker
 * sends it, several at a time, each as in the worker's own process. It answers pings (with its memory
 * use) so the worker can tell a hung or bloated process and kill it without touching the others.
 */
import { pathToFileURL } from 'node:url';
import { Job as JobProto } from '@livekit/protocol';
import {
  agentDefinitionFromModule,
  createLogger,
  type LogLevel,
  prewarmAgent,
  realClock,
} from '@voxwire/agents';
import type { RoomConnector } from '../room/room-connection.js';
import { connectRtcRoom, disposeRtcNode } from '../room/rtc-room.js';
import {
  type FromJobProcess,
  JOB_PROCESS_ENV,
  type JobProcessConfig,
  type ToJobProcess,
} from './job-process-protocol.js';
import { WorkerMetrics } from './metrics.js';
import { describe, RunningJob } from './running-job.js';

function send(message: FromJobProcess): void {
  // After the worker has gone there is nobody to tell.
  if (process.connected) process.send?.(message, undefined, {}, () => {});
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env[JOB_PROCESS_ENV] ?? '{}') as JobProcessConfig;
  const level = process.env.VOXWIRE_LOG_LEVEL?.toLowerCase() as LogLevel | 'silent' | undefined;
  const logger = createLogger({ name: 'voxwire', level: level ?? 'info', bindings: { pid: process.pid } });
  const clock = realClock();
  let connectRoom: RoomConnector = connectRtcRoom;
  const jobs = new Map<string, RunningJob>();
  const metrics = new WorkerMetrics();
  let definition: ReturnType<typeof agentDefinitionFromModule>;
  let prewarmed: unknown;
  try {
    if (config.roomConnectorModule) {
      const module = (await import(pathToFileURL(config.roomConnectorModule).href)) as {
        connectRoom: RoomConnector;
      };
      connectRoom = module.connectRoom;
    }
    definition = agentDefinitionFromModule(
      await import(pathToFileURL(config.agentFile).href),
      config.agentFile,
    );
    prewarmed = await prewarmAgent(definition);
  } catch (error) {
    send({ type: 'failed', message: describe(error) });
    process.exit(1);
  }

  process.on('message', (message: ToJobProcess) => {
    switch (message.type) {
      case 'start': {
        const job = new RunningJob({
          info: JobProto.fromBinary(Buffer.from(message.job, 'base64')),
          url: message.url,
          token: message.token,
          definition,
          prewarmed,
          connectRoom,
          roomIO: config.roomIO,
          clock,
          logger,
          shutdownTimeoutMs: config.jobShutdownTimeoutMs,
          metrics,
        });
        jobs.set(message.jobId, job);
        void job.done.then((outcome) => {
          jobs.delete(message.jobId);
          send({ type: 'ended', jobId: message.jobId, outcome });
        });
        break;
      }
      case 'end':
        void jobs.get(message.jobId)?.end(message.reason);
        break;
      case 'ping':
        send({
          type: 'pong',
          seq: message.seq,
          rssMb: Math.round(process.memoryUsage.rss() / 1e6),
          metrics: metrics.drain(),
        });
        break;
    }
  });
  // The worker went away: end what runs here and leave.
  process.on('disconnect', () => {
    void Promise.all([...jobs.values()].map((job) => job.end('the worker process went away'))).finally(
      async () => {
        await disposeRtcNode();
        process.exit(0);
      },
    );
  });
  // A job's stray rejection must not end the other jobs of this process.
  process.on('unhandledRejection', (reason) => {
    logger.error({ error: describe(reason) }, 'unhandled rejection in a job process');
  });
  send({ type: 'ready' });
}

void main();
