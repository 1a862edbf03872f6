import { SentenceTokenizer, RetryPolicy, Clock, SynthesizedAudio, TTSStream, StreamingTTS, ProviderCallOptions } from '@voxwire/agents/provider-utils';
import { VoxwireError, APIError } from '@voxwire/agents';

declare const API_KEY_ENV = "CARTESIA_API_KEY";
/** The plugin cannot work as configured (no API key, an option out of range): thrown by the constructor. */
declare class CartesiaConfigError extends VoxwireError {
    name: string;
}

/**
 * Measured for every speech (`stream()`) and every `synthesize()` call, on the TTS's clock, and given
 * to `onMetrics` when it ends. The session measures its own time to first audio (`metrics_collected`
 * with `type: 'tts'`); these add what only the provider knows.
 */
interface CartesiaTTSMetrics {
    label: string;
    model: string;
    /** `websocket` for `stream()`, `bytes` for `synthesize()`. */
    endpoint: 'websocket' | 'bytes';
    /** The Cartesia context id of the last attempt (WebSocket only). */
    contextId: string | undefined;
    /**
     * From the first text handed to Cartesia (`stream()`) or the call (`synthesize()`) to the first
     * audio byte, retries included; undefined when no audio came.
     */
    ttfbMs: number | undefined;
    /** Characters of text sent to be spoken. */
    characters: number;
    /** Duration of the audio received. */
    audioDurationMs: number;
    /** From the first text (or the call) to the end. */
    durationMs: number;
    /** Attempts made: 1 when nothing had to be retried. */
    attempts: number;
    /** True when the speech was cancelled (interrupted, aborted, closed) before its end. */
    cancelled: boolean;
    error: APIError | undefined;
}

/** The raw PCM encodings this plugin asks Cartesia for; both come out as 16-bit PCM frames. */
type CartesiaEncoding = 'pcm_s16le' | 'pcm_f32le';

/**
 * Sonic 3 generation controls, sent as `generation_config` (Cartesia API 2025-04-16 and later).
 * Older models ignore or refuse them: use `experimentalControls` there.
 */
interface CartesiaGenerationConfig {
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
interface CartesiaExperimentalControls {
    speed?: 'slowest' | 'slow' | 'normal' | 'fast' | 'fastest' | number;
    emotion?: string[];
}
interface CartesiaTTSOptions {
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
declare const DEFAULT_BASE_URL = "https://api.cartesia.ai";
declare const DEFAULT_API_VERSION = "2025-04-16";
declare const DEFAULT_MODEL = "sonic-3";
/** A stock Cartesia voice that works for English with every model. */
declare const DEFAULT_VOICE = "f786b574-daa5-4673-aa0c-cbe3e8534c02";

/**
 * Cartesia's TTS wire format (docs.cartesia.ai, API reference "TTS / WebSocket" and "Bytes"): the
 * generation request both endpoints take, the WebSocket's context messages, and what the server sends.
 */
/** One word of a speech and when it is spoken, in ms from the start of the speech's audio. */
interface WordTimestamp {
    word: string;
    startMs: number;
    endMs: number;
}

/**
 * A chunk of a Cartesia speech. `words` carries the word timestamps that arrived since the previous
 * chunk (when `wordTimestamps` is on), timed from the start of the speech's audio: the spec's
 * `SynthesizedAudio.words`, which the session's transcript follows.
 */
interface CartesiaSynthesizedAudio extends SynthesizedAudio {
    words?: readonly WordTimestamp[];
}
/** One speech of a `CartesiaTTS`: the spec's `TTSStream`, with what Cartesia adds. */
interface CartesiaTTSStream extends TTSStream {
    [Symbol.asyncIterator](): AsyncIterator<CartesiaSynthesizedAudio>;
    /** Every word timestamp received for this speech, in order (also those after the last chunk). */
    readonly words: readonly WordTimestamp[];
    /** The Cartesia context id of the current attempt; undefined before the speech starts. */
    readonly contextId: string | undefined;
}

/**
 * Cartesia text-to-speech (spec v1 `StreamingTTS`). `stream()` speaks over Cartesia's WebSocket: one
 * socket per TTS instance, opened on first use and shared by every speech (each its own context), so
 * a reply does not pay a TLS handshake. `synthesize()` speaks one whole text over `POST /tts/bytes`.
 *
 * The protocol is spoken directly with `ws` rather than through `@cartesia/cartesia-js`: that SDK's ESM
 * build cannot open its WebSocket on Node 20, it always dials `wss:` whatever the base URL, and an
 * error message becomes an unhandled rejection unless a listener is attached.
 */
declare class CartesiaTTS implements StreamingTTS {
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly sampleRate: number;
    readonly numChannels = 1;
    readonly model: string;
    private readonly options;
    private readonly scrubber;
    private readonly pool;
    private readonly request;
    /** Throws `CartesiaConfigError` without an API key (option or `CARTESIA_API_KEY`) or with a bad option. */
    constructor(options?: CartesiaTTSOptions);
    /** One speech; text may be pushed in any fragments. See `CartesiaTTSStream`. */
    stream(options?: ProviderCallOptions): CartesiaTTSStream;
    synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
    /**
     * Opens the shared socket now, so that the first speech does not wait for the handshake. A failure
     * here is not reported: the first speech connects again and fails with the error if it persists.
     */
    prewarm(): void;
    /** Closes the shared socket; speeches still running fail with `APIConnectionError`. */
    close(): Promise<void>;
}

export { API_KEY_ENV, CartesiaConfigError, type CartesiaEncoding, type CartesiaExperimentalControls, type CartesiaGenerationConfig, type CartesiaSynthesizedAudio, CartesiaTTS, type CartesiaTTSMetrics, type CartesiaTTSOptions, type CartesiaTTSStream, DEFAULT_API_VERSION, DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_VOICE, CartesiaTTS as TTS, type WordTimestamp };
