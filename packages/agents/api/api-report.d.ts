import { z } from 'zod';

/**
 * What every provider specification shares: the version marker, the options every call takes, and the
 * channel for problems a provider recovered from by itself.
 *
 * A provider reports two kinds of trouble, and they travel differently:
 * - a **fatal** error ends the call: the promise rejects or the stream's iteration throws, with a typed
 *   `APIError` (`APIConnectionError`, `APIStatusError`, `APITimeoutError`) whose `retryable` tells the
 *   session whether trying again can help. `APIError`'s own default is `retryable: true`: give
 *   `retryable: false` to errors a retry cannot fix (a malformed answer, a refused key, a bad request);
 * - a **recoverable** problem (a reconnect, audio it had to drop, a retry, a degraded mode) does not end
 *   anything: the provider calls `onProblem` and goes on. The session turns each into an `error` event
 *   with `recoverable: true` and the provider's kind as `source`.
 */
/** The specification version this file describes. A provider sets `specificationVersion` to it. */
declare const SPECIFICATION_VERSION = "v1";
type SpecificationVersion = typeof SPECIFICATION_VERSION;
/**
 * A word and when it is spoken, in ms. For a recognizer: of the stream's audio since it opened (so a
 * reconnecting provider keeps counting). For a synthesizer: of the audio this stream or `synthesize()`
 * call produced, from its first sample.
 */
interface TimedWord {
    word: string;
    startMs: number;
    endMs: number;
    /** 0..1, when a recognizer reports it per word. */
    confidence?: number;
}
/** A problem the provider worked around; the call goes on. */
type ProviderProblem = 
/** A request failed and will be tried again after `delayMs`. */
{
    type: 'retrying';
    attempt: number;
    delayMs: number;
    error: Error;
}
/** A live connection broke and is being re-established; buffered input is replayed after it. */
 | {
    type: 'reconnecting';
    attempt: number;
    delayMs: number;
    error: Error;
}
/**
 * Audio was discarded (a full buffer, a failed inference); what follows is heard again. Report once
 * per run of drops, not per frame: each report becomes an event for the user.
 */
 | {
    type: 'audio_dropped';
    droppedMs: number;
    message: string;
    error?: Error;
}
/** Anything else worth a user's attention that does not stop the call. */
 | {
    type: 'warning';
    message: string;
    error?: Error;
};
/**
 * The options every provider call takes. Timeouts (connecting, waiting for an answer) are the
 * provider's own options; the session adds its own deadlines on top, so a provider without any still
 * cannot hold a turn forever.
 *
 * A provider class states its literal fields as `readonly` (`readonly kind = 'streaming'`), so that
 * TypeScript keeps the literal type the union needs.
 */
interface ProviderCallOptions {
    /**
     * Aborting ends the call at once: pending work is cancelled, connections are released, a stream's
     * iteration finishes quietly (it does not throw because of the abort) and a promise rejects with the
     * signal's reason.
     */
    signal?: AbortSignal;
    /** Where recoverable problems go. Optional: a provider must work without it. */
    onProblem?: (problem: ProviderProblem) => void;
}

/** Base class of every error the core throws on purpose, so users can tell ours from theirs. */
declare class VoxwireError extends Error {
    name: string;
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
interface APIErrorOptions {
    /** Whether the same call may succeed if tried again. */
    retryable?: boolean;
    body?: unknown;
    cause?: unknown;
}
/** A provider call failed. `retryable` says whether trying again can help. */
declare class APIError extends VoxwireError {
    name: string;
    readonly retryable: boolean;
    readonly body: unknown;
    constructor(message: string, options?: APIErrorOptions);
}
/** The provider could not be reached, or the connection broke. Retryable unless said otherwise. */
declare class APIConnectionError extends APIError {
    name: string;
    constructor(message?: string, options?: APIErrorOptions);
}
/** The provider did not answer in time. */
declare class APITimeoutError extends APIConnectionError {
    name: string;
    constructor(message?: string, options?: APIErrorOptions);
}
/** The provider answered with an error status. 408, 409, 429 and 5xx are retryable by default. */
declare class APIStatusError extends APIError {
    name: string;
    readonly statusCode: number;
    readonly requestId: string | undefined;
    constructor(message: string, options: APIErrorOptions & {
        statusCode: number;
        requestId?: string | undefined;
    });
}
/**
 * A tool call failed in a way the LLM should hear about (bad arguments, a business rule). Its message
 * goes back to the model as the function call's output instead of crashing the turn.
 */
declare class ToolError extends VoxwireError {
    name: string;
}
/**
 * A tool ran longer than its `timeoutMs` (or the session's `toolTimeoutMs`). The model is told the call
 * timed out, the session reports this error with source `tool`, and the tool's signal aborts.
 */
declare class ToolTimeoutError extends ToolError {
    readonly toolName: string;
    readonly timeoutMs: number;
    name: string;
    constructor(toolName: string, timeoutMs: number);
}
/** The session is closed (or closing): the call cannot be honoured. */
declare class SessionClosedError extends VoxwireError {
    name: string;
    constructor(message?: string);
}
/** A session method that needs a running session was called before `start()`. */
declare class SessionNotStartedError extends VoxwireError {
    name: string;
}
/** A speech handle was interrupted before it finished. */
declare class SpeechInterruptedError extends VoxwireError {
    name: string;
    constructor(message?: string);
}
/**
 * The audio output did not take a frame, or did not report the end of playout, by the time the audio
 * was due to have played plus the session's `playoutGraceMs`.
 */
declare class AudioOutputTimeoutError extends VoxwireError {
    name: string;
}
/** Audio that cannot be used as given (wrong rate, channel count, or malformed buffer). */
declare class InvalidAudioError extends VoxwireError {
    name: string;
}
/** Every provider of a FallbackAdapter failed. */
declare class AllProvidersFailedError extends APIError {
    name: string;
    readonly errors: readonly unknown[];
    constructor(message: string, errors: readonly unknown[]);
}
/**
 * A provider recovered from a problem by itself (a reconnect, dropped audio, a retry). The session
 * reports it as a recoverable `error` event; `problem` holds the provider's own account of it.
 */
declare class ProviderProblemError extends VoxwireError {
    readonly problem: ProviderProblem;
    name: string;
    constructor(problem: ProviderProblem);
}

/**
 * All time in the core flows through a Clock so that a whole conversation can run on virtual time.
 * Every duration and timestamp is in milliseconds.
 */
interface TimerHandle {
    /** Cancels the timer. Cancelling a fired or cancelled timer is a no-op. */
    cancel(): void;
}
interface Clock {
    /** Monotonic milliseconds since an arbitrary origin. */
    now(): number;
    /**
     * Resolves after `ms`. Rejects with the signal's reason (an `AbortError` by default) when the signal
     * aborts first; the pending timer is released at that moment so nothing is retained.
     * A negative or NaN `ms` means 0; `Infinity` never resolves (only the signal can end it).
     */
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    /** Calls `callback` once after `ms` (same rules for odd values as `sleep`). */
    setTimer(ms: number, callback: () => void): TimerHandle;
    /** Calls `callback` every `intervalMs` (at least 1 ms) until cancelled. */
    setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}
/** The wall clock. The only place in the core that touches the host's timers. */
declare class RealClock implements Clock {
    now(): number;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    setTimer(ms: number, callback: () => void): TimerHandle;
    setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}
/** The process-wide real clock, used when no clock is injected. */
declare function realClock(): Clock;

/**
 * A minimal typed event emitter. A throwing listener is isolated (reported to `onListenerError`) so one
 * bad subscriber cannot break the session that emits.
 */
type EventMap = Record<string, unknown>;
type Listener<T> = (event: T) => void;
declare class TypedEmitter<Events extends EventMap> {
    private readonly listeners;
    private readonly onceWrappers;
    onListenerError: (error: unknown, eventName: string) => void;
    on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): this;
    once<K extends keyof Events>(name: K, listener: Listener<Events[K]>): this;
    /** Removes a listener added with `on` or `once`. */
    off<K extends keyof Events>(name: K, listener: Listener<Events[K]>): this;
    emit<K extends keyof Events>(name: K, event: Events[K]): void;
    listenerCount(name: keyof Events): number;
    removeAllListeners(): void;
}

interface AvailabilityChangedEvent {
    /** The provider's label. */
    provider: string;
    /** Its position in the adapter's list, since two providers may share a label. */
    index: number;
    available: boolean;
    /** The failure that made it unavailable. */
    error?: unknown;
}
/**
 * Events of every fallback adapter. A listener that throws is isolated by the emitter (see
 * `onListenerError`), so it cannot change which provider serves a request.
 */
type FallbackAdapterEvents = {
    availability_changed: AvailabilityChangedEvent;
};
interface ProviderAvailability {
    provider: string;
    index: number;
    available: boolean;
}
interface FallbackAdapterOptions<P> {
    clock?: Clock;
    /**
     * Longest wait for a provider's first output (first LLM part, first audio chunk, a recognition
     * result); past it the attempt fails with `APITimeoutError` and the next provider is tried. Streaming
     * TTS also applies it between chunks while audio is due. Default 10000.
     */
    attemptTimeoutMs?: number;
    /** How often an unavailable provider is probed in the background. Default 5000. */
    retryIntervalMs?: number;
    /**
     * Health check of an unavailable provider: resolves when it works again. Each run gets
     * `attemptTimeoutMs`. The default makes the smallest real request of each kind (see the adapters).
     */
    probe?: (provider: P, signal: AbortSignal) => Promise<void>;
}

/**
 * Chat model, specification v1.
 *
 * The session sends the conversation as plain messages and the tools as definitions (name, description,
 * JSON Schema of the arguments); the model streams back text and tool calls. The session runs the tools
 * itself: a provider never sees tool implementations.
 */
type LLMContentPart = {
    type: 'text';
    text: string;
} | {
    type: 'image';
    /** A URL or a `data:` URL. */
    image: string;
    mimeType?: string;
    detail?: 'auto' | 'low' | 'high';
};
/** A tool call the model made earlier in the conversation, with its raw JSON arguments. */
interface LLMToolCall {
    callId: string;
    name: string;
    arguments: string;
}
/**
 * One message of the conversation, oldest first. Every `tool` message answers a call of the assistant
 * message before it, and every such call is answered, so a request is always well formed.
 */
type LLMMessage = {
    role: 'system' | 'developer';
    content: string;
} | {
    role: 'user';
    content: readonly LLMContentPart[];
}
/** `content` may be empty when the turn only called tools. */
 | {
    role: 'assistant';
    content: string;
    toolCalls: readonly LLMToolCall[];
} | {
    role: 'tool';
    callId: string;
    toolName: string;
    output: string;
    isError: boolean;
};
/** What the model is told about a tool. */
interface ToolDefinition {
    name: string;
    description: string;
    /** JSON Schema (draft 7) of the arguments object. */
    parameters: Record<string, unknown>;
}
type ToolChoice = 'auto' | 'required' | 'none' | {
    type: 'function';
    name: string;
};
interface LLMUsage {
    promptTokens: number;
    completionTokens: number;
    totalTokens: number;
    cachedPromptTokens?: number;
}
/**
 * What an LLM stream yields. Tool calls arrive whole: a provider that streams argument deltas assembles
 * them before emitting `tool_call`, so the session never sees half an argument object. Invalid JSON is
 * passed on as it is; the session answers the model with a tool error.
 *
 * `callId` should be unique within one response; a repeat within a response is ignored. It may repeat
 * across responses (some models number their calls `call_0`, `call_1` every turn). For an id already in
 * the conversation the session applies one rule: the same call (same name and arguments) with no user
 * message since it was made is a re-emission within the turn and does not run again (unless it was
 * cancelled: then it is a retry); any other reuse is a new call, run and recorded under a fresh id
 * `<callId>_<n>`, so every id in the history names one call and its one output. Providers need do
 * nothing about it; they must not invent ids from the content of a call.
 */
