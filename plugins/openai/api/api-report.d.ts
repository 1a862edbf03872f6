import { Clock, VoxwireError, APIError, LLM as LLM$1, AudioFrame } from '@voxwire/agents';
import { RetryPolicy, LLMUsage, ToolChoice, LLMChatOptions, LLMStreamPart, BatchSTT, STTStreamOptions, SpeechAlternative, BatchTTS, ProviderCallOptions, SynthesizedAudio } from '@voxwire/agents/provider-utils';
import OpenAI, { ClientOptions } from 'openai';

declare const API_KEY_ENV = "OPENAI_API_KEY";
declare const BASE_URL_ENV = "OPENAI_BASE_URL";
/** The plugin was configured in a way that can never work (e.g. no API key for api.openai.com). */
declare class OpenAIConfigError extends VoxwireError {
    name: string;
    /** The environment variable that would have supplied the missing value, if any. */
    readonly envVar: string | undefined;
    constructor(message: string, envVar?: string);
}
/** Options shared by the LLM, STT and TTS of this plugin. */
interface OpenAIClientOptions {
    /** Defaults to `OPENAI_API_KEY`. Optional when `baseURL` points at a local server that ignores keys. */
    apiKey?: string;
    /**
     * Defaults to `OPENAI_BASE_URL`, then `https://api.openai.com/v1`. Point it at any OpenAI-compatible
     * server, e.g. `http://127.0.0.1:11434/v1` for Ollama.
     */
    baseURL?: string;
    /** A ready client (e.g. Azure, or shared between plugins). `apiKey`, `baseURL` and `clientOptions` are then ignored. */
    client?: OpenAI;
    /** Extra options for the SDK client (headers, organization, fetch, logLevel...). Its retries stay off. */
    clientOptions?: Omit<ClientOptions, 'apiKey' | 'baseURL' | 'maxRetries'>;
    /**
     * Idle timeout in ms: the longest wait for the response to start or for the next chunk of a stream.
     * A stalled request then fails with `APITimeoutError`.
     */
    timeoutMs?: number;
    /**
     * Retries with exponential backoff (the core's policy and defaults), only before the first output.
     * A server's `retry-after` is honoured up to `maxRetryAfterMs` (30 s by default); a 429 asking for
     * longer fails at once instead. `{ maxRetries: 0 }` disables them.
     */
    retry?: Partial<RetryPolicy>;
    /** Time source for timeouts, backoff and metrics. Defaults to the core's real clock. */
    clock?: Clock;
}

/** Measured for every `chat()` request, on the LLM's Clock. */
interface LLMMetrics {
    /** Unique per request within the process, e.g. `llm_req_3`. */
    requestId: string;
    label: string;
    model: string;
    /** Clock time when `chat()` started iterating. */
    startedAtMs: number;
    /** From the start (including retries) to the first text delta or tool call; undefined if none came. */
    ttftMs: number | undefined;
    /** From the start to the end of the request (success, failure or cancellation). */
    durationMs: number;
    /**
     * Completion tokens per second of generation (first token to end), from the reported usage; undefined
     * when the server reported no usage.
     */
    tokensPerSecond: number | undefined;
    usage: LLMUsage | undefined;
    /** HTTP attempts made, 1 when no retry was needed. */
    attempts: number;
    /** True when the caller aborted or stopped iterating before the end. */
    cancelled: boolean;
    /** Set when the request failed. */
    error: APIError | undefined;
}
type LLMMetricsListener = (metrics: LLMMetrics) => void;

