import { toConversationTurns } from '../../llm/llm-messages.js';
import type { Clock, TimerHandle } from '../../time/clock.js';
import type { IdGenerator } from '../../utils/ids.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import type { TurnHandlingOptions } from '../session/options.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { SessionRuntime } from '../session/session-runtime.js';

/** Longest analysis delay of a VAD event that is still corrected for; beyond it the event's own count wins. */
const MAX_VAD_LAG_MS = 2000;

export type UserState = 'listening' | 'speaking' | 'away';

export interface CommittedTurn {
  turnId: string;
  transcript: string;
  /** Clock time when the user last spoke, when known (VAD or STT). */
  lastSpeechAtMs: number | undefined;
  committedAtMs: number;
  /** When the final transcript arrived, for the transcription-delay metric. */
  finalTranscriptAtMs: number | undefined;
  /** False when only an interim transcript was available at commit time. */
  transcriptFinal: boolean;
  /** Mean recognizer confidence (0..1) of the turn's finals, when every one of them reported it. */
  transcriptConfidence: number | undefined;
}

export interface UserTurnTrackerDeps {
  clock: Clock;
  options: TurnHandlingOptions;
  /**
   * The recognizer (with one, a final transcript is expected after speech), the turn detector, and the
   * conversation as the detector should see it.
   */
  providers: Pick<ActiveAgent, 'stt' | 'turnDetector' | 'chatCtxWithPendingTurn'>;
  ids: IdGenerator;
  /** Endpointing decisions are traced; a failing turn detector is reported. */
  reporter: Pick<SessionReporter, 'trace' | 'error'>;
  /**
   * Hears about changes of `userState`, committed turns, late finals of committed turns, and turns that
   * outlast `maxUserTurnDuration`.
   */
  listener: Pick<
    SessionRuntime,
    'userStateChanged' | 'turnCommitted' | 'lateFinalArrived' | 'userTurnExceeded' | 'pendingTurnChanged'
  >;
}

/** What `Agent.onUserTurnExceeded` is told about the turn that went on too long. */
export interface UserTurnExceeded {
  /** What has been heard of the turn so far. */
  transcript: string;
  /** Since the turn's first speech. */
  durationMs: number;
  /** Whether the user is still speaking (else the turn waits for its end of turn). */
  userSpeaking: boolean;
}

/**
 * Owns `userState` and decides when a user turn ends. Endpointing commits a turn no earlier than the last
 * speech + min delay and no later than the last speech + max delay, whatever the turn detector does
 * (slow, failing or absent) and whatever the transcript holds (an empty turn is committed and then
 * skipped by the session, visibly).
 */
export class UserTurnTracker {
  private state: UserState = 'listening';
  private finals: string[] = [];
  /** The confidence of each final in `finals`, undefined where the recognizer gave none. */
  private confidences: Array<number | undefined> = [];
  private interim = '';
  private language: string | undefined;
  private lastSpeechAt: number | undefined;
  private finalAt: number | undefined;
  private endpointing:
    | { commitTimer: TimerHandle | undefined; maxTimer: TimerHandle; prediction: AbortController | undefined }
    | undefined;
  private lateFinalFor: string | undefined;
  /** The finals a turn committed from an interim already held: its late final replaces only the interim. */
  private lateFinalKeeps: string[] = [];
  private vadSpeaking = false;
  /** Speech was heard and its final transcript has not arrived yet. */
  private awaitingFinal = false;
  /** The min delay passed while a final was pending: commit as soon as it lands. */
  private commitOnFinal = false;
  private sttSpeaking = false;
  private hasVad = false;
  /** The first speech of the pending turn, and the timer of its duration limit. */
  private turnLimit: { startedAt: number; timer: TimerHandle | undefined } | undefined;

  constructor(private readonly deps: UserTurnTrackerDeps) {}

  get userState(): UserState {
    return this.state;
  }

  /** Transcript heard since the last commit. */
  get pendingTranscript(): string {
    return joinText([...this.finals, this.interim]);
  }

  /** The next final transcript only corrects a turn already committed from an interim. */
  get nextFinalIsLate(): boolean {
    return this.lateFinalFor !== undefined && !this.vadSpeaking && this.finals.length === 0;
  }

  /** What was heard since the last commit before a new transcript (which replaces any interim). */
  get heardBefore(): string {
    return joinText(this.finals);
  }

