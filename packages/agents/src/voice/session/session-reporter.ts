import { ProviderProblemError } from '../../errors.js';
import type { ProviderProblem } from '../../providers/common.js';
import type { AgentSession } from './agent-session.js';
import type { ErrorSource, SessionEvents, SessionMetrics } from './session-events.js';
import type { TraceRecord } from './trace.js';

/** An event as a part reports it; the reporter stamps the time. */
export type EventPayload<K extends keyof SessionEvents> = Omit<SessionEvents[K], 'atMs'>;

/**
 * The session's outward channels, each stamped with the session clock: public events, trace records (what
 * the invariant checker reads), metrics and errors. The parts report through it rather than holding the
 * whole session.
 */
export class SessionReporter {
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: reports for sessions of any user data type.
    private readonly session: AgentSession<any>,
  ) {}

  /**
   * `payload` becomes the event, stamped with its time. Every caller passes an object literal made for
   * the call, so it is completed in place rather than copied: a spread of every kind of event at one
   * site is V8's slow path, and a session emits hundreds of events and traces a turn.
   */
  event<K extends keyof SessionEvents>(name: K, payload: EventPayload<K>): void {
    const event = payload as EventPayload<K> & { atMs: number };
    event.atMs = this.session.clock.now();
    this.session.emit(name, event as unknown as SessionEvents[K]);
  }

  /** As `event()`: `record` is a literal made for the call, stamped in place. */
  trace(record: TraceRecord): void {
    const sink = this.session.options.onTrace;
    if (!sink) return;
    const stamped = record as TraceRecord & { atMs: number };
    stamped.atMs = this.session.clock.now();
    sink(stamped as never);
  }

  metrics(metrics: SessionMetrics): void {
    this.event('metrics_collected', { metrics });
  }

  error(source: ErrorSource, error: unknown, recoverable: boolean): void {
    this.session.reportError(source, error, recoverable);
  }

  /** A provider worked around a problem by itself: users hear of it as a recoverable error. */
  problem(source: ErrorSource, problem: ProviderProblem): void {
    this.session.reportError(source, new ProviderProblemError(problem), true);
  }
}