interface LLMOptions extends OpenAIClientOptions {
    /** Default `gpt-4.1-mini`. For a local server, the name it serves (e.g. `llama3.2` on Ollama). */
    model?: string;
    /**
     * `chat` (Chat Completions, the default, spoken by every OpenAI-compatible server) or `responses`
     * (the Responses API; requests are sent with `store: false` unless `extraBody` says otherwise).
     */
    api?: 'chat' | 'responses';
    /** Sampling temperature; unset leaves the server's default. */
    temperature?: number;
    /** Sent as `max_tokens`: the older name, which most local servers understand. */
    maxTokens?: number;
    /** Sent as `max_completion_tokens` (required instead of `max_tokens` by OpenAI's reasoning models). */
    maxCompletionTokens?: number;
    /** Default tool choice when a call does not set one. */
    toolChoice?: ToolChoice;
    /** Sent as `parallel_tool_calls` with tools; unset leaves the server's default. */
    parallelToolCalls?: boolean;
    /**
     * Whether the model can call tools. Default true; set false for a local model without tool support,
     * and the session then sends it no tools (and says so once).
     */
    supportsToolCalls?: boolean;
    /** Sends tools with `strict: true` (the schemas must then satisfy OpenAI's strict subset). Default false. */
    strictTools?: boolean;
    /** Asks for usage in the last chunk (`stream_options.include_usage`). Default true. */
    includeUsage?: boolean;
    /** Merged into every request body, before a call's `extra`. */
    extraBody?: Record<string, unknown>;
    /** Called once per request when it ends, however it ends. */
    onMetrics?: LLMMetricsListener;
}
/** A streaming chat model over the official `openai` SDK. */
declare class LLM implements LLM$1 {
    readonly specificationVersion = "v1";
    readonly label = "openai.LLM";
    readonly model: string;
    readonly supportsToolCalls: boolean;
    private readonly resolved;
    private readonly options;
    private readonly listeners;
    constructor(options?: LLMOptions);
    /** Subscribes to per-request metrics; returns the unsubscribe function. */
    onMetrics(listener: LLMMetricsListener): () => void;
    chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
    private run;
    /** One HTTP request. Throws typed errors; ends quietly when aborted. */
    private attempt;
    private chatBody;
    private responsesBody;
    private report;
}

interface STTOptions extends OpenAIClientOptions {
    /** Default `gpt-4o-mini-transcribe`; `whisper-1` or the model name of a local server also work. */
    model?: string;
    /** ISO-639-1 code (e.g. `en`). Improves accuracy and latency when known. */
    language?: string;
    /** Context for the recognizer: vocabulary, names, the previous sentence. */
    prompt?: string;
}
/**
 * Speech-to-text over the transcriptions endpoint: a batch recognizer (`kind: 'batch'`), which
 * transcribes one finished utterance per request. The session cuts the utterances with its VAD and
 * resamples them to 16 kHz mono (`inputSampleRates`). `timeoutMs` bounds the whole request here, since
 * the answer is not streamed. Retries are off by default because the session already retries a failed
 * `recognize()`; set `retry` to retry here too.
 */
declare class STT implements BatchSTT {
    readonly specificationVersion = "v1";
    readonly kind = "batch";
    readonly label = "openai.STT";
    readonly inputSampleRates: readonly number[];
    readonly model: string;
    private readonly resolved;
    private readonly options;
    constructor(options?: STTOptions);
    /**
     * Uploads the utterance as a WAV file at `options.sampleRate` and returns one alternative. Rejects
     * with a typed `APIError`, or with the signal's reason when aborted.
     */
    recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]>;
}

interface TTSOptions extends OpenAIClientOptions {
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
/**
 * Text-to-speech over the speech endpoint: a batch synthesizer (`kind: 'batch'`), since the endpoint
 * takes whole texts. The session cuts a reply into sentences and synthesizes them one by one (the core's
 * `TTSStreamAdapter`). Each text's audio is streamed: frames are emitted as the bytes arrive.
 */
declare class TTS implements BatchTTS {
    readonly specificationVersion = "v1";
    readonly kind = "batch";
    readonly label = "openai.TTS";
    readonly sampleRate = 24000;
    readonly numChannels = 1;
    readonly model: string;
    readonly voice: string;
    private readonly resolved;
    private readonly options;
    private readonly frameSizeMs;
    constructor(options?: TTSOptions);
    /**
     * Audio of one text. Retries happen only before the first frame is yielded, each reported to
     * `onProblem`; an abort ends the iteration quietly and closes the HTTP stream.
     */
    synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
    private run;
    private attempt;
}

export { API_KEY_ENV, BASE_URL_ENV, LLM, type LLMMetrics, type LLMMetricsListener, type LLMOptions, type OpenAIClientOptions, OpenAIConfigError, STT, type STTOptions, TTS, type TTSOptions };