type LLMStreamPart = {
    type: 'text_delta';
    text: string;
} | {
    type: 'tool_call';
    callId: string;
    name: string;
    arguments: string;
} | {
    type: 'usage';
    usage: LLMUsage;
}
/** Exactly once, last. A stream that ends without it was cut off: throw `APIConnectionError`. */
 | {
    type: 'finish';
    reason: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';
};
interface LLMChatOptions extends ProviderCallOptions {
    messages: readonly LLMMessage[];
    /** Absent or empty when the agent has no tools, or when the model does not support tools. */
    tools?: readonly ToolDefinition[];
    /**
     * `none`: answer without calling tools; `required` or a named function: call one. A model that cannot
     * honour it treats it as `auto` (the session runs whatever calls come back).
     */
    toolChoice?: ToolChoice;
    /** Provider-specific options passed through untouched. */
    extra?: Record<string, unknown>;
}
/**
 * A streaming chat model. Iteration throws a typed `APIError` on failure; aborting the signal ends the
 * stream quietly (iteration finishes) and releases the connection.
 */
interface LLM {
    readonly specificationVersion: SpecificationVersion;
    readonly label: string;
    readonly model: string;
    /** False when the model cannot call tools: the session then sends none and reports it once. */
    readonly supportsToolCalls: boolean;
    chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
    close?(): Promise<void>;
}

type LLMFallbackAdapterOptions = FallbackAdapterOptions<LLM>;
/**
 * An LLM that serves each request from the first healthy provider of a priority list. A provider that
 * fails before its first part is marked unavailable (`availability_changed`) and the request moves on;
 * one that fails after parts went out surfaces its error, since a second model would repeat the text.
 * Unavailable providers are probed every `retryIntervalMs` and come back when a probe succeeds.
 */
declare class LLMFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements LLM {
    readonly providers: readonly LLM[];
    readonly specificationVersion = "v1";
    readonly label: string;
    readonly supportsToolCalls: boolean;
    private readonly tracker;
    constructor(providers: readonly LLM[], options?: LLMFallbackAdapterOptions);
    /** The model of the provider that would serve the next request. */
    get model(): string;
    chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
    availability(): ProviderAvailability[];
    /** Stops the probes and closes every provider. */
    close(): Promise<void>;
}

/**
 * The shape of a PCM frame. `@livekit/rtc-node`'s AudioFrame has the same fields, so transports pass
 * frames across without copying.
 */
interface AudioFrameLike {
    /** Interleaved signed 16-bit samples: `samplesPerChannel * channels` values. */
    readonly data: Int16Array;
    readonly sampleRate: number;
    readonly channels: number;
    readonly samplesPerChannel: number;
}
declare class AudioFrame implements AudioFrameLike {
    readonly data: Int16Array;
    readonly sampleRate: number;
    readonly channels: number;
    readonly samplesPerChannel: number;
    constructor(data: Int16Array, sampleRate: number, channels: number, samplesPerChannel: number);
    /** Wraps any structurally compatible frame (e.g. from `@livekit/rtc-node`) without copying. */
    static from(frame: AudioFrameLike): AudioFrame;
    /** A frame of zeros. */
    static silence(sampleRate: number, channels: number, samplesPerChannel: number): AudioFrame;
    get durationMs(): number;
}

/**
 * Speech-to-text, specification v1.
 *
 * A recognizer is either **streaming** (it hears a live stream and reports speech events and
 * transcripts as they come) or **batch** (it transcribes one finished utterance at a time; the session
 * cuts the utterances with its VAD). `kind` tells which, and the compiler then says what to implement.
 *
 * Input audio: the session sends mono 16-bit PCM at one of `inputSampleRates`, resampling and mixing
 * down whatever the user's microphone produced, so a recognizer never converts audio itself.
 */
/** One recognized hypothesis. */
interface SpeechAlternative {
    /** The words heard; may be empty (silence or noise). */
    text: string;
    /** BCP-47 code of the detected or configured language; the session passes it to the turn detector. */
    language?: string;
    /** 0..1 when the provider reports it; kept on the user's message as `transcriptConfidence`. */
    confidence?: number;
    /** The words of `text` with their times, when the provider reports them. */
    words?: readonly TimedWord[];
}
/** What a live recognition stream reports, in order. */
type STTEvent = 
/** The recognizer heard speech begin (used when the session has no VAD of its own). */
{
    type: 'start_of_speech';
}
/** A hypothesis that may still change. Enables interruption by words and early turn decisions. */
 | {
    type: 'interim_transcript';
    alternatives: readonly SpeechAlternative[];
}
/**
 * An eager end of turn: the recognizer expects this to be the turn's final text but may still revise
 * it. The session may start its reply speculatively (`turnHandling.preemptiveGeneration`); the turn
 * does not end on it. A final transcript follows, or more interims when the user goes on.
 */
 | {
    type: 'preflight_transcript';
    alternatives: readonly SpeechAlternative[];
}
/** A transcript the provider will not revise. One utterance may produce several. */
 | {
    type: 'final_transcript';
    alternatives: readonly SpeechAlternative[];
}
/** The recognizer heard speech end (turn detection `stt` waits for it). */
 | {
    type: 'end_of_speech';
};
interface STTStreamOptions extends ProviderCallOptions {
    /** The language the session was configured with, if any. */
    language?: string;
    /** Sample rate of every frame that will be pushed: one of the recognizer's `inputSampleRates`. */
    sampleRate: number;
}
/**
 * A live recognition stream. Iteration yields events and ends after `endInput()` once everything heard
 * was reported, or at once after `close()` or an abort. A fatal provider error ends iteration by
 * throwing a typed `APIError`; the session then opens a new stream (with backoff when `retryable`).
 */
interface STTStream extends AsyncIterable<STTEvent> {
    /**
     * Mono frames at the stream's `sampleRate`. Never blocks: buffer boundedly, report drops. The frame
     * is the provider's to keep; the session does not write to it after pushing it.
     */
    pushFrame(frame: AudioFrame): void;
    /**
     * The session committed the user's turn: report what was heard so far as final without waiting for
     * the provider's own endpointing. A no-op for providers that cannot.
     */
    flush(): void;
    /**
     * No more audio: report the rest, then end iteration. Bound the wait for the provider's last words
     * (a timeout option of the provider's); a connection the provider closes earlier is an
     * `APIConnectionError`.
     */
    endInput(): void;
    /** Ends the stream at once, without reporting errors that come after, and releases its connection. */
    close(): Promise<void>;
}
interface STTBase {
    readonly specificationVersion: SpecificationVersion;
    /** Names the provider in logs, errors and metrics, e.g. `deepgram/nova-3`. */
    readonly label: string;
    /** Sample rates the recognizer accepts, preferred first. The session resamples to one of them. */
    readonly inputSampleRates: readonly number[];
    /** Releases what the provider holds (pooled connections, workers). */
    close?(): Promise<void>;
}
interface StreamingSTT extends STTBase {
    readonly kind: 'streaming';
    stream(options: STTStreamOptions): STTStream;
}
interface BatchSTT extends STTBase {
    readonly kind: 'batch';
    /**
     * Transcribes one finished utterance: mono frames at `options.sampleRate`, in order. Rejects with a
     * typed `APIError`; the session retries retryable ones.
     */
    recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]>;
}
type STT = StreamingSTT | BatchSTT;

/**
 * Voice activity detection, specification v1.
 *
 * The session pushes every input frame to the VAD, whatever plays, so the user's state always follows
 * their voice. Durations are measured in audio pushed (ms of audio), not wall-clock time, so results do
 * not depend on how fast frames arrive. `timestampMs` places an event in that audio: the session dates
 * speech on its own clock from the durations, while recorders and transports use the positions to align
 * events with what was heard.
 */
type VADEvent = {
    /** Speech began, confirmed after the detector's minimum speech duration. */
    type: 'start_of_speech';
    /** Where speech began, in ms of audio pushed (see `timestampMs` below). */
    timestampMs: number;
    /** Speech heard so far; the session dates the start of speech with it. */
    speechDurationMs: number;
    /** Prefix padding plus the speech so far: a batch recognizer starts from these. */
    frames: AudioFrame[];
} | {
    /** One analysis window was processed. */
    type: 'inference_done';
    /** End of the analysed window, in ms of audio pushed. */
    timestampMs: number;
    /** Speech probability of the latest window, 0..1. */
    probability: number;
    /** Whether the user is speaking after this window; the interruption thresholds count from it. */
    speaking: boolean;
    /** Length of the current speech so far (0 while not speaking). */
    speechDurationMs: number;
} | {
    /** Speech ended, after the detector's minimum silence. */
    type: 'end_of_speech';
    /** Where speech ended, in ms of audio pushed. */
    timestampMs: number;
    /** Silence since the last speech; the session dates the end of speech with it. */
    silenceDurationMs: number;
    /** The whole utterance with prefix padding, bounded by the detector's max buffered speech. */
    frames: AudioFrame[];
};
interface VADStream extends AsyncIterable<VADEvent> {
    /** Feeds audio: any sample rate, any frame length. Never blocks: buffer boundedly, report drops. */
    pushFrame(frame: AudioFrame): void;
    /** No more audio will come: pending windows are processed, then iteration ends. */
    endInput(): void;
    /** Stops at once and releases resources; iteration ends. */
    close(): Promise<void>;
}
interface VAD {
    readonly specificationVersion: SpecificationVersion;
    readonly label: string;
    /**
     * A fatal failure ends iteration by throwing; the session reports it and opens a new stream.
     * A window that could not be analysed, or audio dropped from a full buffer, goes to `onProblem` and
     * the stream goes on.
     */
    stream(options?: ProviderCallOptions): VADStream;
}

interface STTFallbackAdapterOptions extends FallbackAdapterOptions<STT> {
    /** Segments the audio for providers that cannot stream (wrapped in `STTStreamAdapter`). */
    vad?: VAD;
}
/**
 * Speech-to-text over a priority list of providers. A live stream runs on one provider at a time; when it
 * fails (an error, or the stream ending while audio still comes) the provider is marked unavailable and
 * the stream carries on with the next one, from the next pushed frame. Audio the failed provider had not
 * transcribed yet is lost; an utterance it had started is closed with `end_of_speech` so speech events
 * stay paired. Recovery works as in `LLMFallbackAdapter`. The providers must share an input sample rate,
 * since a switch happens between two frames.
 */
declare class STTFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements StreamingSTT {
    readonly providers: readonly STT[];
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly inputSampleRates: readonly number[];
    private readonly tracker;
    /** What each provider's live stream comes from: itself, or a VAD-driven adapter. */
    private readonly streamers;
    constructor(providers: readonly STT[], options?: STTFallbackAdapterOptions);
    stream(options: STTStreamOptions): STTStream;
    availability(): ProviderAvailability[];
    /** Stops the probes and closes every provider. */
    close(): Promise<void>;
}

/**
 * Text-to-speech, specification v1.
 *
 * A synthesizer is either **streaming** (it takes text incrementally, as the LLM writes it, and
 * answers with audio as soon as it can) or **batch** (it speaks one whole text per call; the session
 * cuts the reply into sentences and calls it once per sentence). `kind` tells which.
 *
 * Output audio: 16-bit PCM frames at `sampleRate` with `numChannels`, any frame length. The session
 * resamples for the audio output; the provider never needs to.
 */
