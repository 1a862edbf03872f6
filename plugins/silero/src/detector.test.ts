import { describe, expect, it } from 'vitest';
import { SPEECH_ENDED, SpeechDetector } from './detector.js';

const W = 512;
const settings = {
  activationThreshold: 0.5,
  deactivationThreshold: 0.35,
  minSpeechSamples: 2 * W,
  minSilenceSamples: 8 * W,
};

/** Feeds `probabilities` window by window; returns the index of the window that ended speech. */
function endingWindow(detector: SpeechDetector, probabilities: number[]): number | undefined {
  for (let i = 0; i < probabilities.length; i++) {
    if (detector.update(probabilities[i]!, i * W, W) === SPEECH_ENDED) return i;
  }
  return undefined;
}

const speechThen = (silentWindows: number, uncertain = 0) => [
  ...Array(6).fill(0.9),
  ...Array(uncertain).fill(0.4),
  ...Array(silentWindows).fill(0.1),
];

describe('SpeechDetector silence counting', () => {
  it("counts the minimum silence from the last confident window's end", () => {
    const detector = new SpeechDetector(settings);
    // Speech ends at window 6; eight silent windows end it, at window 13.
    expect(endingWindow(detector, speechThen(12))).toBe(13);
    expect(detector.endedAt).toBe(6 * W);
    expect(detector.confidentEnd).toBe(6 * W);
  });

  it('keeps uncertain windows after the last confident one inside the utterance', () => {
    const detector = new SpeechDetector(settings);
    expect(endingWindow(detector, speechThen(12, 2))).toBe(15);
    expect(detector.endedAt).toBe(6 * W);
  });
});
