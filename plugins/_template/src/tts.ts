import { APIError } from '@voxwire/agents';
import {
  type BatchTTS,
  FrameChunker,
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
  type SynthesizedAudio,
} from '@voxwire/agents/provider-utils';
import { type EchoHttpOptions, postJson, readBody } from './http.js';

export type EchoTTSOptions = EchoHttpOptions;

/**
 * Batch text-to-speech (spec: `providers/tts.ts`) for the imaginary Echo Speech API:
 * `POST /v1/speak {text}` answers with raw little-endian PCM16, mono, 24 kHz (`audio/pcm`).
 * The session calls `synthesize` once per sentence; the audio is yielded in 20 ms frames as it arrives.
 */
export class EchoTTS implements BatchTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'echo-speech/tts';
  readonly sampleRate = 24_000;
  readonly numChannels = 1;

  constructor(private readonly options: EchoTTSOptions = {}) {}

  async *synthesize(text: string, options: ProviderCallOptions = {}): AsyncIterable<SynthesizedAudio> {
    const { signal } = options;
    const response = await postJson(this.label, '/v1/speak', { text }, this.options, signal);
    if (!response) return; // aborted: end quietly
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('audio/pcm')) {
      await response.body?.cancel();
      throw new APIError(`${this.label}: expected audio/pcm, got "${type}"`, { retryable: false });
    }
    // The body arrives in chunks split at any byte, even inside a sample: the chunker holds the rest.
    const chunker = new FrameChunker({ sampleRate: this.sampleRate, durationMs: 20 });
    for await (const bytes of readBody(this.label, response, signal)) {
      for (const frame of chunker.pushBytes(bytes)) {
        if (signal?.aborted) return;
        yield { frame };
      }
    }
    if (signal?.aborted) return;
    for (const frame of chunker.flush()) yield { frame };
  }
}
