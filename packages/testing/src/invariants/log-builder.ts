import type { LogEntry, SimConfig } from '../log.js';
import { DEFAULT_CONFIG } from './model.js';

type Fields = Record<string, unknown>;

/**
 * Writes conversation logs by hand, for tests of the checker and for users who want to check logs of
 * their own making. Entries are stamped with the current time; `at()` moves it forward.
 */
export class LogBuilder {
  readonly entries: LogEntry[] = [];
  private now = 0;

  constructor(config: Partial<SimConfig> = {}) {
    this.sim('sim_config', { config: { ...DEFAULT_CONFIG, ...config }, scenario: 'hand-made', seed: 0 });
  }

  at(ms: number): this {
    this.now = ms;
    return this;
  }

  event(type: string, fields: Fields = {}): this {
    return this.push({ src: 'event', type, ...fields });
  }

  trace(type: string, fields: Fields = {}): this {
    return this.push({ src: 'trace', type, ...fields });
  }

  sim(type: string, fields: Fields = {}): this {
    return this.push({ src: 'sim', type, ...fields });
  }

  userState(newState: string, oldState = newState === 'speaking' ? 'listening' : 'speaking'): this {
    return this.event('user_state_changed', { oldState, newState });
  }

  agentState(newState: string, oldState = 'listening'): this {
    return this.event('agent_state_changed', { oldState, newState });
  }

  /** A speech created, queued and granted the output at the current time. */
  speech(
    speechId: string,
    options: { source?: string; allowInterruptions?: boolean; turnId?: string } = {},
  ): this {
    if (options.turnId) this.trace('reply_started', { turnId: options.turnId, speechId });
    this.event('speech_created', {
      speechId,
      source: options.source ?? 'say',
      allowInterruptions: options.allowInterruptions ?? true,
    });
    this.trace('speech_queued', { speechId, priority: 5 });
    return this.trace('speech_authorized', { speechId, step: 1 });
  }

  /** `n` frames of `ms` each, one per frame duration from now, attributed to the speech. */
  frames(speechId: string, n: number, ms = 20): this {
    for (let i = 0; i < n; i++) {
      if (i > 0) this.now += ms;
      this.sim('output_frame', { durationMs: ms, first: i === 0, speechId });
      this.trace('speech_frame', { speechId, durationMs: ms, allowInterruptions: true });
    }
    return this;
  }

  /** Ends the log like a finished simulation. */
  end(fields: Fields = {}): LogEntry[] {
    this.sim('sim_end', {
      simulatedMs: this.now,
      inputFrames: 0,
      vadFrames: 0,
      sttFrames: 0,
      vadDroppedEvents: 0,
      outputMaxQueuedMs: 0,
      ...fields,
    });
    return this.entries;
  }

  private push(entry: Fields): this {
    this.entries.push({ ...entry, atMs: this.now } as unknown as LogEntry);
    return this;
  }
}
