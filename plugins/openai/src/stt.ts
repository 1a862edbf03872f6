import { type AudioFrame, InvalidAudioError } from '@voxwire/agents';
import {
  type BatchSTT,
  SPECIFICATION_VERSION,
  type STTStreamOptions,
  type SpeechAlternative,
  abortReason,
  encodeWav,
} from '@voxwire/agents/provider-utils';
import { toFile } from 'openai';
import { type OpenAIClientOptions, type ResolvedClient, resolveClient } from './client.js';
import { requestWithRetry } from './request.js';

export interface STTOptions extends OpenAIClientOptions {
  /** Default `gpt-4o-mini-transcribe`; `whisper-1` or the model name of a local server also work. */
  model?: string;
  /** ISO-639-1 code (e.g. `en`). Improves accuracy and latency when known. */
  language?: string;
  /** Context for the recognizer: vocabulary, names, the previous sentence. */
  prompt?: string;
}

/**
 * The rate utterances are uploaded at. The transcription models work on 16 kHz speech, so a higher rate
 * only makes the upload bigger (three times for a browser's 48 kHz) and the answer slower.
 */
export const STT_SAMPLE_RATE = 16_000;

const DEFAULT_STT_TIMEOUT_MS = 30_000;

/**
 * Speech-to-text over the transcriptions endpoint: a batch recognizer (`kind: 'batch'`), which
 * transcribes one finished utterance per request. The session cuts the utterances with its VAD and
 * resamples them to 16 kHz mono (`inputSampleRates`). `timeoutMs` bounds the whole request here, since
 * the answer is not streamed. Retries are off by default because the session already retries a failed
 * `recognize()`; set `retry` to retry here too.
 */
export class STT implements BatchSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'openai.STT';
  readonly inputSampleRates: readonly number[] = [STT_SAMPLE_RATE];
  readonly model: string;
  private readonly resolved: ResolvedClient;
  private readonly options: STTOptions;

  constructor(options: STTOptions = {}) {
    this.options = options;
    this.model = options.model ?? 'gpt-4o-mini-transcribe';
    this.resolved = resolveClient(options, {
      timeoutMs: DEFAULT_STT_TIMEOUT_MS,
      retry: { maxRetries: 0 },
    });
  }

  /**
   * Uploads the utterance as a WAV file at `options.sampleRate` and returns one alternative. Rejects
   * with a typed `APIError`, or with the signal's reason when aborted.
   */
  async recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]> {
    const { signal, onProblem, sampleRate } = options;
    if (signal?.aborted) throw abortReason(signal);
    for (const frame of frames) {
      if (frame.sampleRate !== sampleRate) {
        throw new InvalidAudioError(
          `${this.label}: frames must be at the stream's ${sampleRate} Hz, got one at ${frame.sampleRate} Hz`,
        );
      }
    }
    const language = options.language ?? this.options.language;
    const durationMs = frames.reduce((total, frame) => total + frame.durationMs, 0);
    if (durationMs === 0) return [{ text: '' }];
    const wav = encodeWav(frames);
    const { client } = this.resolved;
    const what = `${this.label}(${this.model})`;
    const text = await requestWithRetry(this.resolved, what, { signal, onProblem }, async (requestSignal) => {
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
    return [{ text: text.trim(), ...(language ? { language } : {}) }];
  }
}
