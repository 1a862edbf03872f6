import type { Clock, RetryPolicy, SentenceTokenizer } from '@voxwire/agents/provider-utils';
import { realClock } from '@voxwire/agents/provider-utils';
import { API_KEY_ENV, CartesiaConfigError } from './errors.js';
import type { CartesiaTTSMetrics } from './metrics.js';
import type { CartesiaEncoding } from './pcm.js';

/**
 * Sonic 3 generation controls, sent as `generation_config` (Cartesia API 2025-04-16 and later).
 * Older models ignore or refuse them: use `experimentalControls` there.
 */
export interface CartesiaGenerationConfig {
  /** Speaking rate, 0.6 to 2.0 (1 is normal). */
  speed?: number;
  /** Loudness, 0.5 to 2.0 (1 is normal). */
  volume?: number;
  /** One emotion name Cartesia documents for the voice, e.g. `"excited"`. */
  emotion?: string;
}

/**
 * The older voice controls (`voice.__experimental_controls`), which only `sonic-2-2025-03-07` with API
 * version `2024-11-13` honours: a speed name or number, and emotions such as `"positivity:high"`.
 */
export interface CartesiaExperimentalControls {
  speed?: 'slowest' | 'slow' | 'normal' | 'fast' | 'fastest' | number;
  emotion?: string[];
}

export interface CartesiaTTSOptions {
  /** Default: the `CARTESIA_API_KEY` environment variable. */
  apiKey?: string;
  /** Default `https://api.cartesia.ai`. The WebSocket URL is derived from it (`http` → `ws`, `https` → `wss`). */
  baseURL?: string;
  /** The `Cartesia-Version` header. Default `2025-04-16`. */
  apiVersion?: string;
  /** Default `sonic-3`. */
  model?: string;
  /** A voice id, or a voice embedding (an array of numbers). Default: a stock English voice. */
  voice?: string | readonly number[];
  /** Language code sent with every request. Default `en`. */
  language?: string;
  /** Output sample rate in Hz. Default 24_000. */
  sampleRate?: number;
  /** What Cartesia sends; `pcm_f32le` is converted to 16-bit here. Default `pcm_s16le`. */
  encoding?: CartesiaEncoding;
  generationConfig?: CartesiaGenerationConfig;
  experimentalControls?: CartesiaExperimentalControls;
  /** Ask for word timestamps on the WebSocket (`add_timestamps`). Default true. */
  wordTimestamps?: boolean;
  /**
   * `max_buffer_delay_ms`: how long Cartesia waits for more text before speaking what it has. Default:
   * not sent (the server's default). The plugin flushes at every sentence end anyway.
   */
  maxBufferDelayMs?: number;
  /**
   * Text that comes this long after a speech's context last sent audio (the LLM paused) goes on in a
   * new context of the same speech: Cartesia expires a context one second after its last audio, and
   * the network delays both ways eat into that second. Default 600 ms.
   */
  contextIdleLimitMs?: number;
  /** Where sentence ends (the flush points) are found. Default: the core's `SentenceTokenizer`. */
  tokenizer?: SentenceTokenizer;
  /** Length of the audio frames yielded. Default 20 ms. */
  frameSizeMs?: number;
  /** Longest WebSocket handshake. Default 10_000 ms. */
  connectTimeoutMs?: number;
  /**
   * A speech fails with `APITimeoutError` when Cartesia owes it audio (after a flush or the end of its
   * text) and sends nothing for it this long; also the gap allowed between chunks of `synthesize()`.
   * Default 10_000 ms.
   */
  idleTimeoutMs?: number;
  /** `synthesize()`: longest wait for the response to start. Default 10_000 ms. */
  requestTimeoutMs?: number;
  /**
   * Audio of one speech received but not yet read by the session. Cartesia speaks faster than real
   * time and the shared socket cannot be slowed for one speech, so beyond this the speech fails rather
   * than holding memory without bound. Default 300_000 ms (five minutes of audio).
   */
  maxBufferedAudioMs?: number;
  /**
   * Retries before the first audio of a speech (a dropped socket, a 429/5xx) and of `synthesize()`.
   * The core's `RetryPolicy`; default 3 retries from 100 ms, at most 2 s each.
   */
  retry?: Partial<RetryPolicy>;
  /** Timers (connect, idle, retry backoff) run on it. Default: the real clock. */
  clock?: Clock;
  /** Told once per speech and per `synthesize()` call, when it ends. */
  onMetrics?: (metrics: CartesiaTTSMetrics) => void;
}