  get endpointingPending(): boolean {
    return this.endpointing !== undefined;
  }

  /** Whether a VAD drives speaking/listening; without one, the STT's speech events do. */
  setVadPresent(present: boolean): void {
    this.hasVad = present;
    if (!present && this.vadSpeaking) this.onVadEndOfSpeech(0);
  }

  onVadStartOfSpeech(speechDurationMs: number): void {
    this.vadSpeaking = true;
    this.awaitingFinal = this.deps.providers.stt !== undefined;
    this.lateFinalFor = undefined;
    this.cancelEndpointing();
    this.turnSpeechStarted();
    this.deps.listener.pendingTurnChanged(this.pendingTranscript, 'speech');
    this.deps.reporter.trace({
      type: 'vad_start_of_speech',
      speechStartMs: this.deps.clock.now() - speechDurationMs,
    });
    this.setState('speaking');
  }

  /**
   * `speechEndedAtMs`: when the audio of the speech's end arrived, if known. A VAD's events arrive after
   * its analysis; counting the silence back from their arrival would add the analysis time to every
   * endpointing delay. A date that is not before the silence the VAD counted is not trusted.
   */
  onVadEndOfSpeech(silenceDurationMs: number, speechEndedAtMs?: number): void {
    if (!this.vadSpeaking) return;
    this.vadSpeaking = false;
    const counted = this.deps.clock.now() - silenceDurationMs;
    const plausible =
      speechEndedAtMs !== undefined &&
      speechEndedAtMs <= counted &&
      speechEndedAtMs >= counted - MAX_VAD_LAG_MS;
    this.lastSpeechAt = plausible ? speechEndedAtMs : counted;
    this.deps.reporter.trace({ type: 'vad_end_of_speech', lastSpeechMs: this.lastSpeechAt });
    this.setState('listening');
    if (this.deps.options.turnDetection === 'vad') this.startEndpointing();
  }

  /** The VAD stream failed, closed, or audio input stopped: nobody can be heard speaking any more. */
  onSpeechSourceLost(): void {
    if (this.vadSpeaking) this.onVadEndOfSpeech(0);
    if (this.sttSpeaking && !this.hasVad) this.onSttEndOfSpeech();
  }

  /**
   * Audio input was turned off: the user is `listening` at once and no endpointing runs on audio that is
   * no longer heard. What was heard stays pending: `commitUserTurn()` answers it (push-to-talk),
   * `clearUserTurn()` drops it, else it joins the next turn.
   */
  onInputDisabled(): void {
    if (this.vadSpeaking || this.sttSpeaking) this.lastSpeechAt = this.deps.clock.now();
    this.vadSpeaking = false;
    this.sttSpeaking = false;
    this.awaitingFinal = false;
    this.cancelEndpointing();
    this.resetTurnLimit();
    if (this.state === 'speaking') this.setState('listening');
  }

  onSttStartOfSpeech(): void {
    this.sttSpeaking = true;
    if (!this.hasVad) {
      this.lateFinalFor = undefined;
      this.cancelEndpointing();
      this.turnSpeechStarted();
      this.deps.listener.pendingTurnChanged(this.pendingTranscript, 'speech');
      this.setState('speaking');
    }
  }

  onSttEndOfSpeech(): void {
    this.sttSpeaking = false;
    if (this.hasVad) return;
    this.lastSpeechAt = this.deps.clock.now();
    this.setState('listening');
    if (this.deps.options.turnDetection !== 'manual') this.startEndpointing();
  }

  onInterimTranscript(text: string, language: string | undefined): void {
    this.interim = text;
    this.language = language ?? this.language;
    this.deps.listener.pendingTurnChanged(this.pendingTranscript, 'interim');
  }

  /**
   * The recognizer's eager end of turn: still an interim for endpointing (it ends nothing), but worth
   * starting a speculative reply for, as a final would be.
   */
  onPreflightTranscript(text: string, language: string | undefined): void {
    this.interim = text;
    this.language = language ?? this.language;
    this.deps.listener.pendingTurnChanged(this.pendingTranscript, 'final');
  }

