import type { AudioFrame } from '../audio/audio-frame.js';
import type { ProviderCallOptions, SpecificationVersion } from './common.js';

/**
 * Voice activity detection, specification v1.
 *
 * The session pushes every input frame to the VAD, whatever plays, so the user's state always follows
 * their voice. Durations are measured in audio pushed (ms of audio), not wall-clock time, so results do
 * not depend on how fast frames arrive. `timestampMs` places an event in that audio: the session dates
 * speech on its own clock from the durations, while recorders and transports use the positions to align
 * events with what was heard.
 */
export type VADEvent =
  | {
      /** Speech began, confirmed after the detector's minimum speech duration. */
      type: 'start_of_speech';
      /** Where speech began, in ms of audio pushed (see `timestampMs` below). */
      timestampMs: number;
      /** Speech heard so far; the session dates the start of speech with it. */
      speechDurationMs: number;
      /** Prefix padding plus the speech so far: a batch recognizer starts from these. */
      frames: AudioFrame[];
    }
  | {
      /** One analysis window was processed. */
      type: 'inference_done';
      /** End of the analysed window, in ms of audio pushed. */
      timestampMs: number;
      /** Speech probability of the latest window, 0..1. */
      probability: number;
      /** Whether the user is speaking after this window; the interruption thresholds count from it. */
      speaking: boolean;
      /** Length of the current speech so far (0 while not speaking). */
      speechDurationMs: number;
    }
  | {
      /** Speech ended, after the detector's minimum silence. */
      type: 'end_of_speech';
      /** Where speech ended, in ms of audio pushed. */
      timestampMs: number;
      /** Silence since the last speech; the session dates the end of speech with it. */
      silenceDurationMs: number;
      /** The whole utterance with prefix padding, bounded by the detector's max buffered speech. */
      frames: AudioFrame[];
    };

export interface VADStream extends AsyncIterable<VADEvent> {
  /** Feeds audio: any sample rate, any frame length. Never blocks: buffer boundedly, report drops. */
  pushFrame(frame: AudioFrame): void;
  /** No more audio will come: pending windows are processed, then iteration ends. */
  endInput(): void;
  /** Stops at once and releases resources; iteration ends. */
  close(): Promise<void>;
}

export interface VAD {
  readonly specificationVersion: SpecificationVersion;
  readonly label: string;
  /**
   * A fatal failure ends iteration by throwing; the session reports it and opens a new stream.
   * A window that could not be analysed, or audio dropped from a full buffer, goes to `onProblem` and
   * the stream goes on.
   */
  stream(options?: ProviderCallOptions): VADStream;
}
