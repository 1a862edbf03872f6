import type { AudioFrame } from '../audio/audio-frame.js';

/**
 * Voice activity detection contract. Timestamps are positions in the audio pushed so far (ms of audio),
 * not wall-clock time, so results do not depend on how fast frames arrive.
 */
export type VADEvent =
  | {
      type: 'start_of_speech';
      /** Audio position where speech began (after min speech duration was confirmed). */
      timestampMs: number;
      speechDurationMs: number;
      silenceDurationMs: number;
      /** Prefix padding plus the speech so far. */
      frames: AudioFrame[];
    }
  | {
      type: 'inference_done';
      timestampMs: number;
      /** Speech probability of the latest window, 0..1. */
      probability: number;
      /** Whether the detector considers the user to be speaking after this window. */
      speaking: boolean;
      speechDurationMs: number;
      silenceDurationMs: number;
      /** CPU time the inference took, for metrics. */
      inferenceDurationMs: number;
    }
  | {
      type: 'end_of_speech';
      timestampMs: number;
      speechDurationMs: number;
      silenceDurationMs: number;
      /** The whole utterance (with prefix padding), bounded by the detector's max buffered speech. */
      frames: AudioFrame[];
    };

export interface VADStream extends AsyncIterable<VADEvent> {
  /** Feeds audio; any sample rate or frame length. Never blocks: the stream buffers boundedly. */
  pushFrame(frame: AudioFrame): void;
  /** No more audio will come: pending windows are processed, then iteration ends. */
  endInput(): void;
  /** Stops at once and releases resources; iteration ends. */
  close(): Promise<void>;
}

export interface VADCapabilities {
  /** How often `inference_done` is emitted, in ms. */
  updateIntervalMs: number;
}

export interface VAD {
  readonly label: string;
  readonly capabilities: VADCapabilities;
  /** Silence needed before `end_of_speech`, in ms. The session's liveness bounds derive from it. */
  readonly minSilenceDurationMs: number;
  /** Speech needed before `start_of_speech`, in ms. */
  readonly minSpeechDurationMs: number;
  stream(options?: { signal?: AbortSignal }): VADStream;
}