  onFinalTranscript(text: string, language: string | undefined, confidence?: number): void {
    this.language = language ?? this.language;
    this.awaitingFinal = false;
    if (this.lateFinalFor && !this.vadSpeaking && this.finals.length === 0) {
      // The turn was committed from an interim; this final belongs to it.
      const turnId = this.lateFinalFor;
      this.lateFinalFor = undefined;
      this.interim = '';
      const kept = this.lateFinalKeeps;
      this.lateFinalKeeps = [];
      if (text.trim() !== '') this.deps.listener.lateFinalArrived(turnId, joinText([...kept, text]));
      return;
    }
    this.interim = '';
    if (text.trim() !== '') {
      this.finals.push(text.trim());
      this.confidences.push(confidence);
    }
    this.finalAt = this.deps.clock.now();
    this.deps.listener.pendingTurnChanged(this.pendingTranscript, 'final');
    const mode = this.deps.options.turnDetection;
    const sttEndsTurns = mode === 'stt' || (mode === 'vad' && !this.hasVad);
    // In stt mode the recognizer's final ends the turn even while the VAD still waits out its silence;
    // new speech (a VAD start) cancels the endpointing as usual.
    if (sttEndsTurns && !this.sttSpeaking && (mode === 'stt' || !this.vadSpeaking)) {
      this.lastSpeechAt = this.deps.clock.now();
      this.startEndpointing();
    } else if (this.commitOnFinal && !this.vadSpeaking) {
      // The min delay passed with no words to judge (a recognizer that transcribes whole utterances
      // answers after the speech): let the detector judge them now, within the same deadlines.
      if (this.endpointing && this.detectorJudges()) {
        this.commitOnFinal = false;
        this.predict();
      } else {
        this.commit();
      }
    } else if (this.endpointing) {
      // Better text: ask the detector again, keeping the same deadlines.
      this.predict();
    }
  }

  /** Commits whatever has been heard now, skipping endpointing. */
  commitNow(): void {
    this.commit();
  }

  /** Forgets what has been heard since the last commit. */
  clear(): void {
    this.cancelEndpointing();
    this.resetTurnLimit();
    this.finals = [];
    this.confidences = [];
    this.interim = '';
    this.finalAt = undefined;
    this.deps.listener.pendingTurnChanged('', 'clear');
  }

  /** The session decides away-ness (it knows whether the agent is busy); the tracker only records it. */
  setAway(away: boolean): void {
    if (away && this.state === 'listening') this.setState('away');
    else if (!away && this.state === 'away') this.setState('listening');
  }

  dispose(): void {
    this.cancelEndpointing();
    this.resetTurnLimit();
  }

  /** The user speaks: the first speech of a turn starts its duration limit. */
  private turnSpeechStarted(): void {
    const limit = this.deps.options.maxUserTurnDuration;
    if (limit === null || this.turnLimit) return;
    const startedAt = this.deps.clock.now();
    const timer = this.deps.clock.setTimer(limit, () => {
      if (this.turnLimit?.timer !== timer) return;
      this.turnLimit.timer = undefined;
      const exceeded: UserTurnExceeded = {
        transcript: this.pendingTranscript,
        durationMs: this.deps.clock.now() - startedAt,
        userSpeaking: this.state === 'speaking',
      };
      this.deps.reporter.trace({ type: 'user_turn_exceeded', ...exceeded });
      this.deps.listener.userTurnExceeded(exceeded);
    });
    this.turnLimit = { startedAt, timer };
  }

  private resetTurnLimit(): void {
    this.turnLimit?.timer?.cancel();
    this.turnLimit = undefined;
  }

  private setState(state: UserState): void {
    if (this.state === state) return;
    const old = this.state;
    this.state = state;
    this.deps.listener.userStateChanged(old, state);
  }

  private startEndpointing(): void {
    this.cancelEndpointing();
    const { minEndpointingDelay, maxEndpointingDelay } = this.deps.options;
    const lastSpeech = this.lastSpeechAt ?? this.deps.clock.now();
    this.deps.reporter.trace({
      type: 'endpointing_started',
      lastSpeechMs: lastSpeech,
      minDelayMs: minEndpointingDelay,
      maxDelayMs: maxEndpointingDelay,
    });
    const maxTimer = this.deps.clock.setTimer(this.untilSinceSpeech(maxEndpointingDelay), () =>
      this.commit(),
    );
    this.endpointing = { commitTimer: undefined, maxTimer, prediction: undefined };
    this.predict();
  }

