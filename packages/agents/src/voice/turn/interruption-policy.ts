import { countWords } from '../../adapters/sentence-tokenizer.js';
import type { Clock, TimerHandle } from '../../time/clock.js';
import type { AudioOutput } from '../../providers/audio-io.js';
import type { ActivityState } from '../session/activity-state.js';
import type { TurnHandlingOptions } from '../session/options.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { InterruptReason } from '../session/trace.js';
import type { PlayoutGate } from '../speech/playout-gate.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { SpeechScheduler } from '../speech/speech-scheduler.js';
import type { UserTurnTracker } from './user-turn-tracker.js';

export interface InterruptionPolicyDeps {
  clock: Clock;
  options: TurnHandlingOptions;
  /** Owned by the policy: closed while a speech is paused. */
  gate: PlayoutGate;
  audioOutput: Pick<AudioOutput, 'canPause' | 'pause' | 'resume'> | undefined;
  /** Which speech holds the output. */
  scheduler: Pick<SpeechScheduler, 'current'>;
  /** Which speech plays, whose tools run; told when the output pauses or resumes. */
  activity: Pick<ActivityState, 'playingSpeech' | 'latestToolPhaseSpeech' | 'outputPauseChanged'>;
  /** An end-of-turn decision is pending: a paused speech waits for it. */
  turns: Pick<UserTurnTracker, 'endpointingPending'>;
  /** Pauses, resumes and cuts are traced; a false interruption is announced. */
  reporter: Pick<SessionReporter, 'trace' | 'event'>;
}

/**
 * Decides, from user activity, whether the agent's speech pauses, resumes or is cut. An interruptible
 * speech never sends audio while the user speaks (it is paused); it is cut only once the user's speech
 * reaches the minimum duration (without false-interruption resume) or the minimum words; otherwise it
 * resumes, always announced by `agent_false_interruption`, within the false-interruption timeout after
 * the user stops or when the pending end-of-turn decision lands.
 */
export class InterruptionPolicy {
  private userSpeaking = false;
  private speechMs = 0;
  private words = 0;
  private paused: { handle: SpeechHandle; off: () => void; sinkPaused: boolean } | undefined;
  private falseTimer: TimerHandle | undefined;
  private awaitingTurnDecision = false;

  constructor(private readonly deps: InterruptionPolicyDeps) {}

  get pausedSpeech(): SpeechHandle | undefined {
    return this.paused?.handle;
  }

  onUserSpeechStarted(): void {
    this.userSpeaking = true;
    this.speechMs = 0;
    this.words = 0;
    this.cancelFalseTimer();
    this.pauseIfNeeded();
  }

  onUserSpeechProgress(speechDurationMs: number): void {
    if (!this.userSpeaking) return;
    this.speechMs = Math.max(this.speechMs, speechDurationMs);
    if (this.speechMs < this.deps.options.minInterruptionDuration) return;
    const target = this.target();
    if (!target?.interruptible) return;
    const mayResume = this.deps.options.resumeFalseInterruption && this.targetIsPlaying();
    if (!mayResume) this.interrupt(target, 'user_speech');
  }

  onUserTranscript(text: string): void {
    this.words = Math.max(this.words, countWords(text));
    if (this.words < Math.max(1, this.deps.options.minInterruptionWords)) return;
    const target = this.target();
    if (target?.interruptible && (this.userSpeaking || this.paused)) this.interrupt(target, 'user_words');
  }

  onUserSpeechEnded(): void {
    // Also called when the VAD is lost; if nobody was speaking, nothing ended and no timer restarts.
    if (!this.userSpeaking) return;
    this.userSpeaking = false;
    if (!this.paused) return;
    if (this.speechMs < this.deps.options.minInterruptionDuration && this.words === 0) {
      this.resume(true);
      return;
    }
    this.cancelFalseTimer();
    this.falseTimer = this.deps.clock.setTimer(this.deps.options.falseInterruptionTimeout, () => {
      this.falseTimer = undefined;
      if (this.deps.turns.endpointingPending) this.awaitingTurnDecision = true;
      else this.resume(true);
    });
  }

