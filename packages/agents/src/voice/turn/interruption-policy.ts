import { countWords } from '../../adapters/sentence-tokenizer.js';
import type { Clock, TimerHandle } from '../../time/clock.js';
import type { AudioOutput } from '../../providers/audio-io.js';
import type { InterruptionEvidence, InterruptionVerdict } from '../../providers/interruption-detector.js';
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
  audioOutput: Pick<AudioOutput, 'canPause' | 'pause' | 'resume' | 'clearBuffer'> | undefined;
  /** Which speech holds the output. */
  scheduler: Pick<SpeechScheduler, 'current' | 'currentStep'>;
  /** Which speech plays, whose tools run; told when the output pauses or resumes. */
  activity: Pick<ActivityState, 'playingSpeech' | 'latestToolPhaseSpeech' | 'outputPauseChanged'>;
  /** An end-of-turn decision is pending: a paused speech waits for it. */
  turns: Pick<UserTurnTracker, 'endpointingPending'>;
  /** Pauses, resumes and cuts are traced; a false interruption is announced. */
  reporter: Pick<SessionReporter, 'trace' | 'event'>;
  /** The session's language hint, for a detector when the transcript carries none. */
  language?: string | undefined;
}

/**
 * Decides, from user activity, whether the agent's speech pauses, resumes or is cut. An interruptible
 * speech never sends audio while the user speaks (it is paused); it is cut only once the user's speech
 * reaches the minimum duration, and, when `minInterruptionWords` is set, the minimum words too; with
 * false-interruption resume a playing speech also waits for a transcript to confirm the speech. Otherwise
 * it resumes, always announced by `agent_false_interruption`, within the false-interruption timeout after
 * the user stops or when the pending end-of-turn decision lands.
 *
 * Speech counts against a speech step only from when that step became the target: speech of a committed
 * turn never cuts the reply to that turn, and a step that begins while the user talks (a tool's follow-up,
 * a `say()`) is held rather than cut in the instant it appears.
 *
 * Duration comes from the VAD; without one, from the recognizer: measured on the clock from its
 * `start_of_speech`, or from its first transcript when it reports no speech events (later than the speech
 * began, so a cut comes later, never earlier). A recognizer that gives only finals and no speech events
 * reports no duration, so it never cuts by itself.
 */
export class InterruptionPolicy {
  private userSpeaking = false;
  /** Speech of the current utterance (VAD, or clock time since the recognizer heard it start). */
  private speechMs = 0;
  private speechStartedAt = 0;
  /** Words heard since the last commit. */
  private words = 0;
  /**
   * What had been heard when the current target became the target (or the last turn was committed):
   * only what the user says after that can cut it.
   */
  private baseline: { target: string | undefined; speechMs: number; words: number } = {
    target: undefined,
    speechMs: 0,
    words: 0,
  };
  private paused: { handle: SpeechHandle; off: () => void; sinkPaused: boolean } | undefined;
  private falseTimer: TimerHandle | undefined;
  private awaitingTurnDecision = false;
  /** The latest transcript since the last commit, and its language. */
  private text = '';
  private textLanguage: string | undefined;
  /** The detector judged the utterance under way a backchannel: the agent resumes when it ends. */
  private backchannelHeard = false;
  /** The user spoke while the agent's speech played, since the last commit. */
  private spokeOverAgent = false;

  constructor(private readonly deps: InterruptionPolicyDeps) {}

  get pausedSpeech(): SpeechHandle | undefined {
    return this.paused?.handle;
  }

  onUserSpeechStarted(): void {
    this.userSpeaking = true;
    this.speechMs = 0;
    this.speechStartedAt = this.deps.clock.now();
    this.words = 0;
    this.baseline = { target: this.targetKey(), speechMs: 0, words: 0 };
    this.backchannelHeard = false;
    if (this.targetIsPlaying()) this.spokeOverAgent = true;
    this.cancelFalseTimer();
    this.pauseIfNeeded();
  }

  onUserSpeechProgress(speechDurationMs: number): void {
    if (!this.userSpeaking) return;
    this.speechMs = Math.max(this.speechMs, speechDurationMs);
    this.cutIfReached('user_speech');
  }

