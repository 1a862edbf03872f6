import type { Job as JobProto } from '@livekit/protocol';

/** LiveKit's participant attribute naming the agent that joined (its frontends read it). */
export const AGENT_NAME_ATTRIBUTE = 'lk.agent.name';

/** How the agent joins the room when it accepts a job. */
export interface JobAcceptOptions {
  /** The agent participant's identity. Default `agent-<job id>`. */
  identity?: string;
  /** Its display name. Default: the worker's agent name, or `agent`. */
  name?: string;
  metadata?: string;
  attributes?: Record<string, string>;
}

export interface JobRejectOptions {
  /** Also asks the server to end the job instead of offering it to another worker. */
  terminate?: boolean;
}

/** The answer a `requestFn` gave; `undefined` until it called `accept` or `reject`. */
export type JobAnswer =
  | { accepted: true; identity: string; name: string; metadata: string; attributes: Record<string, string> }
  | { accepted: false; terminate: boolean };

/**
 * A job the server offers (an `AvailabilityRequest`): the worker's `requestFn` looks at the room, the
 * participant and the dispatch metadata, and calls `accept()` or `reject()` once. It must answer fast:
 * the server gives up on the worker after about 10 s and offers the job to another one.
 */
export class JobRequest {
  private answerGiven: JobAnswer | undefined;

  constructor(
    /** The job as the server described it (`@livekit/protocol`'s `Job`). */
    readonly job: JobProto,
    /** True when the server is re-offering a job that ran on a worker whose connection was lost. */
    readonly resuming: boolean,
    private readonly agentName: string,
  ) {}

  get id(): string {
    return this.job.id;
  }

  get roomName(): string {
    return this.job.room?.name ?? '';
  }

  /** The participant a publisher/participant job is for, if any. */
  get participantIdentity(): string | undefined {
    return this.job.participant?.identity || undefined;
  }

  /** Dispatch metadata (e.g. from `AgentDispatchService.CreateDispatch`). */
  get metadata(): string {
    return this.job.metadata;
  }

  get answered(): boolean {
    return this.answerGiven !== undefined;
  }

  get answer(): JobAnswer | undefined {
    return this.answerGiven;
  }

  accept(options: JobAcceptOptions = {}): void {
    this.once();
    const attributes: Record<string, string> = { ...options.attributes };
    if (this.agentName) attributes[AGENT_NAME_ATTRIBUTE] = this.agentName;
    this.answerGiven = {
      accepted: true,
      identity: options.identity ?? `agent-${this.job.id}`,
      name: options.name ?? (this.agentName || 'agent'),
      metadata: options.metadata ?? '',
      attributes,
    };
  }

  reject(options: JobRejectOptions = {}): void {
    this.once();
    this.answerGiven = { accepted: false, terminate: options.terminate === true };
  }

  private once(): void {
    if (this.answerGiven) {
      throw new Error(
        `job ${this.job.id} was already ${this.answerGiven.accepted ? 'accepted' : 'rejected'}`,
      );
    }
  }
}