  /** The user's turn was committed: a meaningful turn cuts an interruptible speech. */
  onTurnCommitted(transcript: string): void {
    // The turn cuts on its own words: interim words that its final dropped (an empty final) already
    // had their chance to interrupt, and must not cut a speech that started after them.
    const words = countWords(transcript);
    const target = this.target();
    const reached =
      words >= Math.max(1, this.deps.options.minInterruptionWords) ||
      (words > 0 && this.speechMs >= this.deps.options.minInterruptionDuration);
    // The next turn starts counting from zero: words and speech belong to the turn just committed.
    this.words = 0;
    if (!this.userSpeaking) this.speechMs = 0;
    if (target?.interruptible && reached) {
      this.interrupt(target, 'user_turn');
      return;
    }
    this.resumeAfterDecision();
  }

  /** The pending turn was skipped (empty): a paused speech waiting on that decision resumes. */
  onTurnSkipped(): void {
    this.resumeAfterDecision();
  }

  /** A turn decision resolves a pause, but never over a user who is still talking (a manual commit). */
  private resumeAfterDecision(): void {
    if (this.paused && !this.userSpeaking && (this.awaitingTurnDecision || !this.falseTimer))
      this.resume(true);
  }

  /** A speech is about to send a frame: it must not talk over a user who is speaking. */
  onFrameReady(handle: SpeechHandle): void {
    if (this.userSpeaking && !this.paused) this.pause(handle);
  }

  dispose(): void {
    this.cancelFalseTimer();
    this.paused?.off();
    this.paused = undefined;
    this.deps.gate.resume();
  }

  /** The speech a user's interruption hits: the one holding the output, else the latest running tools. */
  private target(): SpeechHandle | undefined {
    return this.deps.scheduler.current ?? this.deps.activity.latestToolPhaseSpeech;
  }

  /** True while the target sends audio (it may be paused rather than cut). */
  private targetIsPlaying(): boolean {
    const playing = this.deps.activity.playingSpeech;
    return playing !== undefined && playing === this.deps.scheduler.current;
  }

  private pauseIfNeeded(): void {
    const target = this.target();
    if (target && this.targetIsPlaying()) this.pause(target);
  }

  private pause(target: SpeechHandle): void {
    if (this.paused || !target.interruptible) return;
    // However the speech ends or is cut (by the user, the app or close), the pause ends with it: a cut
    // speech is never "resumed".
    const offDone = target.onDone(() => this.release());
    const offInterrupt = target.onInterrupt(() => this.release());
    const off = (): void => {
      offDone();
      offInterrupt();
    };
    // The sink is paused only if it holds audio of this speech; a speech held before its first frame
    // has nothing there, and a cut would then leave the sink paused for everyone after it.
    const output = this.deps.audioOutput;
    const pauseSink = output?.canPause === true && this.targetIsPlaying() && this.target() === target;
    this.paused = { handle: target, off, sinkPaused: pauseSink };
    this.deps.gate.pause();
    if (pauseSink) output?.pause();
    this.deps.reporter.trace({ type: 'speech_paused', speechId: target.id });
    this.deps.activity.outputPauseChanged();
  }

  private resume(falseInterruption: boolean): void {
    const paused = this.paused;
    if (!paused) return;
    this.cancelFalseTimer();
    if (falseInterruption) {
      this.deps.reporter.event('agent_false_interruption', { speechId: paused.handle.id, resumed: true });
    }
    this.deps.reporter.trace({ type: 'speech_resumed', speechId: paused.handle.id, falseInterruption });
    this.release();
    if (paused.sinkPaused) this.deps.audioOutput?.resume();
  }

  /** Forgets the paused speech and opens the gate (the speech ended, was cut, or resumed). */
  private release(): void {
    const paused = this.paused;
    if (!paused) return;
    paused.off();
    this.paused = undefined;
    this.awaitingTurnDecision = false;
    this.cancelFalseTimer();
    this.deps.gate.resume();
    this.deps.activity.outputPauseChanged();
  }

  private interrupt(target: SpeechHandle, reason: InterruptReason): void {
    this.deps.reporter.trace({
      type: 'speech_interrupt_requested',
      speechId: target.id,
      force: false,
      reason,
    });
    if (!target.requestInterrupt(reason, false)) return;
    this.deps.reporter.trace({
      type: 'speech_interrupted',
      speechId: target.id,
      reason,
      userSpeechMs: this.speechMs,
      userWords: this.words,
    });
    if (this.paused?.handle === target) {
      // The cut speech stays silent: resuming the sink would play a buffered tail.
      this.release();
    }
  }

  private cancelFalseTimer(): void {
    this.falseTimer?.cancel();
    this.falseTimer = undefined;
  }
}
