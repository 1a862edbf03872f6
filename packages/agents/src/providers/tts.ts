import type { AudioFrame } from '../audio/audio-frame.js';
import type { ProviderCallOptions, SpecificationVersion, TimedWord } from './common.js';

/**
 * Text-to-speech, specification v1.
 *
 * A synthesizer is either **streaming** (it takes text incrementally, as the LLM writes it, and
 * answers with audio as soon as it can) or **batch** (it speaks one whole text per call; the session
 * cuts the reply into sentences and calls it once per sentence). `kind` tells which.
 *
 * Output audio: 16-bit PCM frames at `sampleRate` with `numChannels`, any frame length. The session
 * resamples for the audio output; the provider never needs to.
 */

/** One chunk of synthesized audio. */
export interface SynthesizedAudio {
  frame: AudioFrame;
  /**
   * Words whose timing the provider learned since its previous chunk (optional). When a synthesizer
   * reports them, the agent's transcript follows them (each word shows once half of it has played, and
   * an interrupted message keeps exactly those words); without them it follows an estimated speaking
   * rate. Times are of this stream's audio (see `TimedWord`).
   */
  words?: readonly TimedWord[];
}

export interface TTSStream extends AsyncIterable<SynthesizedAudio> {
  /** More text of the same reply. May be called with any fragment: a word, half a word, a sentence. */
  pushText(text: string): void;
  /** Synthesize what was pushed so far without waiting for more text (the LLM paused). */
  flush(): void;
  /** No more text: iteration ends after the last audio. */
  endInput(): void;
  /** Ends at once, drops what was not yet yielded and releases the connection. */
  close(): Promise<void>;
}

interface TTSBase {
  readonly specificationVersion: SpecificationVersion;
  /** Names the provider in logs, errors and metrics, e.g. `cartesia/sonic-2`. */
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels: number;
  /**
   * Speaks one whole text. Iteration throws a typed `APIError` on failure and ends quietly on abort.
   * Retry inside only before the first frame (a retry after audio went out would repeat it); a
   * connection cut mid-audio is an `APIConnectionError`, and the session does not replay that text.
   */
  synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
  close?(): Promise<void>;
}

export interface StreamingTTS extends TTSBase {
  readonly kind: 'streaming';
  stream(options?: ProviderCallOptions): TTSStream;
}

export interface BatchTTS extends TTSBase {
  readonly kind: 'batch';
}

export type TTS = StreamingTTS | BatchTTS;
