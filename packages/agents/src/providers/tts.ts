import type { AudioFrame } from '../audio/audio-frame.js';

/** One chunk of synthesized audio. */
export interface SynthesizedAudio {
  frame: AudioFrame;
  /** Identifies the text segment (between flushes) this audio belongs to. */
  segmentId: string;
  /** True on the last chunk of a segment. */
  final: boolean;
  /** Text this chunk speaks, when the provider aligns it; lets transcripts follow the audio. */
  text?: string;
}

export interface TTSCapabilities {
  /** True when the provider accepts text incrementally; false needs a sentence StreamAdapter. */
  streaming: boolean;
  /** True when chunks carry aligned `text`. */
  alignedTranscript?: boolean;
}

export interface TTSStream extends AsyncIterable<SynthesizedAudio> {
  pushText(text: string): void;
  /** Marks the end of a segment: synthesize what was pushed without waiting for more text. */
  flush(): void;
  /** No more text: iteration ends after the last audio. */
  endInput(): void;
  close(): Promise<void>;
}

export interface TTS {
  readonly label: string;
  readonly sampleRate: number;
  readonly numChannels: number;
  readonly capabilities: TTSCapabilities;
  synthesize(text: string, options?: { signal?: AbortSignal }): AsyncIterable<SynthesizedAudio>;
  stream(options?: { signal?: AbortSignal }): TTSStream;
  close?(): Promise<void>;
}