  /**
   * Without a VAD, the recognizer's transcripts are the evidence that the user speaks: they measure the
   * utterance, and the first one starts it when the recognizer reports no speech events (`startsSpeech`;
   * one that does would otherwise restart it with a final that comes after its end of speech).
   */
  onRecognizerHeardSpeech(startsSpeech: boolean): void {
    if (this.userSpeaking) this.onUserSpeechProgress(this.deps.clock.now() - this.speechStartedAt);
    else if (startsSpeech) this.onUserSpeechStarted();
  }

  onUserTranscript(text: string, language?: string): void {
    this.text = text;
    this.textLanguage = language ?? this.textLanguage;
    this.words = Math.max(this.words, countWords(text));
    if (this.userSpeaking || this.paused) this.cutIfReached('user_words');
  }

  onUserSpeechEnded(): void {
    // Also called when the VAD is lost; if nobody was speaking, nothing ended and no timer restarts.
    if (!this.userSpeaking) return;
    this.userSpeaking = false;
    if (!this.paused) return;
    // The utterance is over: if it never reached the minimum duration, no transcript can make it cut;
    // a backchannel never cuts either.
    if (this.backchannelHeard || this.heardSpeechMs() < this.deps.options.minInterruptionDuration) {
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

  /**
   * The user's turn was committed: a meaningful turn cuts an interruptible speech. Returns `backchannel`
   * when the detector judges the whole turn, heard over the agent's speech, an acknowledgement: it cuts
   * nothing and deserves no reply.
   */
  onTurnCommitted(transcript: string, language?: string): 'backchannel' | undefined {
    // The turn cuts on its own words: interim words that its final dropped (an empty final) already
    // had their chance to interrupt, and must not cut a speech that started after them.
    const words = countWords(transcript);
    const backchannel =
      words > 0 &&
      (this.spokeOverAgent || this.targetIsPlaying()) &&
      this.classify({
        transcript,
        words,
        speechMs: this.speechMs,
        userSpeaking: this.userSpeaking,
        language: language ?? this.textLanguage ?? this.deps.language,
      }) === 'backchannel';
    this.text = '';
    this.spokeOverAgent = this.userSpeaking && this.targetIsPlaying();
    if (backchannel) {
      this.words = 0;
      if (!this.userSpeaking) this.speechMs = 0;
      this.baseline = { target: this.targetKey(), speechMs: this.speechMs, words: 0 };
      this.resumeAfterDecision();
      return 'backchannel';
    }
    const target = this.target();
    const { minInterruptionDuration, minInterruptionWords } = this.deps.options;
    const heard = { speechMs: this.heardSpeechMs(), words };
    const reached = words > 0 && words >= minInterruptionWords && heard.speechMs >= minInterruptionDuration;
    // The next turn starts counting from zero: words and speech heard so far belong to the turn just
    // committed, also when the user is still inside the VAD's silence window (or keeps talking), so they
    // never cut the reply to this turn.
    this.words = 0;
    if (!this.userSpeaking) this.speechMs = 0;
    this.baseline = { target: this.targetKey(), speechMs: this.speechMs, words: 0 };
    if (target?.interruptible && reached) {
      this.interrupt(target, 'user_turn', heard);
      return undefined;
    }
    this.resumeAfterDecision();
    return undefined;
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

  /**
   * Identifies the target as the step it is in: a speech that takes the output for a new step (its
   * tools are done) is a new target, as is another speech.
   */
  /** The key of the last target asked for, with what it was built from: asked for every VAD window. */
  private keyCache: { current: unknown; step: number | undefined; tools: unknown; key: string | undefined } =
    {
      current: undefined,
      step: -1,
      tools: undefined,
      key: undefined,
    };

  private targetKey(): string | undefined {
    const current = this.deps.scheduler.current;
    const step = current ? this.deps.scheduler.currentStep : -1;
    const tools = current ? undefined : this.deps.activity.latestToolPhaseSpeech;
    const cache = this.keyCache;
    if (cache.current === current && cache.step === step && cache.tools === tools) return cache.key;
    const key = current ? `${current.id}/output/${step}` : tools ? `${tools.id}/tools` : undefined;
    this.keyCache = { current, step, tools, key };
    return key;
  }

  /** What the user said since the current target became the target (or since the last commit). */
  private heard(): { speechMs: number; words: number } {
    return {
      speechMs: this.heardSpeechMs(),
      words: Math.max(0, this.words - this.baseline.words),
    };
  }

  /** The speech part of `heard()`, without making its object: the VAD's every window asks for it. */
  private heardSpeechMs(): number {
    const key = this.targetKey();
    if (key !== this.baseline.target) {
      this.baseline = { target: key, speechMs: this.speechMs, words: this.words };
    }
    return Math.max(0, this.speechMs - this.baseline.speechMs);
  }

  /** Cuts the target once the user's speech since it became the target reaches the thresholds. */
  private cutIfReached(reason: 'user_speech' | 'user_words'): void {
    const { minInterruptionDuration, minInterruptionWords, resumeFalseInterruption } = this.deps.options;
    if (this.heardSpeechMs() < minInterruptionDuration) return;
    const heard = this.heard();
    // 0 means no word requirement; a threshold, when set, is an additional condition.
    if (heard.words < minInterruptionWords) return;
    const target = this.target();
    if (!target?.interruptible) return;
    if (this.deps.options.interruptionDetector && this.targetIsPlaying()) {
      // Over the agent's speech, the detector tells an acknowledgement from a barge-in.
      const verdict = this.classify({
        transcript: lastWords(this.text, heard.words),
        words: heard.words,
        speechMs: heard.speechMs,
        userSpeaking: this.userSpeaking,
        language: this.textLanguage ?? this.deps.language,
      });
      this.spokeOverAgent = true;
      if (verdict === 'backchannel') {
        if (!this.backchannelHeard)
          this.deps.reporter.trace({ type: 'backchannel_detected', speechId: target.id });
        this.backchannelHeard = true;
        if (!this.userSpeaking) this.resume(true);
        return;
      }
      this.backchannelHeard = false;
      if (verdict === 'undecided') return;
      this.interrupt(target, heard.words > 0 ? 'user_words' : reason, heard);
      return;
    }
    // A playing speech may be a false interruption: with resume enabled, a transcript must confirm it.
    if (resumeFalseInterruption && this.targetIsPlaying() && heard.words === 0) return;
    this.interrupt(target, heard.words > 0 ? 'user_words' : reason, heard);
  }

  /** The detector's verdict; without one (or when it throws) the plain thresholds' answer, `interrupt`. */
  private classify(evidence: InterruptionEvidence): InterruptionVerdict {
    const detector = this.deps.options.interruptionDetector;
    if (!detector) return 'interrupt';
    try {
      return detector.classify(evidence);
    } catch {
      return 'interrupt';
    }
  }

  private pauseIfNeeded(): void {
    const target = this.target();
    if (target && this.targetIsPlaying()) this.pause(target);
  }

  private pause(target: SpeechHandle): void {
    if (this.paused || !target.interruptible) return;
    // However the speech ends or is cut (by the user, the app or close), the pause ends with it: a cut
    // speech is never "resumed".
    // A speech that ends while paused (its sink reported the end of a tail already played) leaves
    // nothing to hold back: the sink it paused is resumed for the speeches after it.
    const offDone = target.onDone(() => {
      const sinkPaused = this.paused?.handle === target && this.paused.sinkPaused;
      this.release();
      if (sinkPaused) this.deps.audioOutput?.resume();
    });
    const offInterrupt = target.onInterrupt(() => {
      const sinkPaused = this.paused?.handle === target && this.paused.sinkPaused;
      this.release();
      // A cut speech whose audio is in the sink is cleared by its playout, which ends the pause; one
      // whose audio already left it (played, or cut before) would leave the sink paused for the next
      // speech. Clearing ends the pause without playing anything (a resume would look like one).
      if (sinkPaused && this.deps.activity.playingSpeech === undefined) this.deps.audioOutput?.clearBuffer();
    });
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

  private interrupt(
    target: SpeechHandle,
    reason: InterruptReason,
    heard: { speechMs: number; words: number },
  ): void {
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
      userSpeechMs: heard.speechMs,
      userWords: heard.words,
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

/** The last `count` words of `text` (what was said over the current target). */
function lastWords(text: string, count: number): string {
  if (count <= 0) return '';
  const words = text
    .trim()
    .split(/\s+/u)
    .filter((w) => w !== '');
  return words.slice(-count).join(' ');
}
