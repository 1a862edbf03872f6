import type { RoomIOOptions } from '../room/room-io-options.js';
import type { MetricsDelta } from './metrics.js';
import type { JobOutcome } from './running-job.js';

/** Set in a job process's environment: what it loads. */
export const JOB_PROCESS_ENV = 'VOXWIRE_LIVEKIT_JOB_PROCESS';

export interface JobProcessConfig {
  /** The agent file, loaded (and prewarmed) once per process. */
  agentFile: string;
  /** A module whose `connectRoom(url, token)` joins rooms instead of rtc-node (tests). */
  roomConnectorModule?: string;
  /** Serializable room options (functions such as `onDtmf` stay in the worker and do not apply). */
  roomIO: Omit<RoomIOOptions, 'onDtmf'>;
  jobShutdownTimeoutMs: number;
}

export type ToJobProcess =
  | { type: 'start'; jobId: string; job: string; url: string; token: string }
  | { type: 'end'; jobId: string; reason: string }
  | { type: 'ping'; seq: number };

export type FromJobProcess =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'ended'; jobId: string; outcome: JobOutcome }
  | { type: 'pong'; seq: number; rssMb: number; metrics: MetricsDelta };
