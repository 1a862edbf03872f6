import type { Clock, RetryPolicy } from '@voxwire/agents/provider-utils';
import type { DeepgramMetricsListener } from './metrics.js';

/** The environment variable the API key is read from when no `apiKey` option is given. */
export const API_KEY_ENV = 'DEEPGRAM_API_KEY';
export const DEFAULT_BASE_URL = 'https://api.deepgram.com';

/** What every Deepgram recognizer here takes: where, who, and how to behave under failure. */
export interface DeepgramConnectionOptions {
  /** Default `process.env.DEEPGRAM_API_KEY`. Sent as `Authorization: Token <key>`, never in a URL. */
  apiKey?: string;
  /** `https://…` or `http://…`; live streams use the same host over `wss:` / `ws:`. */
  baseUrl?: string;
  /** Timers (keep-alive, timeouts, backoff) run on it. Default: the real clock. */
  clock?: Clock;
  /**
   * Backoff for connecting and reconnecting; `maxRetries` is how many attempts one outage gets.
   * Default `{ maxRetries: 5 }`, the rest from the core's `DEFAULT_RETRY_POLICY`.
   */
  retry?: Partial<RetryPolicy>;
  /** Measured per final transcript, per stream and per `recognize()` call. */
  onMetrics?: DeepgramMetricsListener;
}

/** Options of the live (`/v1/listen`) recognizer. Durations in ms. */
export interface DeepgramSTTOptions extends DeepgramConnectionOptions {
  /** Default `nova-3`. */
  model?: string;
  /** BCP-47, e.g. `en-US`, or `multi`. The session's language, when it has one, wins. Default: Deepgram's. */
  language?: string;
  /** Hypotheses while the user speaks (`interim_results`). Default true. */
  interimResults?: boolean;
  /** Default true. */
  punctuate?: boolean;
  /** Numbers, dates, currency as written (`smart_format`). Default false. */
  smartFormat?: boolean;
  /** Silence that ends an utterance (`endpointing`); `false` turns Deepgram's endpointing off. Default 25. */
  endpointingMs?: number | false;
  /**
   * Gap between words that sends `UtteranceEnd` (`utterance_end_ms`, at least 1000, needs
   * `interimResults`): an end of speech that noise cannot hold open. Default: off.
   */
  utteranceEndMs?: number;
  /** `SpeechStarted` messages, reported as `start_of_speech` (`vad_events`). Default true. */
  vadEvents?: boolean;
  /** Words and phrases to favour (`keyterm`, Nova-3). Default none. */
  keyterms?: readonly string[];
  /** The rate audio is sent at; the session resamples to it (`inputSampleRates`). Default 16000. */
  sampleRate?: number;
  /** Any other query parameter of `/v1/listen` (`diarize`, `numerals`, `redact`…), sent as given. */
  extraQueryParams?: Readonly<Record<string, string | number | boolean>>;
  /** A `KeepAlive` goes out when no audio was sent for this long. Default 3000 (Deepgram closes after 10 s). */
  keepAliveIntervalMs?: number;
  /** Each connection attempt must open within this. Default 10_000. */
  connectTimeoutMs?: number;
  /** After `endInput()`, the last words and the server's close must arrive within this. Default 10_000. */
  endInputTimeoutMs?: number;
  /**
   * Audio kept until Deepgram finalizes it, to be sent again after a reconnect. Default 10_000; what
   * has to leave the buffer unacknowledged is reported as `audio_dropped`.
   */
  replayCapacityMs?: number;
  /** Timeout of one `recognize()` request. Default 30_000. */
  requestTimeoutMs?: number;
}

export interface ResolvedLiveOptions {
  model: string;
  language: string | undefined;
  interimResults: boolean;
  punctuate: boolean;
  smartFormat: boolean;
  endpointingMs: number | false;
  utteranceEndMs: number | undefined;
  vadEvents: boolean;
  keyterms: readonly string[];
  sampleRate: number;
  extraQueryParams: Readonly<Record<string, string | number | boolean>>;
  keepAliveIntervalMs: number;
  connectTimeoutMs: number;
  endInputTimeoutMs: number;
  replayCapacityMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_RETRY: Partial<RetryPolicy> = { maxRetries: 5 };

export function resolveLiveOptions(options: DeepgramSTTOptions): ResolvedLiveOptions {
  const resolved: ResolvedLiveOptions = {
    model: options.model ?? 'nova-3',
    language: options.language,
    interimResults: options.interimResults ?? true,
    punctuate: options.punctuate ?? true,
    smartFormat: options.smartFormat ?? false,
    endpointingMs: options.endpointingMs ?? 25,
    utteranceEndMs: options.utteranceEndMs,
    vadEvents: options.vadEvents ?? true,
    keyterms: options.keyterms ?? [],
    sampleRate: options.sampleRate ?? 16_000,
    extraQueryParams: options.extraQueryParams ?? {},
    keepAliveIntervalMs: options.keepAliveIntervalMs ?? 3_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    endInputTimeoutMs: options.endInputTimeoutMs ?? 10_000,
    replayCapacityMs: options.replayCapacityMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  };
  if (resolved.endpointingMs !== false) requireMs('endpointingMs', resolved.endpointingMs, 0);
  requireMs('keepAliveIntervalMs', resolved.keepAliveIntervalMs, 1);
  requireMs('connectTimeoutMs', resolved.connectTimeoutMs, 1);
  requireMs('endInputTimeoutMs', resolved.endInputTimeoutMs, 1);
  requireMs('replayCapacityMs', resolved.replayCapacityMs, 0);
  requireMs('requestTimeoutMs', resolved.requestTimeoutMs, 1);
  if (resolved.utteranceEndMs !== undefined) {
    requireMs('utteranceEndMs', resolved.utteranceEndMs, 1_000);
    if (!resolved.interimResults) {
      throw new RangeError(
        'utteranceEndMs needs interimResults: Deepgram sends UtteranceEnd only with interim results',
      );
    }
  }
  if (!Number.isInteger(resolved.sampleRate) || resolved.sampleRate < 8_000) {
    throw new RangeError(`sampleRate must be an integer of at least 8000 Hz, got ${resolved.sampleRate}`);
  }
  return resolved;
}

export function requireMs(name: string, value: number, min: number): void {
  if (!Number.isFinite(value) || value < min) {
    throw new RangeError(`${name} must be a number of ms of at least ${min}, got ${value}`);
  }
}

/** `https://host` → `wss://host`, `http://host` → `ws://host`; `ws(s)` stays. */
export function toWebSocketBase(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):/i, 'ws$1:');
}

/** Query parameters that are the same for every `/v1/listen` request. */
export function liveQuery(
  options: ResolvedLiveOptions,
  language: string | undefined,
  sampleRate: number,
): URLSearchParams {
  const query = new URLSearchParams({
    model: options.model,
    encoding: 'linear16',
    sample_rate: String(sampleRate),
    channels: '1',
    interim_results: String(options.interimResults),
    punctuate: String(options.punctuate),
    smart_format: String(options.smartFormat),
    vad_events: String(options.vadEvents),
    endpointing: String(options.endpointingMs),
  });
  if (language) query.set('language', language);
  if (options.utteranceEndMs !== undefined) query.set('utterance_end_ms', String(options.utteranceEndMs));
  for (const term of options.keyterms) query.append('keyterm', term);
  for (const [name, value] of Object.entries(options.extraQueryParams)) query.set(name, String(value));
  return query;
}
