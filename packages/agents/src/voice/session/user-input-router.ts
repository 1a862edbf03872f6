import type { STTEvent } from '../../providers/stt.js';
import type { VADEvent } from '../../providers/vad.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import type { InterruptionPolicy } from '../turn/interruption-policy.js';
import type { UserTurnTracker } from '../turn/user-turn-tracker.js';
import type { ActivityState } from './activity-state.js';
import type { SessionReporter } from './session-reporter.js';

export interface UserInputRouterDeps {
  tracker: UserTurnTracker;
  policy: InterruptionPolicy;
  activity: Pick<ActivityState, 'inputEnded' | 'inputResumed'>;
  /** With a VAD, the VAD says when the user speaks; without one, the recognizer does. */
  providers: Pick<ActiveAgent, 'vad'>;
  reporter: Pick<SessionReporter, 'event'>;
}

/**
 * Hands what the VAD and the STT hear to the two state machines that act on it: the turn tracker (when
 * the user's turn ends) and the interruption policy (whether the agent's speech pauses or is cut).
 */
export class UserInputRouter {
  /** The recognizer reports start and end of speech (without a VAD, they bound the user's utterance). */
  private recognizerReportsSpeech = false;

  constructor(private readonly deps: UserInputRouterDeps) {}

  /** `heardAtMs`: when the audio at the event's `timestampMs` arrived, if the pipeline knows. */
  vadEvent(event: VADEvent, heardAtMs?: number): void {
    const { tracker, policy } = this.deps;
    switch (event.type) {
      case 'start_of_speech':
        tracker.onVadStartOfSpeech(event.speechDurationMs);
        policy.onUserSpeechStarted();
        break;
      case 'inference_done':
        if (event.speaking) policy.onUserSpeechProgress(event.speechDurationMs);
        break;
      case 'end_of_speech':
        tracker.onVadEndOfSpeech(event.silenceDurationMs, heardAtMs);
        policy.onUserSpeechEnded();
        break;
    }
  }

  sttEvent(event: STTEvent): void {
    const { tracker, policy } = this.deps;
    const hasVad = this.deps.providers.vad !== undefined;
    switch (event.type) {
      case 'start_of_speech':
        this.recognizerReportsSpeech = true;
        tracker.onSttStartOfSpeech();
        if (!hasVad) policy.onUserSpeechStarted();
        break;
      case 'end_of_speech':
        tracker.onSttEndOfSpeech();
        if (!hasVad) policy.onUserSpeechEnded();
        break;
      case 'interim_transcript':
      case 'preflight_transcript':
      case 'final_transcript': {
        const best = event.alternatives[0];
        const text = best?.text ?? '';
        const isFinal = event.type === 'final_transcript';
        this.deps.reporter.event('user_input_transcribed', {
          transcript: text,
          isFinal,
          language: best?.language,
        });
        // The policy hears the words before the tracker may commit the turn with them: words of a
        // committed turn must not count toward the next one.
        const lateFinal = isFinal && tracker.nextFinalIsLate;
        const heard = text.trim() !== '' && !lateFinal;
        // Without a VAD the transcripts measure how long the user has spoken (see InterruptionPolicy).
        if (heard && !hasVad) policy.onRecognizerHeardSpeech(!this.recognizerReportsSpeech);
        if (heard) policy.onUserTranscript(`${tracker.heardBefore} ${text}`, best?.language);
        if (event.type === 'interim_transcript') tracker.onInterimTranscript(text, best?.language);
        else if (event.type === 'preflight_transcript') tracker.onPreflightTranscript(text, best?.language);
        else tracker.onFinalTranscript(text, best?.language, best?.confidence);
        // Without a VAD or speech events, a final is all that ends the utterance its transcripts began.
        if (isFinal && heard && !hasVad && !this.recognizerReportsSpeech) policy.onUserSpeechEnded();
        break;
      }
    }
  }

  /** The VAD can no longer hear the user (failed, closed, or input ended): nobody is speaking. */
  vadLost(): void {
    this.deps.tracker.onSpeechSourceLost();
    // The streams reopen after an agent change: the new agent may listen with a VAD or without one.
    this.deps.tracker.setVadPresent(this.deps.providers.vad !== undefined);
    this.deps.policy.onUserSpeechEnded();
  }

  inputEnded(): void {
    this.deps.activity.inputEnded();
  }

  /** Audio input was turned off: nobody is speaking, and what was heard waits for the app or more speech. */
  inputDisabled(): void {
    this.deps.tracker.onInputDisabled();
    this.deps.policy.onUserSpeechEnded();
    this.deps.activity.inputEnded();
  }

  /** A source is listened to again (input turned back on, or a new source after the old one ended). */
  inputResumed(): void {
    this.deps.activity.inputResumed();
  }
}