/** One chunk of synthesized audio. */
interface SynthesizedAudio {
    frame: AudioFrame;
    /**
     * Words whose timing the provider learned since its previous chunk (optional). When a synthesizer
     * reports them, the agent's transcript follows them (each word shows once half of it has played, and
     * an interrupted message keeps exactly those words); without them it follows an estimated speaking
     * rate. Times are of this stream's audio (see `TimedWord`).
     */
    words?: readonly TimedWord[];
}
interface TTSStream extends AsyncIterable<SynthesizedAudio> {
    /** More text of the same reply. May be called with any fragment: a word, half a word, a sentence. */
    pushText(text: string): void;
    /** Synthesize what was pushed so far without waiting for more text (the LLM paused). */
    flush(): void;
    /** No more text: iteration ends after the last audio. */
    endInput(): void;
    /** Ends at once, drops what was not yet yielded and releases the connection. */
    close(): Promise<void>;
}
interface TTSBase {
    readonly specificationVersion: SpecificationVersion;
    /** Names the provider in logs, errors and metrics, e.g. `cartesia/sonic-2`. */
    readonly label: string;
    readonly sampleRate: number;
    readonly numChannels: number;
    /**
     * Speaks one whole text. Iteration throws a typed `APIError` on failure and ends quietly on abort.
     * Retry inside only before the first frame (a retry after audio went out would repeat it); a
     * connection cut mid-audio is an `APIConnectionError`, and the session does not replay that text.
     */
    synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
    close?(): Promise<void>;
}
interface StreamingTTS extends TTSBase {
    readonly kind: 'streaming';
    stream(options?: ProviderCallOptions): TTSStream;
}
interface BatchTTS extends TTSBase {
    readonly kind: 'batch';
}
type TTS = StreamingTTS | BatchTTS;

/**
 * Splits streamed LLM text into sentences for a TTS that takes whole requests. Splitting too early
 * ("Dr." + "Smith") breaks prosody, splitting too late delays the first audio; ambiguous cases are
 * therefore merged, which only costs a little latency. Chinese and Japanese have no spaces between
 * sentences: they end at their own marks (。！？), with any closing quote or bracket after them.
 */
interface SentenceTokenizerOptions {
    /**
     * Shortest sentence, in characters, sent on its own; shorter ones are joined to the next so the TTS
     * is not asked for tiny clips ("Hi!", "好的。"). A Chinese, Japanese or Korean character counts as two:
     * it is a syllable, as long to say as two or three Latin letters. `flush()` returns the remainder
     * whatever its length. Default 20.
     */
    minSentenceLength?: number;
    /** Added to the built-in abbreviations; case-insensitive, with or without the trailing dot. */
    abbreviations?: readonly string[];
}
declare class SentenceTokenizer {
    readonly minSentenceLength: number;
    private readonly abbreviations;
    constructor(options?: SentenceTokenizerOptions);
    /** A new incremental splitter; each one holds its own buffer. */
    stream(): SentenceStream;
    /** Splits a whole text. */
    tokenize(text: string): string[];
}
/** Incremental splitter: push text deltas as they arrive, collect the sentences they complete. */
declare class SentenceStream {
    private readonly minLength;
    private readonly abbreviations;
    private buffer;
    /** Where the sentence being built starts in `buffer`. */
    private start;
    /** Where scanning resumes: text before it holds no undecided boundary. */
    private scan;
    constructor(minLength: number, abbreviations: ReadonlySet<string>);
    /** Adds a text delta; returns the sentences it completed, trimmed, in order. */
    push(text: string): string[];
    /** Returns whatever is left as a last sentence (if not blank) and resets. */
    flush(): string[];
    /**
     * Decides whether a sentence ends at or just after position `i`. Returns the end offset (exclusive),
     * undefined for "not here", or 'more' when the text so far cannot tell.
     */
    private boundaryAt;
    /** Whether the word ending at the dot at `dot` is an abbreviation, an initial or a dotted acronym. */
    private isAbbreviation;
    private candidate;
    private compact;
}

interface TTSFallbackAdapterOptions extends FallbackAdapterOptions<TTS> {
    /** Splits text for providers that cannot stream (wrapped in `TTSStreamAdapter`). */
    tokenizer?: SentenceTokenizer;
}
/**
 * Text-to-speech over a priority list of providers, which must share their channel count; audio of
 * providers with a lower sample rate is resampled to the highest one, so a switch never changes the
 * format. `synthesize()` behaves like `LLMFallbackAdapter.chat()`. A `stream()` keeps the text pushed
 * into it; when its provider fails before any audio went out, the stream moves to the next provider and
 * replays that text. After audio went out the error surfaces: a reply is never spoken twice, nor half by
 * one voice and half by another.
 */
declare class TTSFallbackAdapter extends TypedEmitter<FallbackAdapterEvents> implements StreamingTTS {
    readonly providers: readonly TTS[];
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly sampleRate: number;
    readonly numChannels: number;
    private readonly tracker;
    private readonly streamers;
    constructor(providers: readonly TTS[], options?: TTSFallbackAdapterOptions);
    synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
    stream(options?: ProviderCallOptions): TTSStream;
    availability(): ProviderAvailability[];
    /** Stops the probes and closes every provider. */
    close(): Promise<void>;
}

type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** `log.info('text')`, `log.info({ fields }, 'text')` or `log.error(error, 'text')`. */
interface LogFn {
    (msg: string): void;
    (obj: object, msg?: string): void;
}
/**
 * The logger the core writes to. Deliberately small, so that pino, winston or a test spy can stand in;
 * a pino instance fits as is.
 */
interface Logger {
    debug: LogFn;
    info: LogFn;
    warn: LogFn;
    error: LogFn;
    /** A logger that adds `bindings` to every record (e.g. `{ sessionId }`). */
    child(bindings: Record<string, unknown>): Logger;
}
interface LoggerOptions {
    /** Lowest level written. Default `info`; `silent` writes nothing. */
    level?: LogLevel | 'silent';
    /** Written as `name` on every record. */
    name?: string;
    /** Fields written on every record. Redacted like everything else. */
    bindings?: Record<string, unknown>;
    /** Where JSON lines go. Default: standard output. */
    destination?: {
        write(line: string): unknown;
    };
    /**
     * Source of the `time` field. Pass the session's clock to stamp records with virtual time in
     * simulations; by default records carry wall-clock epoch milliseconds.
     */
    clock?: Clock;
}
/** A pino-backed JSON logger that redacts secrets and audio from everything it writes. */
declare function createLogger(options?: LoggerOptions): Logger;
/** Discards everything. */
declare const silentLogger: Logger;
/**
 * The logger used by core objects that were not given one. Created on first use at the level named by
 * `VOXWIRE_LOG_LEVEL` (`debug`, `info`, `warn`, `error` or `silent`; default `info`).
 */
declare function defaultLogger(): Logger;
/**
 * Replaces the default logger; `undefined` restores the built-in one. A logger that does not redact
 * already is wrapped with `redactingLogger`, so keys and audio stay out of the output either way.
 */
declare function setDefaultLogger(logger: Logger | undefined): void;

type ChatRole = 'system' | 'developer' | 'user' | 'assistant';
interface ImageContent {
    type: 'image';
    /** A URL or a `data:` URL. */
    image: string;
    mimeType?: string;
    detail?: 'auto' | 'low' | 'high';
}
type ChatContent = string | ImageContent;
interface ChatMessage {
    type: 'message';
    id: string;
    role: ChatRole;
    content: ChatContent[];
    /** True when the speech was cut short; the content then holds only what the user heard. */
    interrupted: boolean;
    createdAtMs: number;
    /** Transcription confidence, for user messages. */
    transcriptConfidence?: number;
}
interface FunctionCall {
    type: 'function_call';
    id: string;
    callId: string;
    name: string;
    /** The raw JSON text the model produced, kept as-is even when invalid. */
    arguments: string;
    createdAtMs: number;
}
interface FunctionCallOutput {
    type: 'function_call_output';
    id: string;
    callId: string;
    name: string;
    output: string;
    isError: boolean;
    createdAtMs: number;
}
interface AgentHandoff {
    type: 'agent_handoff';
    id: string;
    oldAgentId: string | undefined;
    newAgentId: string;
    createdAtMs: number;
}
type ChatItem = ChatMessage | FunctionCall | FunctionCallOutput | AgentHandoff;
type NewItem<T extends ChatItem> = Omit<T, 'type' | 'id' | 'createdAtMs'> & {
    id?: string;
    createdAtMs?: number;
};
interface AddMessageOptions {
    role: ChatRole;
    content: string | ChatContent[];
    id?: string;
    interrupted?: boolean;
    createdAtMs?: number;
    transcriptConfidence?: number;
}
interface CopyOptions {
    excludeFunctionCalls?: boolean;
    excludeInstructions?: boolean;
    excludeHandoffs?: boolean;
    /** Keep only function calls (and their outputs) of these tools. */
    toolNames?: readonly string[];
}
/** The conversation as the LLM sees it. Items are kept in time order. */
declare class ChatContext {
    private itemList;
    constructor(items?: readonly ChatItem[]);
    static empty(): ChatContext;
    get items(): readonly ChatItem[];
    addMessage(options: AddMessageOptions): ChatMessage;
    addFunctionCall(call: NewItem<FunctionCall>): FunctionCall;
    addFunctionCallOutput(output: NewItem<FunctionCallOutput>): FunctionCallOutput;
    addHandoff(handoff: NewItem<AgentHandoff>): AgentHandoff;
    /**
     * Inserts keeping time order; items with equal timestamps keep insertion order. The item is frozen:
     * items are values shared by every copy of the context, so a change is a `replace()`, never an edit.
     */
    insert(item: ChatItem): void;
    getById(id: string): ChatItem | undefined;
    indexById(id: string): number;
    /** Replaces the item with the same id; returns false when there is none. */
    replace(item: ChatItem): boolean;
    remove(id: string): boolean;
    /** True when a function call with this callId already has an output. */
    hasOutputFor(callId: string): boolean;
    copy(options?: CopyOptions): ChatContext;
    /**
     * Keeps the last `maxItems` items, plus the leading instructions. Never starts with a function output
     * whose call was cut off, since providers reject an output without its call.
     */
    truncate(maxItems: number): this;
    /** Sets (or replaces) the leading system instructions. */
    setInstructions(text: string, id?: string): void;
    toJSON(): {
        items: ChatItem[];
    };
    /**
     * Rebuilds a context from `toJSON()` output, e.g. a stored conversation. The data is checked, since it
     * usually comes from outside the process; unknown extra fields are kept. Throws `TypeError` naming
     * the first bad field.
     */
    static fromJSON(json: {
        items: readonly ChatItem[];
    }): ChatContext;
    private lastTimestamp;
}
/** The text of a message's content, images left out. */
declare function messageText(message: ChatMessage): string;

/**
 * End-of-turn prediction, specification v1.
 *
 * When the user pauses, the session asks how likely it is that they have finished. At or above
 * `unlikelyThreshold(language)` it commits the turn after the minimum endpointing delay; below it waits
 * up to the maximum delay for more speech. The session bounds the wait itself: a slow or failing
 * detector delays a turn by at most the maximum delay.
 */
/** One turn of the conversation as the detector sees it: spoken text only, oldest first. */
interface ConversationTurn {
    role: 'user' | 'assistant';
    text: string;
}
interface TurnDetector {
    readonly specificationVersion: SpecificationVersion;
    readonly label: string;
    /**
     * The probability below which the end of turn is unlikely for `language` (a BCP-47 code, undefined
     * when unknown); undefined when the detector does not support the language, and the session then
     * endpoints on silence alone.
     */
    unlikelyThreshold(language: string | undefined): number | undefined;
    /**
     * Probability 0..1 that the last user turn is complete. `turns` ends with the user's pending turn.
     * Rejects on failure; resolves or rejects promptly after an abort.
     */
    predictEndOfTurn(turns: readonly ConversationTurn[], options?: ProviderCallOptions): Promise<number>;
}

/** Produces ids like `item_1`, `item_2`. Deterministic per generator, so simulations replay exactly. */
type IdGenerator = (prefix: string) => string;

/**
 * Fine-grained records of what the session did, in order, each stamped with the session clock. They are
 * the raw material of the invariant checker and of readable timelines; production code can log them.
 * Public events (`user_state_changed`, ...) are not repeated here.
 */
