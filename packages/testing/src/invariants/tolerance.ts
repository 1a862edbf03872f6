import type { LogModel } from './model.js';

/** Scheduling slack on top of one frame and one VAD window. */
const SLACK_MS = 20;

/** The checks' tolerance ("eps" in INVARIANTS.md): one input frame, one VAD window and some slack. */
export function eps(m: LogModel): number {
  return m.config.frameMs + m.config.vad.windowMs + SLACK_MS;
}

/** Interrupt reasons that come from the user (speech, words, a committed turn). */
export const USER_REASONS = new Set(['user_speech', 'user_words', 'user_turn']);
