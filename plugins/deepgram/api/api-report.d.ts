import { Clock, RetryPolicy, SpeechAlternative, StreamingSTT, STTStreamOptions, STTStream, AudioFrame } from '@voxwire/agents/provider-utils';

/**
 * What the recognizers here measure, on their Clock. The provider specification has no metrics
 * channel for recognizers, so they go to the `onMetrics` option (the session's own `eou` metrics
 * measure the turn as a whole).
 */
type DeepgramMetrics = DeepgramTranscriptMetrics | DeepgramStreamMetrics | DeepgramRecognizeMetrics;
/** One final transcript with words in it. */
interface DeepgramTranscriptMetrics {
    type: 'final_transcript';
    label: string;
    /** The connection's `dg-request-id`, when the server sent one. */
    requestId: string | undefined;
    /**
     * From the moment the audio holding the end of the transcript's last word was pushed to the moment
     * the final arrived: how long the user waited for Deepgram after they stopped speaking. Undefined
     * when that audio is no longer known (it was pushed long ago).
     */
    endOfSpeechToFinalMs: number | undefined;
    /** Answered a `Finalize` (the session committed the turn). */
    fromFinalize: boolean;
    /** Audio Deepgram finalized on this stream so far. */
    audioProcessedMs: number;
}
/** A live stream ended (normally, closed, or failed). */
interface DeepgramStreamMetrics {
    type: 'stream_ended';
    label: string;
    /** Every connection's request id, oldest first. */
    requestIds: string[];
    /** Audio pushed into the stream. */
    audioSentMs: number;
    /** Audio Deepgram finalized (acknowledged); what a bill is based on is Deepgram's own count. */
    audioProcessedMs: number;
    /** Connections opened, 1 without reconnects. */
    connections: number;
    /** Clock time from the stream's creation to its end. */
    durationMs: number;
    /** Set when the stream ended with an error. */
    error: Error | undefined;
}
/** One `recognize()` call. */
interface DeepgramRecognizeMetrics {
    type: 'recognize';
    label: string;
    requestId: string | undefined;
    audioDurationMs: number;
    /** From the call to its answer (retries included). */
    durationMs: number;
    error: Error | undefined;
}
type DeepgramMetricsListener = (metrics: DeepgramMetrics) => void;

/** The environment variable the API key is read from when no `apiKey` option is given. */
declare const API_KEY_ENV = "DEEPGRAM_API_KEY";
declare const DEFAULT_BASE_URL = "https://api.deepgram.com";
/** What every Deepgram recognizer here takes: where, who, and how to behave under failure. */
interface DeepgramConnectionOptions {
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
interface DeepgramSTTOptions extends DeepgramConnectionOptions {
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

/** One recognized word, in ms of the whole stream (reconnects included). */
interface DeepgramWord {
    word: string;
    /** With `punctuate` / `smart_format`: the word as written in the transcript. */
    punctuatedWord: string | undefined;
    startMs: number;
    endMs: number;
    confidence: number | undefined;
    /** With `diarize`. */
    speaker: number | undefined;
}
/**
 * The core's `SpeechAlternative` (whose `words` it always fills), plus what Deepgram adds per word and
 * the transcript's span. The events' type is the core's; narrow to this to read the additions.
 */
interface DeepgramSpeechAlternative extends SpeechAlternative {
    words: DeepgramWord[];
    /** Where the transcribed audio starts and ends, in ms of the stream. */
    startMs: number;
    endMs: number;
}

/**
 * Deepgram live speech-to-text (`/v1/listen`, Nova models), a streaming recognizer (spec:
 * `providers/stt.ts`): `flush()` sends `Finalize` so the turn's last words come at once,
 * `endInput()` sends `CloseStream`, and a `KeepAlive` goes out while no audio flows. A dropped
 * connection is re-opened with backoff (reported as `reconnecting`) and the audio Deepgram had not
 * finalized is sent again, so no words are lost and none are reported twice. `recognize()`
 * transcribes a finished utterance over the REST endpoint.
 */
declare class DeepgramSTT implements StreamingSTT {
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly inputSampleRates: readonly number[];
    private readonly options;
    private readonly resolved;
    private readonly apiKey;
    private readonly scrubber;
    private readonly clock;
    constructor(options?: DeepgramSTTOptions);
    stream(options: STTStreamOptions): STTStream;
    /**
     * Transcribes one finished utterance (mono frames at `options.sampleRate`) with `POST /v1/listen`.
     * Rejects with a typed `APIError` (401/403 not retryable), or with the signal's reason on abort.
     */
    recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<DeepgramSpeechAlternative[]>;
}

/** Options of the Flux recognizer (`/v2/listen`). Durations in ms. */
interface DeepgramFluxSTTOptions extends DeepgramConnectionOptions {
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
/**
 * Deepgram Flux, a streaming recognizer with its own end-of-turn model: use it with
 * `turnDetection: 'stt'`, so the session commits the user's turn on Flux's `EndOfTurn`. Reconnects
 * and replays like `DeepgramSTT`.
 */
declare class DeepgramFluxSTT implements StreamingSTT {
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly inputSampleRates: readonly number[];
    private readonly options;
    private readonly apiKey;
    private readonly scrubber;
    private readonly clock;
    constructor(options?: DeepgramFluxSTTOptions);
    stream(options: STTStreamOptions): STTStream;
}

export { API_KEY_ENV, DEFAULT_BASE_URL, type DeepgramConnectionOptions, DeepgramFluxSTT, type DeepgramFluxSTTOptions, type DeepgramMetrics, type DeepgramMetricsListener, type DeepgramRecognizeMetrics, DeepgramSTT, type DeepgramSTTOptions, type DeepgramSpeechAlternative, type DeepgramStreamMetrics, type DeepgramTranscriptMetrics, type DeepgramWord };
