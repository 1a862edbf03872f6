import type { InterruptionDetector } from '../../providers/interruption-detector.js';
import { LocalInterruptionDetector } from '../turn/local-interruption-detector.js';

/** How the session decides that the user has finished, and when the user may cut the agent off. All in ms. */
export interface TurnHandlingOptions {
  /**
   * What ends a user turn: `vad` (silence after speech, refined by the turn detector when one is set),
   * `stt` (the recognizer's end of speech / final transcript), or `manual` (`commitUserTurn()` only).
   */
  turnDetection: 'vad' | 'stt' | 'manual';
  /** Silence after the last speech before a turn may be committed. */
  minEndpointingDelay: number;
  /** Longest wait after the last speech when the turn detector thinks the user is not done. */
  maxEndpointingDelay: number;
  /** User speech this long (VAD) can interrupt the agent. */
  minInterruptionDuration: number;
  /**
   * Words the user must have said before the agent is cut, on top of `minInterruptionDuration`; 0 means
   * no word requirement.
   */
  minInterruptionWords: number;
  /** After the user stops, how long a paused speech waits for words before it resumes. */
  falseInterruptionTimeout: number;
  /** Pause on user speech and resume if it was a false interruption, instead of cutting at once. */
  resumeFalseInterruption: boolean;
  /** Feed the STT silence (never the VAD) while an uninterruptible speech plays. */
  discardAudioIfUninterruptible: boolean;
  /**
   * Longest user turn, from its first speech, before the agent's `onUserTurnExceeded` decides what to do
   * (say something, answer what was said so far, or keep listening); `null`: no limit.
   */
  maxUserTurnDuration: number | null;
  /**
   * Tells backchannels ("mm-hmm", "yeah", a cough) from barge-ins while the agent speaks: a backchannel
   * resumes the agent at once and gets no reply. Default: a `LocalInterruptionDetector` (runs locally,
   * word lists for en/es/fr/de); `null`: the plain thresholds decide.
   */
  interruptionDetector: InterruptionDetector | null;
  /**
   * Start the LLM request on a final transcript while the turn is still being endpointed, and let the
   * reply use it if the turn commits with that text; it is discarded when the user goes on or the text
   * or the conversation changes. Saves up to the endpointing delay per reply, at the cost of requests
   * thrown away.
   */
  preemptiveGeneration: boolean;
}

export const defaultTurnHandling: TurnHandlingOptions = {
  turnDetection: 'vad',
  minEndpointingDelay: 500,
  maxEndpointingDelay: 6000,
  minInterruptionDuration: 500,
  minInterruptionWords: 0,
  falseInterruptionTimeout: 2000,
  resumeFalseInterruption: true,
  discardAudioIfUninterruptible: true,
  maxUserTurnDuration: null,
  interruptionDetector: new LocalInterruptionDetector(),
  preemptiveGeneration: false,
};

export function resolveTurnHandling(options: Partial<TurnHandlingOptions> | undefined): TurnHandlingOptions {
  const resolved = { ...defaultTurnHandling, ...options };
  for (const key of [
    'minEndpointingDelay',
    'maxEndpointingDelay',
    'minInterruptionDuration',
    'minInterruptionWords',
    'falseInterruptionTimeout',
  ] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`turnHandling.${key} must be a non-negative number of ms, got ${value}`);
    }
  }
  const limit = resolved.maxUserTurnDuration;
  if (limit !== null && (!Number.isFinite(limit) || limit <= 0)) {
    throw new RangeError(
      `turnHandling.maxUserTurnDuration must be a positive number of ms or null, got ${limit}`,
    );
  }
  if (resolved.maxEndpointingDelay < resolved.minEndpointingDelay) {
    throw new RangeError(
      `turnHandling.maxEndpointingDelay (${resolved.maxEndpointingDelay}) is below minEndpointingDelay (${resolved.minEndpointingDelay})`,
    );
  }
  return resolved;
}