type SpeechOutcome = 'played' | 'interrupted' | 'failed';
/** `superseded`: a reply to an older turn, not heard yet, dropped because the user moved on. */
type InterruptReason = 'user_speech' | 'user_words' | 'user_turn' | 'superseded' | 'api' | 'forced' | 'close';
type TraceRecord = {
    type: 'speech_queued';
    speechId: string;
    priority: number;
} | {
    type: 'speech_authorized';
    speechId: string;
    step: number;
} | {
    type: 'speech_released';
    speechId: string;
    step: number;
} | {
    type: 'speech_frame';
    speechId: string;
    durationMs: number;
    allowInterruptions: boolean;
} | {
    type: 'speech_paused';
    speechId: string;
} | {
    type: 'speech_resumed';
    speechId: string;
    falseInterruption: boolean;
}
/** The interruption detector heard an acknowledgement over the speech: it resumes instead of a cut. */
 | {
    type: 'backchannel_detected';
    speechId: string;
} | {
    type: 'speech_interrupt_requested';
    speechId: string;
    force: boolean;
    reason: InterruptReason;
} | {
    type: 'speech_interrupted';
    speechId: string;
    reason: InterruptReason;
    /** Duration of the user speech that triggered it, when user speech did. */
    userSpeechMs?: number;
    userWords?: number;
} | {
    type: 'speech_done';
    speechId: string;
    outcome: SpeechOutcome;
    error?: string;
} | {
    type: 'vad_start_of_speech';
    speechStartMs: number;
} | {
    type: 'vad_end_of_speech';
    lastSpeechMs: number;
} | {
    type: 'vad_restarted';
    error: string;
} | {
    type: 'stt_restarted';
    error: string;
} | {
    type: 'endpointing_started';
    lastSpeechMs: number;
    minDelayMs: number;
    maxDelayMs: number;
} | {
    type: 'end_of_turn_prediction';
    probability: number | undefined;
    delayMs: number;
    error?: string;
} | {
    type: 'user_turn_committed';
    turnId: string;
    transcript: string;
    lastSpeechMs: number | undefined;
    /** A turn given as text (`session.run()`): no speech of it was heard, so it cuts nothing. */
    text?: boolean;
} | {
    type: 'user_turn_skipped';
    turnId: string;
    reason: string;
}
/** The pending user turn reached `maxUserTurnDuration`; the agent's `onUserTurnExceeded` decides. */
 | {
    type: 'user_turn_exceeded';
    transcript: string;
    durationMs: number;
    userSpeaking: boolean;
} | {
    type: 'reply_started';
    turnId: string | undefined;
    speechId: string;
}
/** `preemptiveGeneration`: an LLM request started on a final transcript before the turn commits. */
 | {
    type: 'preemptive_generation_started';
    transcript: string;
}
/** The speculative request was dropped (the user went on, the text or the context changed, a skip). */
 | {
    type: 'preemptive_generation_discarded';
    transcript: string;
    reason: string;
}
/** A reply streams the speculative request instead of making its own. */
 | {
    type: 'preemptive_generation_used';
    speechId: string;
} | {
    type: 'tool_started';
    speechId: string;
    callId: string;
    name: string;
}
/** The model gave an id already in use: the call runs and is recorded under `callId` instead. */
 | {
    type: 'tool_call_renamed';
    speechId: string;
    modelCallId: string;
    callId: string;
    name: string;
}
/** A call recorded as cancelled returned a value after all; its output now holds that value. */
 | {
    type: 'tool_result_after_cut';
    speechId: string;
    callId: string;
    name: string;
}
/** A call the model made that does not run: a repeat within its response, or a re-emitted call. */
 | {
    type: 'tool_call_skipped';
    speechId: string;
    callId: string;
    name: string;
    reason: 'repeated_in_response' | 'already_answered' | 'already_running';
} | {
    type: 'tool_finished';
    speechId: string;
    callId: string;
    name: string;
    outcome: 'ok' | 'error' | 'cancelled';
} | {
    type: 'interruption_hold';
    speechId: string;
    holds: number;
} | {
    type: 'task_started';
    taskId: string;
    parentSpeechId: string | undefined;
} | {
    type: 'task_finished';
    taskId: string;
    outcome: 'completed' | 'failed' | 'cancelled';
} | {
    type: 'audio_input_ended';
}
/** `session.input.setAudioEnabled()`: while disabled, input frames reach neither the VAD nor the STT. */
 | {
    type: 'audio_input_enabled';
    enabled: boolean;
}
/** `session.input.audio = source`: the session listens to another source (or to none). */
 | {
    type: 'audio_input_source_changed';
    attached: boolean;
}
/** `session.output.setAudioEnabled()`: while disabled, speech steps that start are text-only. */
 | {
    type: 'audio_output_enabled';
    enabled: boolean;
} | {
    type: 'close_requested';
    reason: string;
};
type TimedTraceRecord = TraceRecord & {
    atMs: number;
};
type TraceSink = (record: TimedTraceRecord) => void;

declare const SpeechPriority: {
    readonly low: 0;
    readonly normal: 5;
    readonly high: 10;
};
interface SpeechHandleInit {
    id: string;
    allowInterruptions: boolean;
    priority?: number;
    /** Where the speech came from, for events and traces. */
    source: 'say' | 'generate_reply' | 'user_turn' | 'tool_response' | 'agent_task';
    /** The committed user turn this speech answers, if any. */
    turnId?: string | undefined;
}
/** Thrown when a tool awaits the very speech it belongs to: that wait could never end. */
declare class SpeechDeadlockError extends VoxwireError {
    name: string;
}
/**
 * One thing the agent says: a `say()`, or a reply that may take several LLM steps with tool calls in
 * between. It ends exactly once: played to the end, interrupted, or failed with an error.
 */
