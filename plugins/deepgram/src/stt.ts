import {
  type AudioFrame,
  type Clock,
  realClock,
  resolveRetryPolicy,
  SPECIFICATION_VERSION,
  type STTStream,
  type STTStreamOptions,
  type StreamingSTT,
} from '@voxwire/agents/provider-utils';
import { DeepgramLiveStream } from './live-stream.js';
import {
  DEFAULT_BASE_URL,
  DEFAULT_RETRY,
  type DeepgramSTTOptions,
  liveQuery,
  type ResolvedLiveOptions,
  resolveLiveOptions,
  toWebSocketBase,
} from './options.js';
import { recognizeOverRest } from './rest.js';
import { resolveApiKey, SecretScrubber } from './secrets.js';
import type { DeepgramSpeechAlternative } from './transcript.js';

const KEEP_ALIVE = JSON.stringify({ type: 'KeepAlive' });
const FINALIZE = JSON.stringify({ type: 'Finalize' });

/**
 * Deepgram live speech-to-text (`/v1/listen`, Nova models), a streaming recognizer (spec:
 * `providers/stt.ts`): `flush()` sends `Finalize` so the turn's last words come at once,
 * `endInput()` sends `CloseStream`, and a `KeepAlive` goes out while no audio flows. A dropped
 * connection is re-opened with backoff (reported as `reconnecting`) and the audio Deepgram had not
 * finalized is sent again, so no words are lost and none are reported twice. `recognize()`
 * transcribes a finished utterance over the REST endpoint.
 */
export class DeepgramSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label: string;
  readonly inputSampleRates: readonly number[];
  private readonly options: DeepgramSTTOptions;
  private readonly resolved: ResolvedLiveOptions;
  private readonly apiKey: string;
  private readonly scrubber: SecretScrubber;
  private readonly clock: Clock;

  constructor(options: DeepgramSTTOptions = {}) {
    this.options = options;
    this.resolved = resolveLiveOptions(options);
    this.label = `deepgram/${this.resolved.model}`;
    this.inputSampleRates = [this.resolved.sampleRate];
    this.apiKey = resolveApiKey(options.apiKey, this.label);
    this.scrubber = new SecretScrubber(this.apiKey);
    this.clock = options.clock ?? realClock();
    // Fail at construction on a bad policy, not on the first turn.
    resolveRetryPolicy(options.retry, DEFAULT_RETRY);
  }

  stream(options: STTStreamOptions): STTStream {
    const language = options.language ?? this.resolved.language;
    const url = new URL('/v1/listen', toWebSocketBase(this.options.baseUrl ?? DEFAULT_BASE_URL));
    url.search = liveQuery(this.resolved, language, options.sampleRate).toString();
    return new DeepgramLiveStream(
      {
        label: this.label,
        clock: this.clock,
        apiKey: this.apiKey,
        scrubber: this.scrubber,
        url,
        sampleRate: options.sampleRate,
        retry: { ...DEFAULT_RETRY, ...this.options.retry },
        connectTimeoutMs: this.resolved.connectTimeoutMs,
        endInputTimeoutMs: this.resolved.endInputTimeoutMs,
        replayCapacityMs: this.resolved.replayCapacityMs,
        keepAlive: { message: KEEP_ALIVE, intervalMs: this.resolved.keepAliveIntervalMs },
        flushMessage: FINALIZE,
        signal: options.signal,
        onProblem: options.onProblem,
        onMetrics: this.options.onMetrics,
      },
      language,
    );
  }

  /**
   * Transcribes one finished utterance (mono frames at `options.sampleRate`) with `POST /v1/listen`.
   * Rejects with a typed `APIError` (401/403 not retryable), or with the signal's reason on abort.
   */
  recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<DeepgramSpeechAlternative[]> {
    const language = options.language ?? this.resolved.language;
    const query = new URLSearchParams({
      model: this.resolved.model,
      punctuate: String(this.resolved.punctuate),
      smart_format: String(this.resolved.smartFormat),
    });
    if (language) query.set('language', language);
    for (const term of this.resolved.keyterms) query.append('keyterm', term);
    for (const [name, value] of Object.entries(this.resolved.extraQueryParams))
      query.set(name, String(value));
    return recognizeOverRest(frames, options.sampleRate, {
      label: this.label,
      baseUrl: this.options.baseUrl ?? DEFAULT_BASE_URL,
      apiKey: this.apiKey,
      scrubber: this.scrubber,
      clock: this.clock,
      retry: { ...DEFAULT_RETRY, ...this.options.retry },
      timeoutMs: this.resolved.requestTimeoutMs,
      query,
      language,
      signal: options.signal,
      onProblem: options.onProblem,
      onMetrics: this.options.onMetrics,
    });
  }
}
