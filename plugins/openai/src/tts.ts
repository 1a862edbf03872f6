import { type AudioFrame, VoxwireError } from '@voxwire/agents';
import {
  type BatchTTS,
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
  FrameChunker,
  type SynthesizedAudio,
} from '@voxwire/agents/provider-utils';
import { type OpenAIClientOptions, type ResolvedClient, resolveClient } from './client.js';
import { readBody, retryStream, streamAttempt } from './request.js';

export interface TTSOptions extends OpenAIClientOptions {
  /** Default `gpt-4o-mini-tts`. */
  model?: string;
  /** Default `alloy`. */
  voice?: string;
  /** 0.25 to 4. */
  speed?: number;
  /** Tone and style instructions (gpt-4o-mini-tts and later). */
  instructions?: string;
  /** Length of the emitted frames in ms (the last one of a text may be shorter). Default 20. */
  frameSizeMs?: number;
}

/** The speech endpoint's `pcm` format: 24 kHz, 16-bit little-endian, mono. */
const SAMPLE_RATE = 24_000;
const CHANNELS = 1;
const DEFAULT_TTS_TIMEOUT_MS = 10_000;

/**
 * Text-to-speech over the speech endpoint: a batch synthesizer (`kind: 'batch'`), since the endpoint
 * takes whole texts. The session cuts a reply into sentences and synthesizes them one by one (the core's
 * `TTSStreamAdapter`). Each text's audio is streamed: frames are emitted as the bytes arrive.
 */
export class TTS implements BatchTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'openai.TTS';
  readonly sampleRate = SAMPLE_RATE;
  readonly numChannels = CHANNELS;
  readonly model: string;
  readonly voice: string;
  private readonly resolved: ResolvedClient;
  private readonly options: TTSOptions;
  private readonly frameSizeMs: number;

  constructor(options: TTSOptions = {}) {
    this.options = options;
    this.model = options.model ?? 'gpt-4o-mini-tts';
    this.voice = options.voice ?? 'alloy';
    this.frameSizeMs = options.frameSizeMs ?? 20;
    if (!(this.frameSizeMs > 0))
      throw new RangeError(`frameSizeMs must be positive, got ${this.frameSizeMs}`);
    this.resolved = resolveClient(options, { timeoutMs: DEFAULT_TTS_TIMEOUT_MS });
  }

  /**
   * Audio of one text. Retries happen only before the first frame is yielded, each reported to
   * `onProblem`; an abort ends the iteration quietly and closes the HTTP stream.
   */
  synthesize(text: string, options: ProviderCallOptions = {}): AsyncIterable<SynthesizedAudio> {
    return this.run(text, options);
  }

  private async *run(
    text: string,
    { signal, onProblem }: ProviderCallOptions,
  ): AsyncGenerator<SynthesizedAudio, void, undefined> {
    if (text.trim() === '' || signal?.aborted) return;
    const frames = retryStream(
      this.resolved,
      { signal, ...(onProblem ? { onProblem } : {}) },
      (attemptSignal) => this.attempt(text, attemptSignal),
    );
    for await (const frame of frames) {
      // One network chunk yields several frames; none may follow an abort.
      if (signal?.aborted) return;
      yield { frame };
    }
  }

  private async *attempt(text: string, signal: AbortSignal): AsyncGenerator<AudioFrame, void, undefined> {
    const { client } = this.resolved;
    const what = `${this.label}(${this.model})`;
    const framer = new FrameChunker({
      sampleRate: SAMPLE_RATE,
      channels: CHANNELS,
      // Rounded, as frameSizeMs need not be a whole number of samples at 24 kHz.
      samplesPerChannel: Math.max(1, Math.round((SAMPLE_RATE * this.frameSizeMs) / 1000)),
    });
    const chunks = streamAttempt(this.resolved, what, signal, async (requestSignal) => {
      const response = await client.audio.speech.create(
        {
          model: this.model,
          voice: this.voice,
          input: text,
          response_format: 'pcm',
          ...(this.options.speed !== undefined ? { speed: this.options.speed } : {}),
          ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
        },
        { signal: requestSignal },
      );
      if (!response.body) throw new VoxwireError(`${what}: the response has no body`);
      return readBody(response.body);
    });
    for await (const chunk of chunks) yield* framer.pushBytes(chunk);
    if (signal.aborted) return;
    yield* framer.flush();
  }
}
