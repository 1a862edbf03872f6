import {
  type Clock,
  realClock,
  resolveRetryPolicy,
  SPECIFICATION_VERSION,
  type STTStream,
  type STTStreamOptions,
  type StreamingSTT,
} from '@voxwire/agents/provider-utils';
import { DeepgramFluxStream } from './flux-stream.js';
import {
  DEFAULT_BASE_URL,
  DEFAULT_RETRY,
  type DeepgramConnectionOptions,
  requireMs,
  toWebSocketBase,
} from './options.js';
import { resolveApiKey, SecretScrubber } from './secrets.js';

/** Options of the Flux recognizer (`/v2/listen`). Durations in ms. */
export interface DeepgramFluxSTTOptions extends DeepgramConnectionOptions {
  /** Default `flux-general-en`. */
  model?: string;
  /** Confidence at which Flux ends the turn (`eot_threshold`, 0.5–0.9). Default: Flux's (0.7). */
  eotThreshold?: number;
  /**
   * Confidence for an early `EagerEndOfTurn` (`eager_eot_threshold`, 0.3–0.9). Off by default; the
   * core has no eager end-of-turn signal yet, so it only arrives as an interim transcript.
   */
  eagerEotThreshold?: number;
  /** Silence after which the turn ends whatever the confidence (`eot_timeout_ms`). Default: Flux's (5000). */
  eotTimeoutMs?: number;
  /** Words and phrases to favour (`keyterm`). */
  keyterms?: readonly string[];
  /** Default 16000; the session resamples to it. */
  sampleRate?: number;
  /** Any other query parameter of `/v2/listen`, sent as given. */
  extraQueryParams?: Readonly<Record<string, string | number | boolean>>;
  /** Default 10_000. */
  connectTimeoutMs?: number;
  /** Default 10_000. */
  endInputTimeoutMs?: number;
  /** Default 10_000. */
  replayCapacityMs?: number;
}

const FORCE_END_TURN = JSON.stringify({ type: 'ForceEndTurn' });

/**
 * Deepgram Flux, a streaming recognizer with its own end-of-turn model: use it with
 * `turnDetection: 'stt'`, so the session commits the user's turn on Flux's `EndOfTurn`. Reconnects
 * and replays like `DeepgramSTT`.
 */
export class DeepgramFluxSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly inputSampleRates: readonly number[];
  private readonly options: DeepgramFluxSTTOptions;
  private readonly apiKey: string;
  private readonly scrubber: SecretScrubber;
  private readonly clock: Clock;

  constructor(options: DeepgramFluxSTTOptions = {}) {
    this.options = options;
    const model = options.model ?? 'flux-general-en';
    this.label = `deepgram/${model}`;
    const sampleRate = options.sampleRate ?? 16_000;
    if (!Number.isInteger(sampleRate) || sampleRate < 8_000) {
      throw new RangeError(`sampleRate must be an integer of at least 8000 Hz, got ${sampleRate}`);
    }
    this.inputSampleRates = [sampleRate];
    for (const name of ['connectTimeoutMs', 'endInputTimeoutMs'] as const) {
      if (options[name] !== undefined) requireMs(name, options[name], 1);
    }
    if (options.replayCapacityMs !== undefined) requireMs('replayCapacityMs', options.replayCapacityMs, 0);
    if (options.eotTimeoutMs !== undefined) requireMs('eotTimeoutMs', options.eotTimeoutMs, 1);
    for (const name of ['eotThreshold', 'eagerEotThreshold'] as const) {
      const value = options[name];
      if (value !== undefined && !(value > 0 && value <= 1))
        throw new RangeError(`${name} must be in (0, 1], got ${value}`);
    }
    this.apiKey = resolveApiKey(options.apiKey, this.label);
    this.scrubber = new SecretScrubber(this.apiKey);
    this.clock = options.clock ?? realClock();
    resolveRetryPolicy(options.retry, DEFAULT_RETRY);
  }

  stream(options: STTStreamOptions): STTStream {
    const o = this.options;
    const url = new URL('/v2/listen', toWebSocketBase(o.baseUrl ?? DEFAULT_BASE_URL));
    const query = new URLSearchParams({
      model: o.model ?? 'flux-general-en',
      encoding: 'linear16',
      sample_rate: String(options.sampleRate),
    });
    if (o.eotThreshold !== undefined) query.set('eot_threshold', String(o.eotThreshold));
    if (o.eagerEotThreshold !== undefined) query.set('eager_eot_threshold', String(o.eagerEotThreshold));
    if (o.eotTimeoutMs !== undefined) query.set('eot_timeout_ms', String(o.eotTimeoutMs));
    for (const term of o.keyterms ?? []) query.append('keyterm', term);
    for (const [name, value] of Object.entries(o.extraQueryParams ?? {})) query.set(name, String(value));
    url.search = query.toString();
    return new DeepgramFluxStream(
      {
        label: this.label,
        clock: this.clock,
        apiKey: this.apiKey,
        scrubber: this.scrubber,
        url,
        sampleRate: options.sampleRate,
        retry: { ...DEFAULT_RETRY, ...o.retry },
        connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
        endInputTimeoutMs: o.endInputTimeoutMs ?? 10_000,
        replayCapacityMs: o.replayCapacityMs ?? 10_000,
        // Flux documents no keep-alive message; a session sends audio (or silence) continuously.
        keepAlive: undefined,
        flushMessage: FORCE_END_TURN,
        signal: options.signal,
        onProblem: options.onProblem,
        onMetrics: o.onMetrics,
      },
      options.language,
    );
  }
}
