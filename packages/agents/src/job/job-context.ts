import { type Logger, defaultLogger } from '../log/logger.js';
import { type Clock, realClock } from '../time/clock.js';
import { processId } from '../utils/ids.js';
import type { AgentSession } from '../voice/session/agent-session.js';
import type { AudioInput, AudioOutput, TextOutput } from '../providers/audio-io.js';
import type { AgentDefinition } from './agent-definition.js';

// biome-ignore lint/suspicious/noExplicitAny: a job runs sessions of any user data type.
type AnySession = AgentSession<any>;

/** The transport's side of a session: spread it into `session.start()`. */
export interface SessionIO {
  input: { audio?: AudioInput };
  output: { audio?: AudioOutput; text?: TextOutput };
}

export type NoticeLevel = 'info' | 'warn' | 'error';

export interface JobNotice {
  level: NoticeLevel;
  message: string;
}

/** What one conversation's agent code sees, whatever carries the audio. */
export interface JobContext<Prewarmed = unknown> {
  readonly jobId: string;
  /** Which transport runs the job: `playground`, `console`, `livekit`... */
  readonly transport: string;
  /** What the definition's `prewarm()` returned in this process. */
  readonly prewarmed: Prewarmed;
  readonly logger: Logger;
  /** Aborted when the job is ending (the user left, the socket dropped, the process is stopping). */
  readonly signal: AbortSignal;
  /**
   * Connects a session to the transport and returns its audio input and audio/text outputs, to spread
   * into `session.start({ agent, ...ctx.connect(session) })`. The transport then shows the session's
   * events (transcripts, states, tools, metrics), and the job closes the session when it ends; when the
   * session closes by itself, the job ends. One session per job.
   */
  connect(session: AnySession): SessionIO;
  /** Tells the person in front of the transport something (the page shows it, the console prints it). */
  notify(message: string, options?: { level?: NoticeLevel }): void;
  /** Runs when the job ends, after its session closed; bounded by the job's shutdown deadline. */
  addShutdownCallback(callback: (reason: string) => void | Promise<void>): void;
  /** Ends the job (e.g. the agent hung up). Returns at once; `signal` aborts. */
  shutdown(reason?: string): void;
}

/** Implemented by each transport (playground, console, LiveKit worker) to host jobs. */
export interface JobTransport {
  readonly name: string;
  /** The user's audio in and the agent's outputs for this job's session. */
  io(): SessionIO;
  /** The entry connected its session: follow its events. */
  onSessionConnected?(session: AnySession): void;
  notify?(notice: JobNotice): void;
  /** The job ended (for any reason): release the connection. */
  onJobEnded?(reason: string): void;
}

export interface JobOptions<Prewarmed> {
  definition: AgentDefinition<Prewarmed>;
  prewarmed: Prewarmed;
  transport: JobTransport;
  jobId?: string;
  logger?: Logger;
  clock?: Clock;
  /** Longest the end of a job may take (session close, then shutdown callbacks), in ms. Default 10000. */
  shutdownTimeoutMs?: number;
}

/** Runs `prewarm()` of a definition, or resolves `undefined` when it has none. */
export async function prewarmAgent<Prewarmed>(definition: AgentDefinition<Prewarmed>): Promise<Prewarmed> {
  return (definition.prewarm ? await definition.prewarm() : undefined) as Prewarmed;
}

/**
 * One conversation on a transport: it runs the definition's `entry` with a `JobContext`, and ends once,
 * whichever comes first: the transport ends it, the entry fails, its session closes, or the agent calls
 * `ctx.shutdown()`. Ending closes the session, then runs the shutdown callbacks, within a deadline.
 */
export class Job<Prewarmed = unknown> {
  readonly id: string;
  readonly context: JobContext<Prewarmed>;
  /** Resolves with the reason once the job has fully ended. */
  readonly ended: Promise<string>;
  private readonly controller = new AbortController();
  private readonly callbacks: Array<(reason: string) => void | Promise<void>> = [];
  private readonly clock: Clock;
  private readonly logger: Logger;
  private session: AnySession | undefined;
  private ending: Promise<void> | undefined;
  private resolveEnded!: (reason: string) => void;

