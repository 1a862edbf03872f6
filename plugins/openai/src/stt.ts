import {
  type AudioFrame,
  type SpeechAlternative,
  type STTCapabilities,
  type STT as STTContract,
  type STTStream,
  type STTStreamOptions,
  STTStreamAdapter,
  type VAD,
  abortReason,
} from '@voxwire/agents';
import { toFile } from 'openai';
import { encodeWav } from './audio/wav.js';
import { type OpenAIClientOptions, OpenAIConfigError, type ResolvedClient, resolveClient } from './client.js';
import { requestWithRetry } from './request.js';

export interface STTOptions extends OpenAIClientOptions {
  /** Default `gpt-4o-mini-transcribe`; `whisper-1` or the model name of a local server also work. */
  model?: string;
  /** ISO-639-1 code (e.g. `en`). Improves accuracy and latency when known. */
  language?: string;
  /** Context for the recognizer: vocabulary, names, the previous sentence. */
  prompt?: string;
  /**
   * A VAD that lets `stream()` work: utterances are cut by the VAD and recognized one by one through the
   * core's STTStreamAdapter.
   */
  vad?: VAD;
}

type FinalTranscript = { type: 'final_transcript'; alternatives: SpeechAlternative[] };

const DEFAULT_STT_TIMEOUT_MS = 30_000;

/**
 * Speech-to-text over the transcriptions endpoint. It recognizes finished utterances only
 * (`capabilities.streaming` is false): a session pairs it with a VAD through the core's STTStreamAdapter.
 * `timeoutMs` bounds the whole request here, since the answer is not streamed. Retries are off by
 * default because the adapter already retries a failed `recognize()`; set `retry` to retry here too.
 */
export class STT implements STTContract {
  readonly label = 'openai.STT';
  readonly model: string;
  readonly capabilities: STTCapabilities = { streaming: false, interimResults: false };
  private readonly resolved: ResolvedClient;
  private readonly options: STTOptions;
  private adapter: STTStreamAdapter | undefined;

  constructor(options: STTOptions = {}) {
    this.options = options;
    this.model = options.model ?? 'gpt-4o-mini-transcribe';
    this.resolved = resolveClient(options, {
      timeoutMs: DEFAULT_STT_TIMEOUT_MS,
      retry: { maxRetries: 0 },
    });
  }

  async recognize(frames: AudioFrame[], options: STTStreamOptions = {}): Promise<FinalTranscript> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    const language = options.language ?? this.options.language;
    const durationMs = frames.reduce((total, frame) => total + frame.durationMs, 0);
    if (durationMs === 0) return { type: 'final_transcript', alternatives: [{ text: '' }] };
    const wav = encodeWav(frames);
    const { client } = this.resolved;
    const what = `${this.label}(${this.model})`;
    const text = await requestWithRetry(this.resolved, what, signal, async (requestSignal) => {
      const result = await client.audio.transcriptions.create(
        {
          file: await toFile(wav, 'audio.wav', { type: 'audio/wav' }),
          model: this.model,
          response_format: 'json',
          ...(language ? { language } : {}),
          ...(this.options.prompt ? { prompt: this.options.prompt } : {}),
        },
        { signal: requestSignal },
      );
      return typeof result.text === 'string' ? result.text : '';
    });
    return {
      type: 'final_transcript',
      alternatives: [{ text: text.trim(), ...(language ? { language } : {}) }],
    };
  }

  /** A live stream through the core's STTStreamAdapter and the `vad` option. */
  stream(options?: STTStreamOptions): STTStream {
    if (!this.options.vad) {
      throw new OpenAIConfigError(
        `${this.label} recognizes finished utterances only (capabilities.streaming is false). ` +
          `Pass a VAD as new STT({ vad }) or wrap it yourself: new STTStreamAdapter(stt, vad).`,
      );
    }
    // Retries stay with the adapter, which already retries a failed recognize().
    this.adapter ??= new STTStreamAdapter(this, this.options.vad, { clock: this.resolved.clock });
    return this.adapter.stream(options);
  }
}