export const DEFAULT_BASE_URL = 'https://api.cartesia.ai';
export const DEFAULT_API_VERSION = '2025-04-16';
export const DEFAULT_MODEL = 'sonic-3';
/** A stock Cartesia voice that works for English with every model. */
export const DEFAULT_VOICE = 'f786b574-daa5-4673-aa0c-cbe3e8534c02';

export interface ResolvedOptions {
  apiKey: string;
  baseURL: string;
  webSocketURL: string;
  apiVersion: string;
  model: string;
  voice: string | readonly number[];
  language: string;
  sampleRate: number;
  encoding: CartesiaEncoding;
  generationConfig: CartesiaGenerationConfig | undefined;
  experimentalControls: CartesiaExperimentalControls | undefined;
  wordTimestamps: boolean;
  maxBufferDelayMs: number | undefined;
  contextIdleLimitMs: number;
  tokenizer: SentenceTokenizer | undefined;
  frameSizeMs: number;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  requestTimeoutMs: number;
  maxBufferedAudioMs: number;
  retry: Partial<RetryPolicy>;
  clock: Clock;
  onMetrics: ((metrics: CartesiaTTSMetrics) => void) | undefined;
}

export function resolveOptions(
  options: CartesiaTTSOptions,
  env: Record<string, string | undefined>,
): ResolvedOptions {
  const apiKey = (options.apiKey ?? env[API_KEY_ENV] ?? '').trim();
  if (apiKey === '') {
    throw new CartesiaConfigError(
      `Cartesia TTS needs an API key: set ${API_KEY_ENV} or pass the apiKey option`,
    );
  }
  const baseURL = (options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(baseURL)) {
    throw new CartesiaConfigError(`baseURL must start with http:// or https://, got "${baseURL}"`);
  }
  const encoding = options.encoding ?? 'pcm_s16le';
  if (encoding !== 'pcm_s16le' && encoding !== 'pcm_f32le') {
    throw new CartesiaConfigError(`encoding must be pcm_s16le or pcm_f32le, got "${String(encoding)}"`);
  }
  const resolved: ResolvedOptions = {
    apiKey,
    baseURL,
    webSocketURL: `${baseURL.replace(/^http/, 'ws')}/tts/websocket`,
    apiVersion: options.apiVersion ?? DEFAULT_API_VERSION,
    model: options.model ?? DEFAULT_MODEL,
    voice: options.voice ?? DEFAULT_VOICE,
    language: options.language ?? 'en',
    sampleRate: options.sampleRate ?? 24_000,
    encoding,
    generationConfig: options.generationConfig,
    experimentalControls: options.experimentalControls,
    wordTimestamps: options.wordTimestamps ?? true,
    maxBufferDelayMs: options.maxBufferDelayMs,
    contextIdleLimitMs: options.contextIdleLimitMs ?? 600,
    tokenizer: options.tokenizer,
    frameSizeMs: options.frameSizeMs ?? 20,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    maxBufferedAudioMs: options.maxBufferedAudioMs ?? 300_000,
    retry: options.retry ?? {},
    clock: options.clock ?? realClock(),
    onMetrics: options.onMetrics,
  };
  if (!Number.isInteger(resolved.sampleRate) || resolved.sampleRate <= 0) {
    throw new CartesiaConfigError(`sampleRate must be a positive integer, got ${resolved.sampleRate}`);
  }
  for (const name of [
    'frameSizeMs',
    'connectTimeoutMs',
    'idleTimeoutMs',
    'requestTimeoutMs',
    'maxBufferedAudioMs',
    'contextIdleLimitMs',
  ] as const) {
    if (!(resolved[name] > 0)) {
      throw new CartesiaConfigError(`${name} must be a positive number of ms, got ${resolved[name]}`);
    }
  }
  if (typeof resolved.voice !== 'string' && resolved.voice.length === 0) {
    throw new CartesiaConfigError('voice must be a voice id or a non-empty embedding');
  }
  return resolved;
}