declare class SpeechHandle implements PromiseLike<void> {
    readonly id: string;
    readonly priority: number;
    readonly source: SpeechHandleInit['source'];
    readonly turnId: string | undefined;
    private allow;
    private holds;
    private outcomeValue;
    private errorValue;
    private interruptReasonValue;
    private readonly interruptController;
    private readonly donePromise;
    private resolveDone;
    private readonly doneListeners;
    private readonly interruptListeners;
    private readonly holdListeners;
    /**
     * Set by the session: the conversation thread this speech belongs to. A tool's `say` and the speeches
     * of an AgentTask share the thread of the speech that started them; threads play in creation order.
     */
    threadSeq: number;
    /** Set by the session: tells whether the caller is running inside this speech's own tools. */
    isCurrentToolContext: () => boolean;
    constructor(init: SpeechHandleInit);
    /** False once created uninterruptible or after a tool called `disallowInterruptions()`. */
    get allowInterruptions(): boolean;
    /** Whether user activity may interrupt it now: allowed and no interruption hold outstanding. */
    get interruptible(): boolean;
    get interrupted(): boolean;
    get interruptReason(): InterruptReason | undefined;
    /** Aborts when the speech is interrupted; tools listen to it. */
    get interruptSignal(): AbortSignal;
    get outcome(): SpeechOutcome | undefined;
    /** The failure, when the outcome is `failed`. */
    get error(): unknown;
    get holdCount(): number;
    done(): boolean;
    /**
     * Interrupts the speech. Without `force`, an uninterruptible speech is left alone and `false` is
     * returned. Interrupting a finished speech is a no-op.
     */
    interrupt(options?: {
        force?: boolean;
    }): boolean;
    /** Resolves when the speech has stopped playing for good (played, interrupted or failed). */
    waitForPlayout(): Promise<void>;
    then<R1 = void, R2 = never>(onfulfilled?: ((value: void) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): PromiseLike<R1 | R2>;
    /** Registers a callback for the end of the speech (called at once if already done). */
    onDone(listener: () => void): () => void;
    onInterrupt(listener: (reason: InterruptReason) => void): () => void;
    onHoldChange(listener: (holds: number) => void): () => void;
    private notifyHolds;
}
/** The abort reason carried by a speech's interrupt signal. */
declare class SpeechInterruptedReason extends VoxwireError {
    readonly reason: InterruptReason;
    name: string;
    constructor(reason: InterruptReason);
    /**
     * The one instance for `reason` that interrupted speeches carry. An error records its stack, async
     * frames included, when it is made, which cost more than the rest of an interruption; the reason is
     * a signal for the speech's waits to stop, and no one reads where it was made.
     */
    static of(reason: InterruptReason): SpeechInterruptedReason;
}

/**
 * What a tool sees while it runs: the session, the speech it belongs to, the call itself, the user data,
 * and an abort signal that fires when the call must stop.
 */
declare class RunContext<UserData = unknown> {
    readonly session: AgentSession<UserData>;
    readonly speechHandle: SpeechHandle;
    readonly functionCall: FunctionCall;
    private readonly stepPlayout;
    private readonly internals;
    constructor(session: AgentSession<UserData>, speechHandle: SpeechHandle, functionCall: FunctionCall, stepPlayout: () => Promise<void>, internals?: RunContextInternals);
    get userData(): UserData;
    /**
     * Aborted when the call must stop: its speech was interrupted (never by user audio once interruptions
     * are disallowed), or the tool's `timeoutMs` passed.
     */
    get signal(): AbortSignal;
    /** Makes the speech uninterruptible by the user from now on (a forced interrupt still works). */
    disallowInterruptions(): void;
    /** Resolves when the audio generated before this tool call has stopped playing (ended or interrupted). */
    waitForPlayout(): Promise<void>;
}

type JSONSchema = Record<string, unknown>;
interface ToolOptions<Schema extends z.ZodType, Result, UserData> {
    /** Letters, digits, `_` and `-`, at most 64 characters (what every provider accepts). */
    name: string;
    description: string;
    /** A zod schema of the arguments; an object schema. Omit for a tool without arguments. */
    parameters?: Schema;
    /**
     * Longest a call may run, in ms of the session's clock. When it passes, the model is told the call
     * timed out, the session emits an `error` (source `tool`, a `ToolTimeoutError`) and `ctx.signal`
     * aborts. Default: the session's `toolTimeoutMs`, which is unset by default (no limit).
     */
    timeoutMs?: number;
    execute(args: z.output<Schema>, ctx: RunContext<UserData>): Result | Promise<Result>;
}
interface Tool<Schema extends z.ZodType = z.ZodType, Result = unknown, UserData = unknown> {
    readonly type: 'function';
    readonly name: string;
    readonly description: string;
    readonly parameters: Schema;
    /** JSON Schema of the arguments, for providers. */
    readonly jsonSchema: JSONSchema;
    /**
     * Parses the model's raw JSON arguments. Throws `ToolError` with a message the model can act on
     * when the JSON is malformed or does not match the schema.
     */
    parseArguments(raw: string): z.output<Schema>;
    /** Longest a call may run, in ms; undefined: the session's default. */
    readonly timeoutMs: number | undefined;
    execute(args: z.output<Schema>, ctx: RunContext<UserData>): Result | Promise<Result>;
}
type AnyTool = Tool<z.ZodType, any, any>;
declare function tool<Schema extends z.ZodType = z.ZodObject<Record<string, never>>, Result = unknown, UserData = unknown>(options: ToolOptions<Schema, Result, UserData>): Tool<Schema, Result, UserData>;
/** What the model is told about each tool: the provider-facing half of `tool()`. */
declare function toolDefinitions(tools: readonly AnyTool[]): ToolDefinition[];

/**
 * Interruption detection, specification v1.
 *
 * While the agent speaks and the user makes a sound, the session pauses the agent (it never talks over
 * the user) and, once the user's speech reaches `minInterruptionDuration` (and `minInterruptionWords`),
 * asks the detector what it is hearing: a barge-in that cuts the agent, a backchannel ("mm-hmm",
 * "yeah", a cough) after which the agent resumes, or not enough yet. It asks again as more words come.
 * A committed user turn that was heard over the agent is asked once more as a whole: a backchannel
 * turn gets no reply of its own (it is skipped, visibly).
 *
 * `classify` is called on the session's hot path and must answer at once: a model-based detector runs
 * its inference ahead (on frames or transcripts it is fed) and answers from its latest state. It must
 * not throw; the session treats a throw as `interrupt`, the plain thresholds' answer.
 */
/** What the user has said over the agent's current speech step. */
interface InterruptionEvidence {
    /** The words heard over the step (interim or final), as recognized; '' before any word. */
    transcript: string;
    words: number;
    /** The user's speech over the step (VAD, or the recognizer without one), in ms. */
    speechMs: number;
    /** Whether the user is still speaking. */
    userSpeaking: boolean;
    /** BCP-47 language of the transcript, when known (the recognizer's, else the session's hint). */
    language: string | undefined;
}
/**
 * `interrupt`: cut the agent now. `backchannel`: the user acknowledges; the agent resumes as soon as they
 * stop. `undecided`: keep the agent paused and ask again with more evidence (or resume it after the
 * false-interruption timeout when nothing more comes).
 */
type InterruptionVerdict = 'interrupt' | 'backchannel' | 'undecided';
interface InterruptionDetector {
    readonly specificationVersion: SpecificationVersion;
    readonly label: string;
    classify(evidence: InterruptionEvidence): InterruptionVerdict;
}

/** How the session decides that the user has finished, and when the user may cut the agent off. All in ms. */
interface TurnHandlingOptions {
    /**
     * What ends a user turn: `vad` (silence after speech, refined by the turn detector when one is set),
     * `stt` (the recognizer's end of speech / final transcript), or `manual` (`commitUserTurn()` only).
     */
    turnDetection: 'vad' | 'stt' | 'manual';
    /** Silence after the last speech before a turn may be committed. */
    minEndpointingDelay: number;
    /** Longest wait after the last speech when the turn detector thinks the user is not done. */
    maxEndpointingDelay: number;
    /** User speech this long (VAD) can interrupt the agent. */
    minInterruptionDuration: number;
    /**
     * Words the user must have said before the agent is cut, on top of `minInterruptionDuration`; 0 means
     * no word requirement.
     */
    minInterruptionWords: number;
    /** After the user stops, how long a paused speech waits for words before it resumes. */
    falseInterruptionTimeout: number;
    /** Pause on user speech and resume if it was a false interruption, instead of cutting at once. */
    resumeFalseInterruption: boolean;
    /** Feed the STT silence (never the VAD) while an uninterruptible speech plays. */
    discardAudioIfUninterruptible: boolean;
    /**
     * Longest user turn, from its first speech, before the agent's `onUserTurnExceeded` decides what to do
     * (say something, answer what was said so far, or keep listening); `null`: no limit.
     */
    maxUserTurnDuration: number | null;
    /**
     * Tells backchannels ("mm-hmm", "yeah", a cough) from barge-ins while the agent speaks: a backchannel
     * resumes the agent at once and gets no reply. Default: a `LocalInterruptionDetector` (runs locally,
     * word lists for en/es/fr/de); `null`: the plain thresholds decide.
     */
    interruptionDetector: InterruptionDetector | null;
    /**
     * Start the LLM request on a final transcript while the turn is still being endpointed, and let the
     * reply use it if the turn commits with that text; it is discarded when the user goes on or the text
     * or the conversation changes. Saves up to the endpointing delay per reply, at the cost of requests
     * thrown away.
     */
    preemptiveGeneration: boolean;
}
declare const defaultTurnHandling: TurnHandlingOptions;
declare function resolveTurnHandling(options: Partial<TurnHandlingOptions> | undefined): TurnHandlingOptions;

/**
 * Keypad presses (DTMF) as session events. A phone caller's keys reach a voice agent through its
 * transport (a SIP participant in a LiveKit room, a keypad on a web page); the transport hands each one
 * to `session.receiveDtmf()` and the session emits `dtmf_received`, so agent code listens in one place
 * whatever the transport.
 */
/** What a transport knows about a key press. */
interface DtmfInput {
    /** The key: `0`-`9`, `*`, `#` or `A`-`D` (lower case is accepted). */
    digit: string;
    /** Its RFC 4733 event code; derived from `digit` when omitted. */
    code?: number;
    /** Who pressed it, when the transport knows (a LiveKit participant identity). */
    participantIdentity?: string;
}
/** The `dtmf_received` event. */
interface DtmfReceivedEvent {
    /** `0`-`9`, `*`, `#` or `A`-`D`. */
    digit: string;
    /** RFC 4733 event code: the digit's value, `*` 10, `#` 11, `A`-`D` 12-15. */
    code: number;
    participantIdentity: string | undefined;
    /** When the session received it, on the session's clock. */
    atMs: number;
}
/** The RFC 4733 event code of a DTMF key, or `undefined` when `digit` is not one. */
declare function dtmfCode(digit: string): number | undefined;
/** The key of an RFC 4733 event code (0-15), or `undefined` for any other number. */
declare function dtmfDigit(code: number): string | undefined;

type AgentState = 'initializing' | 'idle' | 'listening' | 'thinking' | 'speaking';
type ErrorSource = 'stt' | 'llm' | 'tts' | 'vad' | 'turn_detector' | 'tool' | 'audio_input' | 'audio_output' | 'session';
/** Per-turn and per-request measurements, all in ms. */
type SessionMetrics = {
    type: 'eou';
    turnId: string;
    /** From the end of the user's speech to the commit of the turn. */
    endOfUtteranceDelayMs: number;
    /** From the end of the user's speech to the final transcript. */
    transcriptionDelayMs: number | undefined;
} | {
    type: 'llm';
    speechId: string;
    label: string;
    ttftMs: number | undefined;
    durationMs: number;
    /** Completion tokens per second of generation after the first token, when usage is reported. */
    tokensPerSecond: number | undefined;
    usage: LLMUsage | undefined;
} | {
    type: 'tts';
    speechId: string;
    label: string;
    ttfbMs: number;
} | {
    type: 'turn';
    turnId: string;
    speechId: string;
    /** From the end of the user's speech to the first frame of the reply. */
    endToEndLatencyMs: number;
};
type SessionEvents = {
    user_state_changed: {
        oldState: UserState;
        newState: UserState;
        atMs: number;
    };
    agent_state_changed: {
        oldState: AgentState;
        newState: AgentState;
        atMs: number;
    };
    user_input_transcribed: {
        transcript: string;
        isFinal: boolean;
        language: string | undefined;
        atMs: number;
    };
    conversation_item_added: {
        item: ChatItem;
        atMs: number;
    };
    speech_created: {
        speechHandle: SpeechHandle;
        source: SpeechHandle['source'];
        atMs: number;
    };
    function_tools_executed: {
        speechId: string;
        functionCalls: FunctionCall[];
        functionCallOutputs: FunctionCallOutput[];
        atMs: number;
    };
    agent_false_interruption: {
        speechId: string;
        resumed: boolean;
        atMs: number;
    };
    metrics_collected: {
        metrics: SessionMetrics;
        atMs: number;
    };
    /** A keypad key the user pressed, delivered by the transport through `session.receiveDtmf()`. */
    dtmf_received: DtmfReceivedEvent;
    error: {
        error: unknown;
        source: ErrorSource;
        recoverable: boolean;
        atMs: number;
    };
    close: {
        reason: string;
        error: unknown;
        atMs: number;
    };
};

/** The task was awaited outside a session (no tool or agent hook is running). */
declare class TaskContextError extends VoxwireError {
    name: string;
}
/**
 * An agent that runs until it reaches a result, then hands control back to whoever awaited it. Awaited
 * inside a tool (`const email = await new GetEmailTask()`), it takes over the conversation; the tool's
 * speech stays uninterruptible meanwhile and the tool gets the result.
 */
declare class AgentTask<Result = unknown, UserData = unknown> extends Agent<UserData> implements PromiseLike<Result> {
    private settled;
    private resolveResult;
    private rejectResult;
    private started;
    constructor(options: AgentOptions);
    get completed(): boolean;
    /** Ends the task with a result, or with an error the awaiting tool will see. Later calls are ignored. */
    complete(result: Result | Error): void;
    then<R1 = Result, R2 = never>(onfulfilled?: ((value: Result) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): PromiseLike<R1 | R2>;
    private start;
}

/**
 * Audio and text I/O, specification v1: what a transport (a LiveKit room, the playground's socket, a
 * file) gives the session. The session reads user audio from an `AudioInput` and plays the agent's
 * audio into an `AudioOutput`, one segment per speech step.
 */

/** Where the user's audio comes from: any async sequence of frames (a room track, a socket, a file). */
type AudioInput = AsyncIterable<AudioFrame>;
/** What a `FramePushingInput` delivers its frames to. */
interface FrameReceiver {
    frame(frame: AudioFrame): void;
    /** The input ended: nothing follows. */
    end(): void;
    /** The input failed: nothing follows. */
    fail(error: unknown): void;
}
/**
 * An audio input that can also hand over each frame by callback, in the call that captured it. The
 * session subscribes instead of iterating when an input offers it: a frame then reaches the VAD without
 * a promise and a microtask of its own, which at 50 frames a second is a measurable share of a
 * simulated conversation. Subscribing must deliver the same frames, at the same times, as iterating
 * would. The returned function stops the delivery: after it, the receiver hears nothing more.
 */
interface FramePushingInput extends AsyncIterable<AudioFrame> {
    subscribeFrames(receiver: FrameReceiver): () => void;
}
interface PlaybackFinished {
    /** How much of the segment was actually heard, in ms. */
    playbackPositionMs: number;
    /** True when the segment was cut short by `clearBuffer()`. */
    interrupted: boolean;
}
/**
 * Where the agent's audio goes. The session sends one segment at a time: frames, then `flush()` (played to
 * the end) or `clearBuffer()` (stop now), and awaits `waitForPlayout()` for that segment.
 * Transports extend `AudioOutputBase` (from the core) rather than implementing this directly: it keeps
 * the segment bookkeeping.
 */
interface AudioOutput {
    /** Frames are resampled to this rate when set. */
    readonly sampleRate: number | undefined;
    /** Whether `pause()` / `resume()` hold playback (false interruptions need it). */
    readonly canPause: boolean;
    /** Queues a frame for playback. May wait (back-pressure) while the sink's buffer is full. */
    captureFrame(frame: AudioFrame): Promise<void>;
    /** Ends the current segment: it plays to the end, then its playout finishes. */
    flush(): void;
    /**
     * Drops whatever of the current segment has not been played yet; its playout finishes as interrupted.
     * It also ends a pause: the next segment starts playing as soon as it arrives.
     */
    clearBuffer(): void;
    pause(): void;
    resume(): void;
    /**
     * Resolves when the last ended segment has finished playing (or was cleared). When `signal` aborts
     * first, rejects with its reason and forgets the wait: the session gives up on a sink that never
     * reports, and such a wait must not be kept.
     */
    waitForPlayout(options?: {
        signal?: AbortSignal;
    }): Promise<PlaybackFinished>;
    /** Subscribes to playback start/finish of segments; returns an unsubscribe function. */
    onPlayback(listener: (event: PlaybackEvent) => void): () => void;
}
type PlaybackEvent = {
    type: 'playback_started';
} | ({
    type: 'playback_finished';
} & PlaybackFinished);
/**
 * Receives the agent's transcript in step with the audio actually played, and the user's transcripts.
 */
interface TextOutput {
    /** A piece of the agent's transcript that has just become audible. */
    captureText(text: string): void;
    /** The current agent message is complete (or was interrupted). */
    flush(): void;
}

/**
 * `session.input`: the user's audio. Listening can be turned off and on (push-to-talk, a mute button)
 * and the source swapped without restarting the session. Settings made before `start()` apply from the
 * start; `start({ input: { audio } })` sets the source.
 */
declare class SessionInput {
    private readonly assertOpen;
    private source;
    private enabled;
    private control;
    /** The source the session listens to, if any. Assign another to swap it (or `undefined` to detach). */
    get audio(): AudioInput | undefined;
    set audio(source: AudioInput | undefined);
    /** Whether the session listens to the source (true unless turned off). */
    get audioEnabled(): boolean;
    /**
     * Turns listening off or on. Off: frames are read and dropped, the user is `listening` at once (even
     * mid-word) and no endpointing runs on audio nobody hears; what was heard stays pending, so
     * `commitUserTurn()` answers it (push-to-talk) and `clearUserTurn()` drops it. On: listening resumes
     * with the next frame.
     */
    setAudioEnabled(enabled: boolean): void;
}
/**
 * `session.output`: where the agent's audio goes. Muted, the agent answers in text only: speech steps
 * that start while muted send no audio, their transcript still reaches the text output and the history,
 * and the agent state goes `thinking` -> `listening` without `speaking`. A step already playing when the
 * output is muted plays to its end (interrupt it to stop it now).
 */
declare class SessionOutput {
    private readonly assertOpen;
    private enabled;
    private control;
    /** The audio sink given to `start()`, if any. */
    get audio(): AudioOutput | undefined;
    get audioEnabled(): boolean;
    setAudioEnabled(enabled: boolean): void;
}

/** A recognizer that only handles finished utterances was given without a VAD to cut them. */
declare class MissingVADError extends VoxwireError {
    name: string;
}

/** No LLM is configured for the active agent or the session. */
declare class MissingProviderError extends VoxwireError {
    name: string;
}

/**
 * What happened in one run, in order: what the agent said, the tools it called and their outputs, and
 * changes of the agent in charge (a handoff, with its history item, or an AgentTask taking over and
 * handing back, which leave no item).
 */
type RunEvent = {
    type: 'message';
    role: string;
    content: string;
    interrupted: boolean;
    item: ChatItem;
} | {
    type: 'function_call';
    name: string;
    callId: string;
    arguments: string;
    item: ChatItem;
} | {
    type: 'function_call_output';
    name: string;
    callId: string;
    output: string;
    isError: boolean;
    item: ChatItem;
} | {
    type: 'agent_handoff';
    oldAgentId: string | undefined;
    newAgentId: string;
    /** `handoff`: a tool or `updateAgent()` handed over; `task`: an AgentTask took over or handed back. */
    via: 'handoff' | 'task';
    /** The history item of a handoff; undefined for an AgentTask. */
    item: ChatItem | undefined;
};
/** A failed expectation; the message shows the run's events around the cursor. */
declare class ExpectationError extends Error {
    name: string;
}
declare function describeEvent(event: RunEvent): string;
interface MessageExpectation {
    role?: string;
    content?: string | RegExp;
    interrupted?: boolean;
}
interface FunctionCallExpectation {
    name?: string;
    /** Matches when each given key equals the call's parsed argument (a subset match). */
    args?: Record<string, unknown>;
}
interface FunctionCallOutputExpectation {
    output?: string | RegExp;
    isError?: boolean;
    name?: string;
}
interface AgentHandoffExpectation {
    newAgentId?: string;
    via?: 'handoff' | 'task';
}
/** Assertions on one event of a run. Each returns the assertion, so checks chain. */
declare class EventAssert {
    readonly event: RunEvent;
    private readonly where;
    constructor(event: RunEvent, where: () => string);
    private fail;
    isMessage(expected?: MessageExpectation): this;
    isFunctionCall(expected?: FunctionCallExpectation): this;
    isFunctionCallOutput(expected?: FunctionCallOutputExpectation): this;
    isAgentHandoff(expected?: AgentHandoffExpectation): this;
}
/** A cursor over a run's events: `result.expect.nextEvent().isFunctionCall({ name })`. */
declare class RunAssert {
    private readonly events;
    private cursor;
    constructor(events: readonly RunEvent[]);
    private where;
    /** The event at `index` (negative counts from the end); the cursor does not move. */
    at(index: number): EventAssert;
    /** The next event (optionally of a type, skipping others before it). */
    nextEvent(type?: RunEvent['type']): EventAssert;
    skipNext(count?: number): this;
    noMoreEvents(): void;
    /** The first event of the run (anywhere) that passes `check`; the cursor does not move. */
    contains(check: (e: EventAssert) => void): EventAssert;
    containsMessage(expected?: MessageExpectation): EventAssert;
    containsFunctionCall(expected?: FunctionCallExpectation): EventAssert;
    containsFunctionCallOutput(expected?: FunctionCallOutputExpectation): EventAssert;
    containsAgentHandoff(expected?: AgentHandoffExpectation): EventAssert;
}
/** What `session.run()` returns: the run's events, and a fresh cursor over them at each `expect`. */
declare class RunResult {
    /** The run's events, the user's own input excluded. */
    readonly events: readonly RunEvent[];
    /** Every speech created during the run (the reply, a tool's `say`, an AgentTask's speeches). */
    readonly speeches: readonly SpeechHandle[];
    private cursor;
    constructor(
    /** The run's events, the user's own input excluded. */
    events: readonly RunEvent[], 
    /** Every speech created during the run (the reply, a tool's `say`, an AgentTask's speeches). */
    speeches: readonly SpeechHandle[]);
    /** Assertions over the events; the cursor is shared by every access of the same result. */
    get expect(): RunAssert;
}

interface RunOptions {
    /** What the user says, as text. */
    userInput: string;
    /** Give up after this long on the session's clock (rejecting with an `ExpectationError`). Default 60000. */
    timeoutMs?: number;
}

type UserState = 'listening' | 'speaking' | 'away';
interface CommittedTurn {
    turnId: string;
    transcript: string;
    /** Clock time when the user last spoke, when known (VAD or STT). */
    lastSpeechAtMs: number | undefined;
    committedAtMs: number;
    /** When the final transcript arrived, for the transcription-delay metric. */
    finalTranscriptAtMs: number | undefined;
    /** False when only an interim transcript was available at commit time. */
    transcriptFinal: boolean;
    /** Mean recognizer confidence (0..1) of the turn's finals, when every one of them reported it. */
    transcriptConfidence: number | undefined;
}
/** What `Agent.onUserTurnExceeded` is told about the turn that went on too long. */
interface UserTurnExceeded {
    /** What has been heard of the turn so far. */
    transcript: string;
    /** Since the turn's first speech. */
    durationMs: number;
    /** Whether the user is still speaking (else the turn waits for its end of turn). */
    userSpeaking: boolean;
}

interface AgentOptions {
    instructions: string;
    tools?: readonly AnyTool[];
    /** The conversation this agent starts with. A handoff copies the previous agent's when omitted. */
    chatCtx?: ChatContext;
    /** Per-agent providers override the session's. */
    stt?: STT;
    llm?: LLM;
    tts?: TTS;
    vad?: VAD;
    turnDetector?: TurnDetector;
    /** Shows up in handoff records and logs. Defaults to the class name plus a counter. */
    id?: string;
    /**
     * Whether the user may interrupt the speeches this agent creates (its replies to user turns, and the
     * `say()` / `generateReply()` calls made while it is in charge); a call's own `allowInterruptions`
     * overrides it. Default true.
     */
    allowInterruptions?: boolean;
}
/**
 * What the agent is: its instructions, tools and providers, and hooks for entering, leaving and for each
 * completed user turn. Subclass it and override the hooks.
 */
declare class Agent<UserData = unknown> {
    readonly id: string;
    instructions: string;
    tools: readonly AnyTool[];
    chatCtx: ChatContext;
    readonly stt: STT | undefined;
    readonly llm: LLM | undefined;
    readonly tts: TTS | undefined;
    readonly vad: VAD | undefined;
    readonly turnDetector: TurnDetector | undefined;
    /** The default `allowInterruptions` of the speeches this agent creates. */
    readonly allowInterruptions: boolean;
    constructor(options: AgentOptions);
    /** The session running this agent. Throws when the agent is not active. */
    get session(): AgentSession<UserData>;
    /** Called when the agent becomes active: a good place to greet (`this.session.generateReply()`). */
    onEnter(): Promise<void>;
    /** Called when another agent takes over or the session closes. */
    onExit(): Promise<void>;
    /**
     * Called when the user's turn is committed, before the reply is generated. Edit `chatCtx` (this turn's
     * copy) or `message`; throw `StopResponse` to skip the reply.
     */
    onUserTurnCompleted(_chatCtx: ChatContext, _message: ChatMessage): Promise<void>;
    /**
     * Called once per user turn that lasts `turnHandling.maxUserTurnDuration` (from its first speech)
     * without being committed. The default keeps listening. To take the turn: `this.session.say(...,
     * { allowInterruptions: false })` speaks over the user; `this.session.commitUserTurn()` answers what
     * was said so far (that reply is held while the user talks on, and cut if they go on long enough).
     */
    onUserTurnExceeded(_turn: UserTurnExceeded): Promise<void>;
}
/** Thrown from `onUserTurnCompleted` to answer nothing to this turn (the decision is logged). */
declare class StopResponse extends Error {
    name: string;
    constructor(message?: string);
}

interface AgentSessionOptions<UserData = unknown> {
    vad?: VAD;
    stt?: STT;
    llm?: LLM;
    tts?: TTS;
    turnDetector?: TurnDetector;
    /** Time source for every timer and timestamp. Default: the real clock. Tests pass a VirtualClock. */
    clock?: Clock;
    userData?: UserData;
    turnHandling?: Partial<TurnHandlingOptions>;
    /** LLM rounds per reply, counting the first. Default 3. */
    maxToolSteps?: number;
    /**
     * Longest a tool call may run, in ms, for tools without their own `timeoutMs`. A call that takes
     * longer returns a timeout error to the model and emits an `error` (source `tool`). Default: no limit.
     */
    toolTimeoutMs?: number;
    /** Mutual silence after which the user is `away`, in ms; `null` disables. Default 15000. */
    userAwayTimeout?: number | null;
    /** Longest `close()` may take, in ms. Default 5000. */
    closeTimeout?: number;
    /** How long an interrupted segment may take to report that playback stopped. Default 1000 ms. */
    interruptedPlayoutTimeout?: number;
    /** @deprecated Use `playoutGraceMs`. */
    playoutWatchdogSlack?: number;
    /**
     * Slack on top of the audio's own duration (counted from its first frame, pauses excluded) for the
     * audio output: a `captureFrame` that has not returned, or a playback-finished report that has not come,
     * by then is given up on (an `audio_output` error) and the agent listens again. Default 2000.
     */
    playoutGraceMs?: number;
    /** Longest wait for the first chunk of a reply step from the LLM, in ms. Default 15000. */
    llmFirstChunkTimeoutMs?: number;
    /** Longest gap between two chunks of a streaming LLM reply, in ms. Default 10000. */
    llmChunkTimeoutMs?: number;
    /**
     * Longest wait for a synthesis's first audio once it has all its text, in ms (before that it may wait
     * for more words). Default 10000.
     */
    ttsFirstAudioTimeoutMs?: number;
    /** Longest gap in a synthesis's audio once it has all its text, in ms. Default 5000. */
    ttsAudioTimeoutMs?: number;
    /**
     * Longest an STT stream may leave speech it was given unanswered (no final transcript) once the user
     * stopped (the VAD's end of speech), or after its last interim, in ms; it is then restarted with a
     * recoverable `stt` error. Nothing is owed while the user still speaks, nor for silence. Needs a VAD.
     * Default 10000.
     */
    sttResponseTimeoutMs?: number;
    /** Language hint for STT and the turn detector (BCP-47). */
    language?: string;
    /** Receives fine-grained records of what the session does (see `TraceRecord`). */
    onTrace?: TraceSink;
    /** Id generator; the default is deterministic per session so simulations replay exactly. */
    ids?: IdGenerator;
}
interface SessionStartOptions {
    agent: Agent;
    input?: {
        audio?: AudioInput;
    };
    output?: {
        audio?: AudioOutput;
        text?: TextOutput;
    };
}
interface SayOptions {
    /** Default: the `allowInterruptions` of the agent in charge (true unless the agent says otherwise). */
    allowInterruptions?: boolean;
    /** Add what was said to the conversation. Default true. */
    addToChatCtx?: boolean;
    /** Play this audio instead of synthesizing the text. */
    audio?: AsyncIterable<AudioFrame>;
}
interface GenerateReplyOptions {
    /** Text to add as a user message before replying. */
    userInput?: string;
    /** Extra instructions for this reply only. */
    instructions?: string;
    toolChoice?: ToolChoice;
    /** Default: the `allowInterruptions` of the agent in charge (true unless the agent says otherwise). */
    allowInterruptions?: boolean;
}
/**
 * A conversation between a user and an agent: audio in, turns, replies with tools, audio out. The parts
 * (input pipeline, turn tracker, interruption policy, speech scheduler, reply pipeline, tool runner) live
 * in their own modules; this facade holds the public API and its rules (closed sessions refuse calls).
 */
declare class AgentSession<UserData = unknown> extends TypedEmitter<SessionEvents> {
    readonly clock: Clock;
    readonly options: Readonly<AgentSessionOptions<UserData>>;
    readonly turnHandling: TurnHandlingOptions;
    /** Everything said and done in the conversation, across agents. */
    readonly history: ChatContext;
    /** The user's audio: turn listening off and on, swap the source. */
    readonly input: SessionInput;
    /** The agent's audio: mute it for text-only replies. */
    readonly output: SessionOutput;
    userData: UserData;
    private runtime;
    private closing;
    private closedFlag;
    constructor(options?: AgentSessionOptions<UserData>);
    get closed(): boolean;
    get userState(): UserState;
    get agentState(): AgentState;
    /** The agent currently in charge of the conversation. */
    get currentAgent(): Agent | undefined;
    /** The speech currently holding the audio output, if any. */
    get currentSpeech(): SpeechHandle | undefined;
    start(options: SessionStartOptions): Promise<void>;
    /** Speaks `text` (or streamed text, or given audio). Returns at once; await the handle for playout. */
    say(text: string | AsyncIterable<string>, options?: SayOptions): SpeechHandle;
    /** Asks the LLM for a reply now (optionally to `userInput`). */
    generateReply(options?: GenerateReplyOptions): SpeechHandle;
    /**
     * Runs one user turn given as text through the real session (no audio needed) and resolves, once the
     * conversation rests, with what it set off: messages, tool calls and outputs, handoffs and AgentTasks
     * taking over. The way to unit-test an agent: `result.expect.nextEvent().isFunctionCall({ name })`.
     * The turn is answered like a spoken one (`onUserTurnCompleted` runs, an AgentTask waiting for the
     * user takes it); a run that starts while an agent is being entered is answered by that agent.
     */
    run(options: RunOptions): Promise<RunResult>;
    /**
     * Interrupts the current and queued speeches. Without `force`, uninterruptible ones are left alone.
     * Resolves when the interrupted speeches have stopped.
     */
    interrupt(options?: {
        force?: boolean;
    }): Promise<void>;
    /** Ends the user's turn now (manual turn detection, push-to-talk). */
    commitUserTurn(): void;
    /** Discards what the user said since the last committed turn. */
    clearUserTurn(): void;
    /** Hands the conversation to another agent: the old one exits, the new one enters. */
    updateAgent(agent: Agent): Promise<void>;
    /**
     * For transports: the user pressed a keypad key (a SIP caller's DTMF tone). Emits `dtmf_received`,
     * stamped with the session's clock; works before `start()`, is ignored once the session is closed.
     * Throws a `RangeError` for a digit that is not a DTMF key (`0`-`9`, `*`, `#`, `A`-`D`).
     */
    receiveDtmf(input: DtmfInput): void;
    /**
     * Ends the session within `closeTimeout`: speeches are cut (a partly played reply is recorded as
     * interrupted), tools are cancelled, awaited tasks and speeches settle, streams close.
     */
    close(reason?: string): Promise<void>;
    private doClose;
    private createHandle;
    private requireRuntime;
    private assertOpen;
}

type AnySession = AgentSession<any>;
/** The transport's side of a session: spread it into `session.start()`. */
interface SessionIO {
    input: {
        audio?: AudioInput;
    };
    output: {
        audio?: AudioOutput;
        text?: TextOutput;
    };
}
type NoticeLevel = 'info' | 'warn' | 'error';
interface JobNotice {
    level: NoticeLevel;
    message: string;
}
/** What one conversation's agent code sees, whatever carries the audio. */
interface JobContext<Prewarmed = unknown> {
    readonly jobId: string;
    /** Which transport runs the job: `playground`, `console`, `livekit`... */
    readonly transport: string;
    /** What the definition's `prewarm()` returned in this process. */
    readonly prewarmed: Prewarmed;
    readonly logger: Logger;
    /** Aborted when the job is ending (the user left, the socket dropped, the process is stopping). */
    readonly signal: AbortSignal;
    /**
     * Connects a session to the transport and returns its audio input and audio/text outputs, to spread
     * into `session.start({ agent, ...ctx.connect(session) })`. The transport then shows the session's
     * events (transcripts, states, tools, metrics), and the job closes the session when it ends; when the
     * session closes by itself, the job ends. One session per job.
     */
    connect(session: AnySession): SessionIO;
    /** Tells the person in front of the transport something (the page shows it, the console prints it). */
    notify(message: string, options?: {
        level?: NoticeLevel;
    }): void;
    /** Runs when the job ends, after its session closed; bounded by the job's shutdown deadline. */
    addShutdownCallback(callback: (reason: string) => void | Promise<void>): void;
    /** Ends the job (e.g. the agent hung up). Returns at once; `signal` aborts. */
    shutdown(reason?: string): void;
}
/** Implemented by each transport (playground, console, LiveKit worker) to host jobs. */
interface JobTransport {
    readonly name: string;
    /** The user's audio in and the agent's outputs for this job's session. */
    io(): SessionIO;
    /** The entry connected its session: follow its events. */
    onSessionConnected?(session: AnySession): void;
    notify?(notice: JobNotice): void;
    /** The job ended (for any reason): release the connection. */
    onJobEnded?(reason: string): void;
}
interface JobOptions<Prewarmed> {
    definition: AgentDefinition<Prewarmed>;
    prewarmed: Prewarmed;
    transport: JobTransport;
    jobId?: string;
    logger?: Logger;
    clock?: Clock;
    /** Longest the end of a job may take (session close, then shutdown callbacks), in ms. Default 10000. */
    shutdownTimeoutMs?: number;
}
/** Runs `prewarm()` of a definition, or resolves `undefined` when it has none. */
declare function prewarmAgent<Prewarmed>(definition: AgentDefinition<Prewarmed>): Promise<Prewarmed>;
/**
 * One conversation on a transport: it runs the definition's `entry` with a `JobContext`, and ends once,
 * whichever comes first: the transport ends it, the entry fails, its session closes, or the agent calls
 * `ctx.shutdown()`. Ending closes the session, then runs the shutdown callbacks, within a deadline.
 */
declare class Job<Prewarmed = unknown> {
    private readonly options;
    readonly id: string;
    readonly context: JobContext<Prewarmed>;
    /** Resolves with the reason once the job has fully ended. */
    readonly ended: Promise<string>;
    private readonly controller;
    private readonly callbacks;
    private readonly clock;
    private readonly logger;
    private session;
    private ending;
    private resolveEnded;
    constructor(options: JobOptions<Prewarmed>);
    /** The connected session, once the entry has connected one. */
    get connectedSession(): AnySession | undefined;
    /** Runs the entry. A failing entry is reported to the transport and ends the job; this never rejects. */
    run(): Promise<void>;
    /** Ends the job; later calls return the same promise. */
    shutdown(reason?: string): Promise<void>;
    private connect;
    private notify;
    private end;
    /** Waits for `work` at most `ms`; failures and overruns are logged, never thrown. */
    private within;
}

/** Marks definitions across copies of this package (an agent file may load its own copy of the core). */
declare const DEFINITION_BRAND: unique symbol;
/**
 * What an agent file exports by default: how to prepare a process (`prewarm`, once per process, e.g.
 * loading a VAD model) and how to run one job (`entry`, once per conversation). The same file runs on
 * every transport: the local playground, the terminal console, the LiveKit worker.
 */
interface AgentDefinition<Prewarmed = unknown> {
    readonly [DEFINITION_BRAND]: true;
    /** Runs once per process before the first job; its result is `ctx.prewarmed` in every job. */
    prewarm?(): Promise<Prewarmed> | Prewarmed;
    /**
     * Runs one job: build an `AgentSession` and start it on the transport's audio and text, e.g.
     * `await session.start({ agent, ...ctx.connect(session) })`. The job goes on after `entry` returns,
     * until the user leaves, the connected session closes, or `ctx.shutdown()` is called.
     */
    entry(ctx: JobContext<Prewarmed>): Promise<void>;
}
interface AgentDefinitionInit<Prewarmed> {
    prewarm?(): Promise<Prewarmed> | Prewarmed;
    entry(ctx: JobContext<Prewarmed>): Promise<void>;
}
/**
 * Declares an agent file's contract; export the result as the file's default export.
 *
 * ```ts
 * export default defineAgent({
 *   prewarm: () => SileroVAD.load(),
 *   async entry(ctx) {
 *     const session = new AgentSession({ vad: ctx.prewarmed, stt, llm, tts });
 *     await session.start({ agent: new Agent({ instructions: 'Be brief.' }), ...ctx.connect(session) });
 *   },
 * });
 * ```
 */
declare function defineAgent<Prewarmed = undefined>(init: AgentDefinitionInit<Prewarmed>): AgentDefinition<Prewarmed>;
declare function isAgentDefinition(value: unknown): value is AgentDefinition;
/**
 * Finds the definition in a loaded agent module: its default export (also under CommonJS interop,
 * where it sits one level deeper). Throws an error that says how to fix the file.
 */
declare function agentDefinitionFromModule(module: unknown, fileName: string): AgentDefinition;

interface VirtualClockOptions {
    /** Virtual time at creation, in ms. Default 0. */
    startMs?: number;
    /**
     * When true (the default), the clock advances by itself whenever the host has no other work queued:
     * every promise chain has settled and only virtual timers remain. A simulated hour then runs in
     * milliseconds without anyone driving the clock.
     */
    autoAdvance?: boolean;
    /**
     * Receives whatever a timer callback throws, and the clock goes on. Without it the error escapes
     * like a host timer's would: as an uncaught exception under auto-advance, or as the rejection of
     * the `advance()` call that fired the timer.
     */
    onTimerError?: (error: unknown) => void;
    /**
     * Under auto-advance, how many timers may fire in one host macrotask. Each still fires only once every
     * microtask the one before it queued has run (promise chains settle between timers, as with one
     * timer per macrotask), but without a turn of the host's event loop in between: a simulation arms a
     * timer per audio frame, and the loop's turn costs more than the frame's work. Code that waits on the
     * host between steps of a chain (`process.nextTick`, `setImmediate`, real I/O) then sees up to this
     * many timers fire meanwhile instead of one. Default 1.
     */
    timersPerMacrotask?: number;
}
/**
 * Time that passes only when nothing else can run. Timers due at the same instant fire in the order they
 * were created, one per host macrotask (or several, see `timersPerMacrotask`), so every promise chain a
 * timer starts settles before the next timer fires: the order of events is a pure function of the
 * program, not of the machine's speed.
 *
 * "Nothing else can run" is judged from the host's queues: a task waiting on real I/O looks idle, so
 * keep real sockets and files out of code that runs on this clock.
 */
declare class VirtualClock implements Clock {
    private current;
    private seq;
    private heap;
    /** Timers in the heap that will still fire; the others are dead entries awaiting removal. */
    private live;
    private autoAdvance;
    private readonly onTimerError;
    private stepScheduled;
    private readonly timersPerMacrotask;
    /** Timers fired since the current host macrotask began. */
    private burst;
    private idleCheckScheduled;
    private idleWaiters;
    /** One closure for every step's host macrotask rather than one per timer. */
    private readonly stepBound;
    /**
     * Queued as a microtask after a timer ran: by the time it runs, the microtasks queued before it have,
     * and the tick it asks for runs only once the host has drained the microtask queue entirely.
     */
    private readonly afterMicrotasksBound;
    private readonly timerOwner;
    constructor(options?: VirtualClockOptions);
    now(): number;
    /** Number of timers still waiting to fire. */
    get pendingTimers(): number;
    /** Time of the next pending timer, or undefined when none. */
    nextTimerAt(): number | undefined;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    setTimer(ms: number, callback: () => void): TimerHandle;
    setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
    /** Stops or restarts automatic advancing. */
    setAutoAdvance(enabled: boolean): void;
    /**
     * Advances virtual time by `ms`, firing every timer due on the way (those exactly at the target
     * included) and letting the work each one starts settle before the next fires. Use with
     * `autoAdvance: false` for step-by-step tests. Rejects if a timer callback throws and there is no
     * `onTimerError`; time then stays at that timer's instant.
     */
    advance(ms: number): Promise<void>;
    /**
     * Resolves once no timer is pending and the work the last one started has settled. With auto-advance
     * that happens by itself; in manual mode, when `advance()` has run every timer or the last one is
     * cancelled. A repeating timer keeps the clock busy until it is cancelled.
     */
    whenIdle(): Promise<void>;
    private cancel;
    private scheduleStep;
    private step;
    private run;
    /** Checks for idleness after pending microtasks ran, since they may still schedule timers. */
    private checkIdleSoon;
    private resolveIdleWaiters;
    private peek;
    private compact;
    private push;
    private pop;
}

/** A sound for the background: a clip (mono or not, any rate; it loops) and its volume. */
interface BackgroundSound {
    /** Default: the built-in synthesized clip (a soft hum for ambient, soft ticks for thinking). */
    clip?: AudioFrameLike;
    /** 0..1, applied to the clip's own level. Default 0.5 for ambient, 0.7 for thinking. */
    volume?: number;
}
interface BackgroundAudioOptions {
    /** A loop under the whole conversation. `true` = the built-in hum. Default: none. */
    ambient?: BackgroundSound | boolean;
    /** A loop while the agent is `thinking` (LLM and tools). `true` = the built-in ticks. Default: none. */
    thinking?: BackgroundSound | boolean;
    /** How long the agent must be thinking before the thinking sound starts (quick replies stay quiet). Default 0. */
    thinkingDelayMs?: number;
    /** Fade-in of the thinking sound. Default 150. */
    thinkingFadeInMs?: number;
    /** Fade-out of the thinking sound when speech starts or thinking ends. Default 300. */
    thinkingFadeOutMs?: number;
    /** Fade-in of the ambient loop when the output starts. Default 500. */
    ambientFadeInMs?: number;
    /** Length of each background frame sent into silence (one per clock tick). Default 20. */
    frameMs?: number;
    /** Rate of the background frames when the sink announces none. Default 24000. */
    sampleRate?: number;
}
type BackgroundSoundName = 'ambient' | 'thinking';
/** The session as the background follows it: its clock, its agent state, its end. */
type BackgroundAudioSession = Pick<AgentSession, 'clock' | 'agentState' | 'on' | 'off'>;
/**
 * Ambient and "thinking" sound mixed into the session's audio output (optional; nothing plays unless a
 * sound is configured). The ambient loop plays in the silences and under the agent's speech; the
 * thinking loop fades in while the agent is `thinking` and fades out as its speech starts. Speech frames
 * are never delayed: they go straight to the sink with the background added in; background alone is
 * sent only while no speech holds the sink, a frame per tick of the session's clock.
 *
 * ```ts
 * const background = new BackgroundAudio(session, { ambient: { volume: 0.3 }, thinking: true });
 * await session.start({ agent, output: { audio: background.wrap(transportOutput) } });
 * ```
 * It stops when the session closes (or at `close()`).
 */
declare class BackgroundAudio {
    private readonly session;
    private readonly clock;
    private readonly ambient;
    private readonly thinking;
    private readonly thinkingDelayMs;
    private readonly thinkingFadeInMs;
    private readonly thinkingFadeOutMs;
    private readonly ambientFadeInMs;
    private readonly frameMs;
    private readonly sampleRate;
    private output;
    private ticker;
    private thinkingTimer;
    private closedFlag;
    private readonly onState;
    private readonly onClose;
    constructor(session: BackgroundAudioSession, options?: BackgroundAudioOptions);
    /**
     * The output to give the session: `sink` with the background mixed in. Call once, before `start()`.
     */
    wrap(sink: AudioOutput): AudioOutput;
    /** Current volume of a sound (0..1), or undefined when it is not configured. */
    volume(sound: BackgroundSoundName): number | undefined;
    /** Changes a sound's volume (0..1) from the next sample on. */
    setVolume(sound: BackgroundSoundName, volume: number): void;
    /** Background frames sent into silences, and clock ticks skipped because the sink was still busy. */
    get stats(): {
        gapFramesSent: number;
        gapTicksSkipped: number;
    };
    get closed(): boolean;
    /** Stops the background now; the wrapped output keeps passing speech through. Idempotent. */
    close(): void;
    private clip;
    private render;
    private follow;
}

/**
 * The two clips the core ships, synthesized on demand rather than stored: a few lines of arithmetic
 * replace binary assets, and there is no licence to track. Both are mono, loop without a click (every
 * tone has a whole number of cycles in the loop, the noise is cross-faded over the seam), and are
 * deterministic (a seeded generator), so tests can compare them sample by sample.
 */
interface SynthesizedClipOptions {
    /** Default 24000. */
    sampleRate?: number;
}
/** A soft room hum: mains-like tones under low-passed noise, breathing once per loop. About -30 dBFS. */
declare function synthesizedHum(options?: SynthesizedClipOptions): AudioFrame;
/**
 * A gentle "thinking" pattern: irregular soft key-like ticks (short decaying noise bursts), some in quick
 * runs, some after a pause, as someone typing a note. Peaks near -14 dBFS, silent between ticks.
 */
declare function synthesizedTicks(options?: SynthesizedClipOptions): AudioFrame;

/**
 * How long the session waits for each thing it depends on before it gives up on it. A missed deadline
 * is an `error` event of the provider's source; the step that waited ends and the session goes on.
 * All in ms.
 */
interface SessionDeadlines {
    llmFirstChunkTimeoutMs: number;
    llmChunkTimeoutMs: number;
    ttsFirstAudioTimeoutMs: number;
    ttsAudioTimeoutMs: number;
    sttResponseTimeoutMs: number;
    playoutGraceMs: number;
}
declare const defaultDeadlines: SessionDeadlines;
/**
 * The session's deadlines from its options: each one given, else the default. `playoutGraceMs` falls
 * back on the older `playoutWatchdogSlack`.
 */
declare function resolveDeadlines(options: Partial<SessionDeadlines> & {
    playoutWatchdogSlack?: number | undefined;
}): SessionDeadlines;

/**
 * Short acknowledgements per language (the primary subtag of a BCP-47 code). Multi-word entries are
 * phrases ("got it"); a transcript is a backchannel when it is made of these and nothing else.
 */
declare const DEFAULT_BACKCHANNELS: Readonly<Record<string, readonly string[]>>;
interface LocalInterruptionDetectorOptions {
    /** Acknowledgements per language; replaces the defaults of the languages it names. */
    backchannels?: Readonly<Record<string, readonly string[]>>;
    /** Language used when the transcript's is unknown or has no list. Default `en`. */
    fallbackLanguage?: string;
    /** A longer transcript is never a backchannel. Default 3 words. */
    maxBackchannelWords?: number;
    /**
     * Speech with no words at all (a recognizer that is failing, or none) cuts once it lasts this long;
     * shorter wordless sound (a cough, breathing, a laugh) never does. Default 2000 ms.
     */
    wordlessInterruptMs?: number;
}
/**
 * The local default: no model, no network. Wordless sound is a non-speech noise until it lasts
 * `wordlessInterruptMs`; a transcript made only of acknowledgements in its language ("mm-hmm", "yeah
 * right", "okay") is a backchannel; anything else, a question mark, or more than
 * `maxBackchannelWords` words is a barge-in. So "yeah" resumes the agent and "yeah but wait" cuts it,
 * one interim transcript later than the plain thresholds would.
 */
declare class LocalInterruptionDetector implements InterruptionDetector {
    readonly specificationVersion = "v1";
    readonly label = "local.backchannel-words";
    private readonly lists;
    private readonly fallback;
    private readonly maxWords;
    private readonly wordlessMs;
    constructor(options?: LocalInterruptionDetectorOptions);
    classify(evidence: InterruptionEvidence): InterruptionVerdict;
    /**
     * Whether the tokens are a sequence of acknowledgements of the language ("yeah", "i see"); `prefix`
     * when they end with the start of a phrase ("i" of "i see"), which more words may complete.
     */
    private match;
}

export { APIConnectionError, APIError, APIStatusError, APITimeoutError, type AddMessageOptions, Agent, type AgentDefinition, type AgentDefinitionInit, type AgentHandoff, type AgentHandoffExpectation, type AgentOptions, AgentSession, type AgentSessionOptions, type AgentState, AgentTask, AllProvidersFailedError, type AnyTool, AudioFrame, type AudioFrameLike, type AudioInput, type AudioOutput, AudioOutputTimeoutError, type AvailabilityChangedEvent, BackgroundAudio, type BackgroundAudioOptions, type BackgroundAudioSession, type BackgroundSound, type BackgroundSoundName, type ChatContent, ChatContext, type ChatItem, type ChatMessage, type ChatRole, type Clock, type CommittedTurn, type CopyOptions, DEFAULT_BACKCHANNELS, type DtmfInput, type DtmfReceivedEvent, type ErrorSource, EventAssert, ExpectationError, type FallbackAdapterEvents, type FallbackAdapterOptions, type FramePushingInput, type FrameReceiver, type FunctionCall, type FunctionCallExpectation, type FunctionCallOutput, type FunctionCallOutputExpectation, type GenerateReplyOptions, type ImageContent, type InterruptReason, type InterruptionDetector, type InterruptionEvidence, type InterruptionVerdict, InvalidAudioError, type JSONSchema, Job, type JobContext, type JobNotice, type JobOptions, type JobTransport, type LLM, LLMFallbackAdapter, type LLMFallbackAdapterOptions, LocalInterruptionDetector, type LocalInterruptionDetectorOptions, type LogLevel, type Logger, type LoggerOptions, type MessageExpectation, MissingProviderError, MissingVADError, type NoticeLevel, type ProviderAvailability, ProviderProblemError, RealClock, RunAssert, RunContext, type RunEvent, type RunOptions, RunResult, type STT, STTFallbackAdapter, type STTFallbackAdapterOptions, type SayOptions, SessionClosedError, type SessionDeadlines, type SessionEvents, type SessionIO, SessionInput, type SessionMetrics, SessionNotStartedError, SessionOutput, type SessionStartOptions, SpeechDeadlockError, SpeechHandle, SpeechInterruptedError, SpeechInterruptedReason, type SpeechOutcome, SpeechPriority, StopResponse, type SynthesizedClipOptions, type TTS, TTSFallbackAdapter, type TTSFallbackAdapterOptions, TaskContextError, type TextOutput, type TimedTraceRecord, type TimerHandle, type Tool, ToolError, type ToolOptions, ToolTimeoutError, type TraceRecord, type TraceSink, type TurnDetector, type TurnHandlingOptions, type UserState, type UserTurnExceeded, type VAD, VirtualClock, type VirtualClockOptions, VoxwireError, agentDefinitionFromModule, createLogger, defaultDeadlines, defaultLogger, defaultTurnHandling, defineAgent, describeEvent, dtmfCode, dtmfDigit, isAgentDefinition, messageText, prewarmAgent, realClock, resolveDeadlines, resolveTurnHandling, setDefaultLogger, silentLogger, synthesizedHum, synthesizedTicks, tool, toolDefinitions };