  constructor(private readonly options: JobOptions<Prewarmed>) {
    this.id = options.jobId ?? processId('job');
    this.clock = options.clock ?? realClock();
    this.logger = (options.logger ?? defaultLogger()).child({ jobId: this.id });
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    const transport = options.transport;
    this.context = {
      jobId: this.id,
      transport: transport.name,
      prewarmed: options.prewarmed,
      logger: this.logger,
      signal: this.controller.signal,
      connect: (session) => this.connect(session),
      notify: (message, notifyOptions) => this.notify(notifyOptions?.level ?? 'info', message),
      addShutdownCallback: (callback) => {
        this.callbacks.push(callback);
      },
      shutdown: (reason) => {
        void this.shutdown(reason ?? 'ended by the agent');
      },
    };
  }

  /** The connected session, once the entry has connected one. */
  get connectedSession(): AnySession | undefined {
    return this.session;
  }

  /** Runs the entry. A failing entry is reported to the transport and ends the job; this never rejects. */
  async run(): Promise<void> {
    try {
      await this.options.definition.entry(this.context);
      if (!this.session && !this.ending) {
        this.notify(
          'warn',
          'The agent entry returned without connecting a session: call `session.start({ agent, ...ctx.connect(session) })`',
        );
      }
    } catch (error) {
      if (this.ending) return;
      this.logger.error(error instanceof Error ? error : { error: String(error) }, 'agent entry failed');
      this.notify('error', `The agent entry failed: ${describeError(error)}`);
      await this.shutdown(`entry failed: ${describeError(error)}`);
    }
  }

  /** Ends the job; later calls return the same promise. */
  shutdown(reason = 'job ended'): Promise<void> {
    this.ending ??= this.end(reason);
    return this.ending;
  }

  private connect(session: AnySession): SessionIO {
    if (this.session && this.session !== session) {
      throw new Error('ctx.connect() was already called with another session: a job runs one session');
    }
    if (this.ending) throw new Error('ctx.connect() was called after the job ended');
    this.session = session;
    session.on('close', (event) => {
      void this.shutdown(`session closed: ${event.reason}`);
    });
    this.options.transport.onSessionConnected?.(session);
    return this.options.transport.io();
  }

  private notify(level: NoticeLevel, message: string): void {
    const log =
      level === 'error' ? this.logger.error : level === 'warn' ? this.logger.warn : this.logger.info;
    log(message);
    this.options.transport.notify?.({ level, message });
  }

  private async end(reason: string): Promise<void> {
    this.controller.abort(new Error(reason));
    const deadline = this.clock.now() + (this.options.shutdownTimeoutMs ?? 10_000);
    const remaining = () => Math.max(0, deadline - this.clock.now());
    try {
      if (this.session && !this.session.closed) {
        await this.within(this.session.close(reason), remaining(), 'session close');
      }
      for (const callback of this.callbacks) {
        await this.within(
          Promise.resolve().then(() => callback(reason)),
          remaining(),
          'shutdown callback',
        );
      }
    } finally {
      this.options.transport.onJobEnded?.(reason);
      this.resolveEnded(reason);
    }
  }

  /** Waits for `work` at most `ms`; failures and overruns are logged, never thrown. */
  private async within(work: Promise<unknown>, ms: number, what: string): Promise<void> {
    const timeout = new AbortController();
    let timedOut = false;
    // Whichever loses the race may still settle later; neither may become an unhandled rejection.
    work.catch(() => {});
    const timer = this.clock.sleep(ms, timeout.signal).then(
      () => {
        timedOut = true;
      },
      () => {},
    );
    try {
      await Promise.race([work, timer]);
      if (timedOut) this.logger.warn({ what, ms }, 'job shutdown step overran its deadline');
    } catch (error) {
      this.logger.warn({ what, error: describeError(error) }, 'job shutdown step failed');
    } finally {
      timeout.abort();
    }
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
