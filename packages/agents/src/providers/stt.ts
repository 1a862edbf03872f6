import type { AudioFrame } from '../audio/audio-frame.js';

export interface TimedWord {
  text: string;
  startTimeMs: number;
  endTimeMs: number;
  confidence?: number;
}

export interface SpeechAlternative {
  text: string;
  language?: string;
  /** 0..1 when the provider reports it. */
  confidence?: number;
  /** Position in the stream's audio, in ms. */
  startTimeMs?: number;
  endTimeMs?: number;
  words?: TimedWord[];
}

/** What a speech-to-text stream reports, in order. */
export type STTEvent =
  | { type: 'start_of_speech' }
  | { type: 'interim_transcript'; alternatives: SpeechAlternative[] }
  /** A transcript the provider will not revise; one utterance may produce several. */
  | { type: 'final_transcript'; alternatives: SpeechAlternative[] }
  | { type: 'end_of_speech' }
  | { type: 'recognition_usage'; audioDurationMs: number };

export interface STTCapabilities {
  /** True when the provider recognizes a live stream itself; false needs a VAD (StreamAdapter). */
  streaming: boolean;
  interimResults: boolean;
  /** True when the provider emits its own start/end of speech events. */
  speechEvents?: boolean;
}

export interface STTStreamOptions {
  language?: string;
  signal?: AbortSignal;
}

/**
 * A live recognition stream. Iterating yields events; a fatal provider error ends iteration by throwing
 * an `APIError` (the session restarts the stream and reports the error).
 */
export interface STTStream extends AsyncIterable<STTEvent> {
  pushFrame(frame: AudioFrame): void;
  /** Asks the provider to finalize what it has heard so far. */
  flush(): void;
  endInput(): void;
  close(): Promise<void>;
}

export interface STT {
  readonly label: string;
  readonly capabilities: STTCapabilities;
  stream(options?: STTStreamOptions): STTStream;
  /** One-shot recognition of a finished utterance. Required when `capabilities.streaming` is false. */
  recognize?(
    frames: AudioFrame[],
    options?: STTStreamOptions,
  ): Promise<{ type: 'final_transcript'; alternatives: SpeechAlternative[] }>;
  close?(): Promise<void>;
}
