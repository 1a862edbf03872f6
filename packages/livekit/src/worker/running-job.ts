import type { Job as JobProto } from '@livekit/protocol';
import {
  type AgentDefinition,
  type Clock,
  defineAgent,
  Job,
  type JobContext,
  type Logger,
} from '@voxwire/agents';
import type { ParticipantInfo, RoomConnection, RoomConnector } from '../room/room-connection.js';
import { RoomIO } from '../room/room-io.js';
import type { RoomIOOptions } from '../room/room-io-options.js';
import type { WorkerMetrics } from './metrics.js';

const LIVEKIT_CONTEXT = Symbol.for('voxwire.livekit.jobContext');

/** A job's context on the LiveKit worker: the core's `JobContext` plus the room. */
export interface LiveKitJobContext<Prewarmed = unknown> extends JobContext<Prewarmed> {
  readonly [LIVEKIT_CONTEXT]: true;
  /** The room, already joined as the agent participant. */
  readonly room: RoomConnection;
  /** The job as the server described it (room, participant, dispatch metadata). */
  readonly job: JobProto;
  /** Resolves with the participant the agent is linked to (or the one named), once it is in the room. */
  waitForParticipant(identity?: string): Promise<ParticipantInfo>;
}

/** The LiveKit parts of a job's context, or `undefined` when the job runs on another transport. */
export function livekitJobContext<Prewarmed>(
  ctx: JobContext<Prewarmed>,
): LiveKitJobContext<Prewarmed> | undefined {
  return (ctx as Partial<LiveKitJobContext<Prewarmed>>)[LIVEKIT_CONTEXT] === true
    ? (ctx as LiveKitJobContext<Prewarmed>)
    : undefined;
}

export type JobOutcome = { status: 'success' } | { status: 'failed'; error: string };

/** A job as the worker holds it, in this process or in a job process. */
export interface JobHandle {
  readonly id: string;
  readonly roomName: string;
  readonly done: Promise<JobOutcome>;
  end(reason: string): Promise<JobOutcome>;
}

export interface RunningJobOptions<Prewarmed> {
  info: JobProto;
  url: string;
  token: string;
  definition: AgentDefinition<Prewarmed>;
  prewarmed: Prewarmed;
  connectRoom: RoomConnector;
  roomIO: RoomIOOptions;
  clock: Clock;
  logger: Logger;
  shutdownTimeoutMs: number;
  metrics?: WorkerMetrics;
}

/**
 * One assigned job in this process: joins the room with the assignment's token, runs the agent's
 * `entry` through the core's `Job`, and leaves the room when the job ends, whatever ends it (the
 * server's termination, the user leaving, the session closing, a throwing entry). Never throws.
 */
export class RunningJob<Prewarmed = unknown> implements JobHandle {
  readonly id: string;
  /** Resolves once the job has ended and its room is left. */
  readonly done: Promise<JobOutcome>;
  private readonly logger: Logger;
  private job: Job<Prewarmed> | undefined;
  private endRequested: string | undefined;
  private entryError: unknown;
  private entryFailed = false;

  constructor(private readonly options: RunningJobOptions<Prewarmed>) {
    this.id = options.info.id;
    this.logger = options.logger.child({ jobId: this.id, room: options.info.room?.name ?? '' });
    this.done = this.run();
  }

  get roomName(): string {
    return this.options.info.room?.name ?? '';
  }

  /** Ends the job (e.g. `JobTermination`); resolves `done` once it has ended. */
  end(reason: string): Promise<JobOutcome> {
    this.endRequested ??= reason;
    void this.job?.shutdown(reason);
    return this.done;
  }

  private async run(): Promise<JobOutcome> {
    const { options } = this;
    let room: RoomConnection;
    try {
      room = await options.connectRoom(options.url, options.token);
    } catch (error) {
      const message = `could not join the room: ${describe(error)}`;
      this.logger.error({ error: describe(error) }, 'job failed to join its room');
      return { status: 'failed', error: message };
    }
    const roomIO = new RoomIO(room, {
      clock: options.clock,
      logger: this.logger,
      options: options.roomIO,
      jobParticipantIdentity: options.info.participant?.identity || undefined,
      endJob: (reason) => {
        void this.job?.shutdown(reason);
      },
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
    const user = options.definition;
    const definition = defineAgent<Prewarmed>({
      entry: async (ctx) => {
        const context: LiveKitJobContext<Prewarmed> = {
          ...ctx,
          [LIVEKIT_CONTEXT]: true,
          room,
          job: options.info,
          waitForParticipant: (identity) => roomIO.waitForParticipant(identity, ctx.signal),
        };
        try {
          await user.entry(context);
        } catch (error) {
          // An entry cut short by the end of its job (e.g. connecting after a termination) did not fail.
          if (!ctx.signal.aborted) {
            this.entryFailed = true;
            this.entryError = error;
          }
          throw error;
        }
      },
    });
    const job = new Job<Prewarmed>({
      definition,
      prewarmed: options.prewarmed,
      transport: roomIO,
      jobId: this.id,
      logger: this.logger,
      clock: options.clock,
      shutdownTimeoutMs: options.shutdownTimeoutMs,
    });
    this.job = job;
    roomIO.start();
    if (this.endRequested !== undefined) {
      // Terminated while joining the room: the entry never runs.
      void job.shutdown(this.endRequested);
    } else {
      this.logger.info('job started');
      await job.run();
    }
    const reason = await job.ended;
    await roomIO.close();
    await withDeadline(options.clock, room.disconnect(), options.shutdownTimeoutMs, () =>
      this.logger.warn('leaving the room overran the job shutdown deadline'),
    );
    this.logger.info({ reason }, 'job ended');
    return this.entryFailed
      ? { status: 'failed', error: `entry failed: ${describe(this.entryError)}` }
      : { status: 'success' };
  }
}

async function withDeadline(
  clock: Clock,
  work: Promise<unknown>,
  ms: number,
  onOverrun: () => void,
): Promise<void> {
  const timer = new AbortController();
  work.catch(() => {});
  const overran = clock.sleep(ms, timer.signal).then(
    () => true,
    () => false,
  );
  try {
    if (
      await Promise.race([
        work.then(
          () => false,
          () => false,
        ),
        overran,
      ])
    )
      onOverrun();
  } finally {
    timer.abort();
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
