import type { Clock, TimerHandle } from '../../time/clock.js';
import type { PlayoutGate } from '../speech/playout-gate.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { UserTurnTracker } from '../turn/user-turn-tracker.js';
import type { AgentState } from './session-events.js';
import type { SessionReporter } from './session-reporter.js';

export interface ActivityStateDeps {
  clock: Clock;
  /** Mutual silence before the user is `away`; null disables. */
  userAwayTimeoutMs: number | null;
  /** Whether audio input is attached: without it the agent waits `idle` instead of `listening`. */
  inputActive: boolean;
  /** The tracker owns `userState`; this state only decides when the user is away. */
  user: Pick<UserTurnTracker, 'userState' | 'setAway'>;
  gate: Pick<PlayoutGate, 'paused'>;
  reporter: Pick<SessionReporter, 'event'>;
}

/**
 * Derives the agent state from what the session is doing, instead of setting it ad hoc: `speaking` only
 * while a speech's frames flow, `thinking` while a speech is under way (generating, running tools, or
 * between its steps), else `listening` (or `idle` without audio input). It also owns the away timer,
 * which never runs while the agent speaks, thinks or a task is active.
 *
 * The session tells it what happened through the verbs below; each verb derives the state again at the
 * end of the current synchronous run, so one change of activity is one `agent_state_changed`.
 */
export class ActivityState {
  private readonly generating = new Set<SpeechHandle>();
  private readonly toolPhase = new Set<SpeechHandle>();
  /** Speeches whose first step was authorized and that have not ended. */
  private readonly inProgress = new Set<SpeechHandle>();
  private playing: SpeechHandle | undefined;
  private inputActive: boolean;
  private activeTasks = 0;
  private state: AgentState = 'initializing';
  private queued = false;
  private stopped = false;
  private awayTimer: TimerHandle | undefined;

  constructor(private readonly deps: ActivityStateDeps) {
    this.inputActive = deps.inputActive;
  }

  get agentState(): AgentState {
    return this.state;
  }

  /** The speech whose frames reach the output (until it is released, even when paused or cut). */
  get playingSpeech(): SpeechHandle | undefined {
    return this.playing;
  }

  /** While true, the input the user speaks over this speech may be discarded for the STT. */
  get playingSpeechIsUninterruptible(): boolean {
    return this.playing !== undefined && !this.playing.interruptible;
  }

  /** The speech whose tools started running last, among those still running. */
  get latestToolPhaseSpeech(): SpeechHandle | undefined {
    return [...this.toolPhase].pop();
  }

  // ---- what the session tells it ----

  /** The session has started (its first agent entered). */
  sessionStarted(): void {
    this.derive();
  }

  /** The scheduler let a step of `handle` use the output. */
  speechAuthorized(handle: SpeechHandle): void {
    this.inProgress.add(handle);
    this.derive();
  }

  /** The first frame of `handle`'s step reached the output. */
  playbackStarted(handle: SpeechHandle): void {
    this.playing = handle;
    this.derive();
  }

  /**
   * The step of `handle` cut its audio (`clearBuffer()`): nothing of it is left in the sink, even while
   * the step still waits for the sink to confirm, so a pause from now on has nothing there to hold.
   */
  playbackStopped(handle: SpeechHandle): void {
    if (this.playing === handle) this.playing = undefined;
    this.derive();
  }

  /** A step of `handle` gave the output back. */
  speechReleased(handle: SpeechHandle): void {
    if (this.playing === handle) this.playing = undefined;
    this.derive();
  }

  /** `handle` was interrupted: it is silent from the moment of the cut. */
  speechInterrupted(_handle: SpeechHandle): void {
    this.derive();
  }

  /** `handle` reached its outcome. */
  speechEnded(handle: SpeechHandle): void {
    this.inProgress.delete(handle);
    this.derive();
  }

  /** The playout gate was paused or opened (the user talks over the agent, or stopped). */
  outputPauseChanged(): void {
    this.derive();
  }

  generationStarted(handle: SpeechHandle): void {
    this.generating.add(handle);
    this.derive();
  }

  generationEnded(handle: SpeechHandle): void {
    this.generating.delete(handle);
    this.derive();
  }

  toolPhaseStarted(handle: SpeechHandle): void {
    this.toolPhase.add(handle);
    this.derive();
  }

  toolPhaseEnded(handle: SpeechHandle): void {
    this.toolPhase.delete(handle);
    this.derive();
  }

  /** Audio input ended or was turned off: the agent can no longer listen. */
  inputEnded(): void {
    this.inputActive = false;
    this.derive();
  }

  /** Audio input is live again. */
  inputResumed(): void {
    this.inputActive = true;
    this.derive();
  }

  /**
   * An AgentTask took over: the user is not away while it runs. The agent state does not depend on
   * tasks, so only the away timer is checked now.
   */
  taskStarted(): void {
    this.activeTasks++;
    this.updateAway();
  }

  /** An AgentTask finished; its agent may still be leaving (see `taskHandedBack`). */
  taskEnded(): void {
    this.activeTasks--;
  }

  /** The agent that started the task is in charge again: the user may go away from now on. */
  taskHandedBack(): void {
    this.derive();
  }

  /** User activity changed: the away timer restarts from now. */
  userStateChanged(): void {
    this.updateAway();
  }

  /** Freezes the state (the session is closing) and ends with `idle`. */
  stop(): void {
    this.stopped = true;
    this.awayTimer?.cancel();
    this.awayTimer = undefined;
    this.set('idle');
  }

  // ---- derivation ----

  /** Derives the state at the end of the current synchronous run, once for all the changes made in it. */
  private derive(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.compute();
    });
  }

  private compute(): void {
    if (this.stopped) return;
    let next: AgentState;
    // An interrupted speech is silent from the moment of the cut, whenever its sink confirms it.
    if (this.playing && !this.playing.interrupted && !this.deps.gate.paused) next = 'speaking';
    else if (this.inProgress.size > 0 || this.generating.size > 0 || this.toolPhase.size > 0)
      next = 'thinking';
    else next = this.inputActive ? 'listening' : 'idle';
    this.set(next);
    this.updateAway();
  }

  private set(next: AgentState): void {
    if (next === this.state) return;
    const oldState = this.state;
    this.state = next;
    this.deps.reporter.event('agent_state_changed', { oldState, newState: next });
  }

  private updateAway(): void {
    if (this.stopped) return;
    const quiet =
      this.deps.user.userState !== 'speaking' &&
      (this.state === 'listening' || this.state === 'idle') &&
      this.activeTasks === 0 &&
      this.toolPhase.size === 0;
    if (!quiet) {
      this.awayTimer?.cancel();
      this.awayTimer = undefined;
      this.deps.user.setAway(false);
      return;
    }
    const timeout = this.deps.userAwayTimeoutMs;
    if (timeout === null || this.awayTimer || this.deps.user.userState === 'away') return;
    this.awayTimer = this.deps.clock.setTimer(timeout, () => {
      this.awayTimer = undefined;
      this.deps.user.setAway(true);
    });
  }
}
