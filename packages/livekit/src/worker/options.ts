import type { AgentDefinition, Clock, Logger } from '@voxwire/agents';
import type { RetryPolicy } from '@voxwire/agents/provider-utils';
import type { RoomIOOptions } from '../room/room-io-options.js';
import type { RoomConnector } from '../room/room-connection.js';
import type { JobRequest } from './job-request.js';
import type { JobProcessOptions } from './process-pool.js';
import type { WorkerLoadInfo } from './load.js';
import type { WorkerJobType } from './protocol.js';

/** What the agent participant may do in the room (sent with the registration). */
export interface WorkerPermissions {
  canPublish?: boolean;
  canSubscribe?: boolean;
  canPublishData?: boolean;
  canUpdateMetadata?: boolean;
  /** Hidden participants are not shown to others. */
  hidden?: boolean;
}

export interface AgentWorkerOptions<Prewarmed = unknown> {
  /** The agent file's definition: `prewarm` runs once per process, `entry` once per job. */
  agent: AgentDefinition<Prewarmed>;
  /** The LiveKit server, `wss://…` or `https://…`. Default `LIVEKIT_URL`. */
  url?: string;
  /** Default `LIVEKIT_API_KEY`. */
  apiKey?: string;
  /** Default `LIVEKIT_API_SECRET`. Never logged. */
  apiSecret?: string;
  /**
   * Registers for explicit dispatch under this name (`AgentDispatchService.CreateDispatch`, or a
   * `RoomAgentDispatch` in a participant's token). Empty (the default): every new room is dispatched.
   */
  agentName?: string;
  /** One job per room (default) or per publishing participant. */
  jobType?: WorkerJobType;
  /** Default: publish, subscribe, publish data, update metadata; not hidden. */
  permissions?: WorkerPermissions;
  /** Reported to the server at registration. Default: this package's version. */
  version?: string;
  namespace?: string;
  /** Groups workers of one deployment (≤ 64 bytes, no `_`, no whitespace). */
  deployment?: string;
  /**
   * Decides whether to take an offered job, and as whom the agent joins: call `request.accept({...})`
   * or `request.reject()`. Default: accept every job. An answer that does not come within
   * `availabilityTimeoutMs`, or a throwing function, rejects the job.
   */
  requestFn?: (request: JobRequest) => void | Promise<void>;
  /** The load to report, 0..1. Default: `defaultLoad` (CPU, or sessions against `sessionCapacity`). */
  loadFn?: (info: WorkerLoadInfo) => number;
  /** At this load or above the worker reports itself full. Default 0.7 (LiveKit's production value). */
  loadThreshold?: number;
  /** Sessions this process holds at full load, as measured for your agent; unset: CPU only. */
  sessionCapacity?: number;
  /** How often status and load are reported. Default 2500 ms. */
  statusIntervalMs?: number;
  /** How often the worker pings the server. Default 10000 ms. */
  pingIntervalMs?: number;
  /** A connection that has sent nothing (not even a pong) for this long is dropped and re-made. Default 30000 ms. */
  pingTimeoutMs?: number;
  /** Longest wait for the server's answer to the registration. Default 10000 ms. */
  registerTimeoutMs?: number;
  /** Longest `requestFn` may take before the job is rejected. Default 5000 ms. */
  availabilityTimeoutMs?: number;
  /** Longest wait for the assignment of an accepted job before its slot is released. Default 7500 ms. */
  assignmentTimeoutMs?: number;
  /** On drain (SIGTERM), how long running jobs may go on before they are ended. Default 1800000 ms. */
  drainTimeoutMs?: number;
  /** Longest the end of one job may take (session close, shutdown callbacks, leaving the room). Default 10000 ms. */
  jobShutdownTimeoutMs?: number;
  /** Backoff between reconnection attempts. Default: 16 retries, 500 ms doubling up to 10000 ms. */
  reconnectPolicy?: Partial<RetryPolicy>;
  /** Lifetime of each connection's token. Default 600000 ms. */
  tokenTtlMs?: number;
  /**
   * Serves `GET /` (health) and `GET /worker` (state as JSON) on this port; 0 picks a free one
   * (`worker.healthPort` says which). Default: no HTTP server.
   */
  healthPort?: number;
  /** Address of the health server. Default `0.0.0.0`, so an orchestrator can probe it. */
  healthHost?: string;
  /**
   * Logs a warning when the event loop was blocked this long (a synchronous model call, a busy
   * tool): every session of the process stalls with it. Measured on the host's own event loop.
   * Default 500 ms; 0 turns the watchdog off.
   */
  eventLoopStallWarnMs?: number;
  /**
   * Runs jobs in a pool of pre-warmed child processes (each holding several) instead of this one, so a
   * job that hangs its event loop or exits fails alone. Needs the agent's file path; `connectRoom` and
   * `roomIO.onDtmf` then do not apply. Default: jobs run in this process.
   */
  jobProcesses?: JobProcessOptions;
  /** How the job's room is joined. Default: `@livekit/rtc-node`. */
  connectRoom?: RoomConnector;
  /** How jobs use their room: linked participant, audio formats, transcription, chat. */
  roomIO?: RoomIOOptions;
  clock?: Clock;
  logger?: Logger;
  /** Source of reconnection jitter, [0, 1). */
  random?: () => number;
}

export const DEFAULT_RECONNECT_POLICY: Readonly<Partial<RetryPolicy>> = Object.freeze({
  maxRetries: 16,
  initialDelayMs: 500,
  maxDelayMs: 10_000,
  multiplier: 2,
  jitter: 0.2,
});

/** Reads the connection settings from the options, else from `LIVEKIT_URL/_API_KEY/_API_SECRET`. */
export function resolveCredentials(
  options: Pick<AgentWorkerOptions, 'url' | 'apiKey' | 'apiSecret'>,
  env: Record<string, string | undefined> = process.env,
): { url: string; apiKey: string; apiSecret: string } {
  const url = options.url ?? env.LIVEKIT_URL;
  const apiKey = options.apiKey ?? env.LIVEKIT_API_KEY;
  const apiSecret = options.apiSecret ?? env.LIVEKIT_API_SECRET;
  const missing = [
    url ? undefined : 'url (LIVEKIT_URL)',
    apiKey ? undefined : 'apiKey (LIVEKIT_API_KEY)',
    apiSecret ? undefined : 'apiSecret (LIVEKIT_API_SECRET)',
  ].filter((m) => m !== undefined);
  if (missing.length > 0) {
    throw new TypeError(
      `The LiveKit worker needs ${missing.join(', ')}: set them in the environment or the options`,
    );
  }
  return { url: url!, apiKey: apiKey!, apiSecret: apiSecret! };
}