  /** Chooses the delay from the detector's verdict (or the min delay without one) and arms the commit. */
  private predict(): void {
    const endpointing = this.endpointing;
    if (!endpointing) return;
    endpointing.prediction?.abort();
    endpointing.prediction = undefined;
    const detector = this.deps.providers.turnDetector;
    const transcript = this.pendingTranscript;
    const { minEndpointingDelay, maxEndpointingDelay } = this.deps.options;
    const threshold = detector?.unlikelyThreshold(this.language);
    if (!detector || threshold === undefined || transcript === '') {
      this.armCommit(minEndpointingDelay);
      return;
    }
    const controller = new AbortController();
    endpointing.prediction = controller;
    // Until the detector answers, the max delay (already armed) is the only deadline.
    detector
      .predictEndOfTurn(toConversationTurns(this.deps.providers.chatCtxWithPendingTurn(transcript)), {
        signal: controller.signal,
      })
      .then(
        (probability) => {
          if (controller.signal.aborted || this.endpointing !== endpointing) return;
          const delay = probability < threshold ? maxEndpointingDelay : minEndpointingDelay;
          this.deps.reporter.trace({ type: 'end_of_turn_prediction', probability, delayMs: delay });
          this.armCommit(delay);
        },
        (error: unknown) => {
          if (controller.signal.aborted || this.endpointing !== endpointing) return;
          this.deps.reporter.trace({
            type: 'end_of_turn_prediction',
            probability: undefined,
            delayMs: minEndpointingDelay,
            error: String(error),
          });
          this.deps.reporter.error('turn_detector', error, true);
          this.armCommit(minEndpointingDelay);
        },
      );
  }

  /** Whether `predict()` would ask the detector (rather than fall back to the min delay). */
  private detectorJudges(): boolean {
    const detector = this.deps.providers.turnDetector;
    return (
      detector !== undefined &&
      detector.unlikelyThreshold(this.language) !== undefined &&
      this.pendingTranscript !== ''
    );
  }

  private armCommit(delayMs: number): void {
    const endpointing = this.endpointing;
    if (!endpointing) return;
    endpointing.commitTimer?.cancel();
    endpointing.commitTimer = this.deps.clock.setTimer(this.untilSinceSpeech(delayMs), () => {
      // A recognizer that transcribes whole utterances answers after the speech ends: wait for its
      // final rather than commit an empty turn (the max-delay timer still bounds the wait).
      if (this.awaitingFinal) this.commitOnFinal = true;
      else this.commit();
    });
  }

  private untilSinceSpeech(delayMs: number): number {
    const lastSpeech = this.lastSpeechAt ?? this.deps.clock.now();
    return Math.max(0, lastSpeech + delayMs - this.deps.clock.now());
  }

  private cancelEndpointing(): void {
    this.commitOnFinal = false;
    const endpointing = this.endpointing;
    if (!endpointing) return;
    this.endpointing = undefined;
    endpointing.commitTimer?.cancel();
    endpointing.maxTimer.cancel();
    endpointing.prediction?.abort();
  }

  private commit(): void {
    this.cancelEndpointing();
    this.resetTurnLimit();
    this.awaitingFinal = false;
    const transcriptFinal = this.interim === '';
    const turn: CommittedTurn = {
      turnId: this.deps.ids('turn'),
      transcript: this.pendingTranscript,
      lastSpeechAtMs: this.lastSpeechAt,
      committedAtMs: this.deps.clock.now(),
      finalTranscriptAtMs: this.finalAt,
      transcriptFinal,
      // An interim has no confidence: a turn committed from one has none either.
      transcriptConfidence: transcriptFinal ? meanConfidence(this.confidences) : undefined,
    };
    this.lateFinalFor = transcriptFinal ? undefined : turn.turnId;
    this.lateFinalKeeps = transcriptFinal ? [] : this.finals;
    this.finals = [];
    this.confidences = [];
    this.interim = '';
    this.finalAt = undefined;
    this.deps.listener.turnCommitted(turn);
  }
}

function joinText(parts: string[]): string {
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join(' ');
}

function meanConfidence(values: ReadonlyArray<number | undefined>): number | undefined {
  if (values.length === 0 || values.some((v) => v === undefined || !Number.isFinite(v))) return undefined;
  const sum = (values as number[]).reduce((a, b) => a + b, 0);
  return Math.min(1, Math.max(0, sum / values.length));
}
