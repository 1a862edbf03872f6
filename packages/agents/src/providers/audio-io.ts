/**
 * Audio and text I/O, specification v1: what a transport (a LiveKit room, the playground's socket, a
 * file) gives the session. The session reads user audio from an `AudioInput` and plays the agent's
 * audio into an `AudioOutput`, one segment per speech step.
 */
import type { AudioFrame } from '../audio/audio-frame.js';

/** Where the user's audio comes from: any async sequence of frames (a room track, a socket, a file). */
export type AudioInput = AsyncIterable<AudioFrame>;

/** What a `FramePushingInput` delivers its frames to. */
export interface FrameReceiver {
  frame(frame: AudioFrame): void;
  /** The input ended: nothing follows. */
  end(): void;
  /** The input failed: nothing follows. */
  fail(error: unknown): void;
}

/**
 * An audio input that can also hand over each frame by callback, in the call that captured it. The
 * session subscribes instead of iterating when an input offers it: a frame then reaches the VAD without
 * a promise and a microtask of its own, which at 50 frames a second is a measurable share of a
 * simulated conversation. Subscribing must deliver the same frames, at the same times, as iterating
 * would. The returned function stops the delivery: after it, the receiver hears nothing more.
 */
export interface FramePushingInput extends AsyncIterable<AudioFrame> {
  subscribeFrames(receiver: FrameReceiver): () => void;
}

export function isFramePushingInput(input: AudioInput): input is FramePushingInput {
  return typeof (input as Partial<FramePushingInput>).subscribeFrames === 'function';
}

export interface PlaybackFinished {
  /** How much of the segment was actually heard, in ms. */
  playbackPositionMs: number;
  /** True when the segment was cut short by `clearBuffer()`. */
  interrupted: boolean;
}

/**
 * Where the agent's audio goes. The session sends one segment at a time: frames, then `flush()` (played to
 * the end) or `clearBuffer()` (stop now), and awaits `waitForPlayout()` for that segment.
 * Transports extend `AudioOutputBase` (from the core) rather than implementing this directly: it keeps
 * the segment bookkeeping.
 */
export interface AudioOutput {
  /** Frames are resampled to this rate when set. */
  readonly sampleRate: number | undefined;
  /** Whether `pause()` / `resume()` hold playback (false interruptions need it). */
  readonly canPause: boolean;
  /** Queues a frame for playback. May wait (back-pressure) while the sink's buffer is full. */
  captureFrame(frame: AudioFrame): Promise<void>;
  /** Ends the current segment: it plays to the end, then its playout finishes. */
  flush(): void;
  /**
   * Drops whatever of the current segment has not been played yet; its playout finishes as interrupted.
   * It also ends a pause: the next segment starts playing as soon as it arrives.
   */
  clearBuffer(): void;
  pause(): void;
  resume(): void;
  /**
   * Resolves when the last ended segment has finished playing (or was cleared). When `signal` aborts
   * first, rejects with its reason and forgets the wait: the session gives up on a sink that never
   * reports, and such a wait must not be kept.
   */
  waitForPlayout(options?: { signal?: AbortSignal }): Promise<PlaybackFinished>;
  /** Subscribes to playback start/finish of segments; returns an unsubscribe function. */
  onPlayback(listener: (event: PlaybackEvent) => void): () => void;
}

export type PlaybackEvent = { type: 'playback_started' } | ({ type: 'playback_finished' } & PlaybackFinished);

/**
 * Receives the agent's transcript in step with the audio actually played, and the user's transcripts.
 */
export interface TextOutput {
  /** A piece of the agent's transcript that has just become audible. */
  captureText(text: string): void;
  /** The current agent message is complete (or was interrupted). */
  flush(): void;
}
