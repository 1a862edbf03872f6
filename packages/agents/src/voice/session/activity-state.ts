import type { Clock, TimerHandle } from '../../time/clock.js';
import type { AgentState } from './session-events.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { UserState } from '../turn/user-turn-tracker.js';

export interface ActivityStateDeps {
  clock: Clock;
  /** Mutual silence before the user is `away`; null disables. */
  userAwayTimeoutMs: number | null;
  userState(): UserState;
  setAway(away: boolean): void;
  outputPaused(): boolean;
  onAgentStateChanged(oldState: AgentState, newState: AgentState): void;
}

/**
 * Derives the agent state from what the session is doing, instead of setting it ad hoc: `speaking` only
 * while a speech's frames flow, `thinking` while a speech is under way (generating, running tools, or
 * between its steps), else `listening` (or `idle` without audio input). It also owns the away timer,
 * which never runs while the agent speaks, thinks or a task is active.
 */
export class ActivityState {
  readonly generating = new Set<SpeechHandle>();
  readonly toolPhase = new Set<SpeechHandle>();
  /** Speeches whose first step was authorized and that have not ended. */
  readonly inProgress = new Set<SpeechHandle>();
  playing: SpeechHandle | undefined;
  inputActive = false;
  activeTasks = 0;
  private state: AgentState = 'initializing';
  private queued = false;
  private stopped = false;
  private awayTimer: TimerHandle | undefined;

  constructor(private readonly deps: ActivityStateDeps) {}

  get agentState(): AgentState {
    return this.state;
  }

  /** Recomputes at the end of the current synchronous run, so one change of activity is one transition. */
  refresh(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.compute();
    });
  }

  /** Freezes the state (the session is closing) and ends with `idle`. */
  stop(): void {
    this.stopped = true;
    this.awayTimer?.cancel();
    this.awayTimer = undefined;
    this.set('idle');
  }

  /** User activity changed: the away timer restarts from now. */
  userActivity(): void {
    this.updateAway();
  }

  private compute(): void {
    if (this.stopped) return;
    let next: AgentState;
    // An interrupted speech is silent from the moment of the cut, whenever its sink confirms it.
    if (this.playing && !this.playing.interrupted && !this.deps.outputPaused()) next = 'speaking';
    else if (this.inProgress.size > 0 || this.generating.size > 0 || this.toolPhase.size > 0)
      next = 'thinking';
    else next = this.inputActive ? 'listening' : 'idle';
    this.set(next);
    this.updateAway();
  }

  private set(next: AgentState): void {
    if (next === this.state) return;
    const old = this.state;
    this.state = next;
    this.deps.onAgentStateChanged(old, next);
  }

  private updateAway(): void {
    if (this.stopped) return;
    const quiet =
      this.deps.userState() !== 'speaking' &&
      (this.state === 'listening' || this.state === 'idle') &&
      this.activeTasks === 0 &&
      this.toolPhase.size === 0;
    if (!quiet) {
      this.awayTimer?.cancel();
      this.awayTimer = undefined;
      this.deps.setAway(false);
      return;
    }
    const timeout = this.deps.userAwayTimeoutMs;
    if (timeout === null || this.awayTimer || this.deps.userState() === 'away') return;
    this.awayTimer = this.deps.clock.setTimer(timeout, () => {
      this.awayTimer = undefined;
      this.deps.setAway(true);
    });
  }
}
