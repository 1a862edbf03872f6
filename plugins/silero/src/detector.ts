/**
 * The speech/silence decision over a sequence of window probabilities, with hysteresis: a window at or
 * above `activationThreshold` is speech, one below `deactivationThreshold` is silence, and one in
 * between keeps whatever the detector was doing. Positions are model samples of audio, never wall time.
 */
export interface DetectorSettings {
  activationThreshold: number;
  deactivationThreshold: number;
  minSpeechSamples: number;
  minSilenceSamples: number;
}

export const NOTHING = 0;
export const SPEECH_STARTED = 1;
export const SPEECH_ENDED = 2;
export type Transition = typeof NOTHING | typeof SPEECH_STARTED | typeof SPEECH_ENDED;

export class SpeechDetector {
  speaking = false;
  /** Start of the current utterance, or of the speech run that may become one. */
  speechStart = 0;
  /** Speech accumulated by a run that has not yet reached the minimum. */
  private candidateSamples = 0;
  /**
   * While speaking: where the trailing silence run began (the utterance may have ended there).
   * Otherwise: where the last utterance ended, so silence is counted since then.
   */
  silenceStart = 0;
  /**
   * Where the latest utterance ended: the end of its last window at or above the activation threshold.
   * Silero's probability decays for a window or two after the voice stops; the uncertain tail is kept
   * in the utterance but not counted as its end.
   */
  endedAt = 0;
  private lastConfident = 0;
  private position = 0;

  constructor(private readonly settings: DetectorSettings) {}

  /** Feeds the probability of the window that spans `[windowStart, windowStart + length)`. */
  update(probability: number, windowStart: number, length: number): Transition {
    const end = windowStart + length;
    this.position = end;
    const { activationThreshold, deactivationThreshold } = this.settings;
    const isSpeech = probability >= activationThreshold;
    const isSilence = probability < deactivationThreshold;

    if (!this.speaking) {
      if (isSpeech) {
        if (this.candidateSamples === 0) this.speechStart = windowStart;
        this.candidateSamples += length;
        if (this.candidateSamples >= this.settings.minSpeechSamples) {
          this.speaking = true;
          this.candidateSamples = 0;
          this.silenceStart = end;
          this.lastConfident = end;
          return SPEECH_STARTED;
        }
      } else if (isSilence) {
        this.candidateSamples = 0;
      }
      return NOTHING;
    }

    if (isSpeech) this.lastConfident = end;
    if (!isSilence) {
      // Speech, or an uncertain window while speaking: the utterance goes on.
      this.silenceStart = end;
      return NOTHING;
    }
    if (end - this.silenceStart >= this.settings.minSilenceSamples) {
      this.speaking = false;
      this.endedAt = this.lastConfident;
      this.silenceStart = this.lastConfident;
      return SPEECH_ENDED;
    }
    return NOTHING;
  }

  /** Ends a running utterance because the audio ended. */
  finish(): boolean {
    if (!this.speaking) return false;
    this.speaking = false;
    this.endedAt = Math.min(this.lastConfident, this.silenceStart);
    this.silenceStart = this.endedAt;
    this.candidateSamples = 0;
    return true;
  }

  /** A gap in the audio (windows dropped): a candidate run cannot span it. */
  skipTo(position: number): void {
    this.candidateSamples = 0;
    this.position = position;
  }

  /** Speech so far in the current utterance (up to the start of a trailing silence run). */
  speechSamples(): number {
    if (this.speaking) return this.silenceStart - this.speechStart;
    return this.candidateSamples;
  }

  /** The end of the last window at or above the activation threshold. */
  get confidentEnd(): number {
    return this.lastConfident;
  }

  /** Length of the current silence run. */
  silenceSamples(): number {
    return this.position - this.silenceStart;
  }
}
