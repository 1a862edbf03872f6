import type { AudioFrame } from '../audio/audio-frame.js';
import type { ProviderCallOptions, SpecificationVersion, TimedWord } from './common.js';

/**
 * Speech-to-text, specification v1.
 *
 * A recognizer is either **streaming** (it hears a live stream and reports speech events and
 * transcripts as they come) or **batch** (it transcribes one finished utterance at a time; the session
 * cuts the utterances with its VAD). `kind` tells which, and the compiler then says what to implement.
 *
 * Input audio: the session sends mono 16-bit PCM at one of `inputSampleRates`, resampling and mixing
 * down whatever the user's microphone produced, so a recognizer never converts audio itself.
 */

/** One recognized hypothesis. */
export interface SpeechAlternative {
  /** The words heard; may be empty (silence or noise). */
  text: string;
  /** BCP-47 code of the detected or configured language; the session passes it to the turn detector. */
  language?: string;
  /** 0..1 when the provider reports it; kept on the user's message as `transcriptConfidence`. */
  confidence?: number;
  /** The words of `text` with their times, when the provider reports them. */
  words?: readonly TimedWord[];
}

/** What a live recognition stream reports, in order. */
export type STTEvent =
  /** The recognizer heard speech begin (used when the session has no VAD of its own). */
  | { type: 'start_of_speech' }
  /** A hypothesis that may still change. Enables interruption by words and early turn decisions. */
  | { type: 'interim_transcript'; alternatives: readonly SpeechAlternative[] }
  /**
   * An eager end of turn: the recognizer expects this to be the turn's final text but may still revise
   * it. The session may start its reply speculatively (`turnHandling.preemptiveGeneration`); the turn
   * does not end on it. A final transcript follows, or more interims when the user goes on.
   */
  | { type: 'preflight_transcript'; alternatives: readonly SpeechAlternative[] }
  /** A transcript the provider will not revise. One utterance may produce several. */
  | { type: 'final_transcript'; alternatives: readonly SpeechAlternative[] }
  /** The recognizer heard speech end (turn detection `stt` waits for it). */
  | { type: 'end_of_speech' };

export interface STTStreamOptions extends ProviderCallOptions {
  /** The language the session was configured with, if any. */
  language?: string;
  /** Sample rate of every frame that will be pushed: one of the recognizer's `inputSampleRates`. */
  sampleRate: number;
}

/**
 * A live recognition stream. Iteration yields events and ends after `endInput()` once everything heard
 * was reported, or at once after `close()` or an abort. A fatal provider error ends iteration by
 * throwing a typed `APIError`; the session then opens a new stream (with backoff when `retryable`).
 */
export interface STTStream extends AsyncIterable<STTEvent> {
  /**
   * Mono frames at the stream's `sampleRate`. Never blocks: buffer boundedly, report drops. The frame
   * is the provider's to keep; the session does not write to it after pushing it.
   */
  pushFrame(frame: AudioFrame): void;
  /**
   * The session committed the user's turn: report what was heard so far as final without waiting for
   * the provider's own endpointing. A no-op for providers that cannot.
   */
  flush(): void;
  /**
   * No more audio: report the rest, then end iteration. Bound the wait for the provider's last words
   * (a timeout option of the provider's); a connection the provider closes earlier is an
   * `APIConnectionError`.
   */
  endInput(): void;
  /** Ends the stream at once, without reporting errors that come after, and releases its connection. */
  close(): Promise<void>;
}

interface STTBase {
  readonly specificationVersion: SpecificationVersion;
  /** Names the provider in logs, errors and metrics, e.g. `deepgram/nova-3`. */
  readonly label: string;
  /** Sample rates the recognizer accepts, preferred first. The session resamples to one of them. */
  readonly inputSampleRates: readonly number[];
  /** Releases what the provider holds (pooled connections, workers). */
  close?(): Promise<void>;
}

export interface StreamingSTT extends STTBase {
  readonly kind: 'streaming';
  stream(options: STTStreamOptions): STTStream;
}

export interface BatchSTT extends STTBase {
  readonly kind: 'batch';
  /**
   * Transcribes one finished utterance: mono frames at `options.sampleRate`, in order. Rejects with a
   * typed `APIError`; the session retries retryable ones.
   */
  recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]>;
}

export type STT = StreamingSTT | BatchSTT;
