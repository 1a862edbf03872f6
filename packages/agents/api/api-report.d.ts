import { z } from 'zod';

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
declare function isRetryableStatus(statusCode: number): boolean;
/**
 * A tool call failed in a way the LLM should hear about (bad arguments, a business rule). Its message
 * goes back to the model as the function call's output instead of crashing the turn.
 */
declare class ToolError extends VoxwireError {
    name: string;
}
/** The session is closed (or closing): the call cannot be honoured. */
declare class SessionClosedError extends VoxwireError {
    name: string;
    constructor(message?: string);
}
/** A speech handle was interrupted before it finished. */
declare class SpeechInterruptedError extends VoxwireError {
    name: string;
    constructor(message?: string);
}
/** Audio that cannot be used as given (wrong rate, channel count, or malformed buffer). */
declare class InvalidAudioError extends VoxwireError {
    name: string;
}
/** Sending on, or waiting for room in, a channel that was closed. */
declare class ChannelClosedError extends VoxwireError {
    name: string;
    constructor(channelName: string);
}
/** Every provider of a FallbackAdapter failed. */
declare class AllProvidersFailedError extends APIError {
    name: string;
    readonly errors: readonly unknown[];
    constructor(message: string, errors: readonly unknown[]);
}
declare function isAbortError(error: unknown): boolean;

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
    /** Inserts keeping time order; items with equal timestamps keep insertion order. */
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
    static fromJSON(json: {
        items: readonly ChatItem[];
    }): ChatContext;
    private lastTimestamp;
}
/** The text of a message's content, images left out. */
declare function messageText(message: ChatMessage): string;

/**
 * What a tool sees while it runs. The session engine provides the implementation.
 */
interface RunContext<UserData = unknown> {
    readonly userData: UserData;
    readonly functionCall: FunctionCall;
    /** Aborted when the speech this tool belongs to is interrupted (unless interruptions are disallowed). */
    readonly signal: AbortSignal;
    /** Makes the current speech uninterruptible for the rest of this tool's run. */
    disallowInterruptions(): void;
    /** Resolves when the speech this tool belongs to has stopped playing (ended or interrupted). */
    waitForPlayout(): Promise<void>;
}

type JSONSchema = Record<string, unknown>;
interface ToolOptions<Schema extends z.ZodType, Result, UserData> {
    /** Letters, digits, `_` and `-`, at most 64 characters (what every provider accepts). */
    name: string;
    description: string;
    /** A zod schema of the arguments; an object schema. Omit for a tool without arguments. */
    parameters?: Schema;
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
    execute(args: z.output<Schema>, ctx: RunContext<UserData>): Result | Promise<Result>;
}
type AnyTool = Tool<z.ZodType, any, any>;
declare function tool<Schema extends z.ZodType = z.ZodObject<Record<string, never>>, Result = unknown, UserData = unknown>(options: ToolOptions<Schema, Result, UserData>): Tool<Schema, Result, UserData>;

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
 * them before emitting `tool_call`, so the session never sees half an argument object.
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
} | {
    type: 'finish';
    reason: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';
};
interface LLMChatOptions {
    chatCtx: ChatContext;
    tools?: readonly AnyTool[];
    toolChoice?: ToolChoice;
    parallelToolCalls?: boolean;
    temperature?: number;
    signal?: AbortSignal;
    /** Provider-specific options passed through untouched. */
    extra?: Record<string, unknown>;
}
interface LLMCapabilities {
    toolCalls: boolean;
    parallelToolCalls?: boolean;
}
/**
 * A streaming chat model. Iteration throws a typed `APIError` on failure; aborting the signal ends the
 * stream quietly (iteration finishes) and releases the connection.
 */
interface LLM {
    readonly label: string;
    readonly model: string;
    readonly capabilities: LLMCapabilities;
    chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
    close?(): Promise<void>;
}

interface TimedWord {
    text: string;
    startTimeMs: number;
    endTimeMs: number;
    confidence?: number;
}
interface SpeechAlternative {
    text: string;
    language?: string;
    /** 0..1 when the provider reports it. */
    confidence?: number;
    /** Position in the stream's audio, in ms. */
    startTimeMs?: number;
    endTimeMs?: number;
    words?: TimedWord[];
}
/** What a speech-to-text stream reports, in order. */
type STTEvent = {
    type: 'start_of_speech';
} | {
    type: 'interim_transcript';
    alternatives: SpeechAlternative[];
}
/** A transcript the provider will not revise; one utterance may produce several. */
 | {
    type: 'final_transcript';
    alternatives: SpeechAlternative[];
} | {
    type: 'end_of_speech';
} | {
    type: 'recognition_usage';
    audioDurationMs: number;
};
interface STTCapabilities {
    /** True when the provider recognizes a live stream itself; false needs a VAD (StreamAdapter). */
    streaming: boolean;
    interimResults: boolean;
    /** True when the provider emits its own start/end of speech events. */
    speechEvents?: boolean;
}
interface STTStreamOptions {
    language?: string;
    signal?: AbortSignal;
}
/**
 * A live recognition stream. Iterating yields events; a fatal provider error ends iteration by throwing
 * an `APIError` (the session restarts the stream and reports the error).
 */
interface STTStream extends AsyncIterable<STTEvent> {
    pushFrame(frame: AudioFrame): void;
    /** Asks the provider to finalize what it has heard so far. */
    flush(): void;
    endInput(): void;
    close(): Promise<void>;
}
interface STT {
    readonly label: string;
    readonly capabilities: STTCapabilities;
    stream(options?: STTStreamOptions): STTStream;
    /** One-shot recognition of a finished utterance. Required when `capabilities.streaming` is false. */
    recognize?(frames: AudioFrame[], options?: STTStreamOptions): Promise<{
        type: 'final_transcript';
        alternatives: SpeechAlternative[];
    }>;
    close?(): Promise<void>;
}

/** One chunk of synthesized audio. */
interface SynthesizedAudio {
    frame: AudioFrame;
    /** Identifies the text segment (between flushes) this audio belongs to. */
    segmentId: string;
    /** True on the last chunk of a segment. */
    final: boolean;
    /** Text this chunk speaks, when the provider aligns it; lets transcripts follow the audio. */
    text?: string;
}
interface TTSCapabilities {
    /** True when the provider accepts text incrementally; false needs a sentence StreamAdapter. */
    streaming: boolean;
    /** True when chunks carry aligned `text`. */
    alignedTranscript?: boolean;
}
interface TTSStream extends AsyncIterable<SynthesizedAudio> {
    pushText(text: string): void;
    /** Marks the end of a segment: synthesize what was pushed without waiting for more text. */
    flush(): void;
    /** No more text: iteration ends after the last audio. */
    endInput(): void;
    close(): Promise<void>;
}
interface TTS {
    readonly label: string;
    readonly sampleRate: number;
    readonly numChannels: number;
    readonly capabilities: TTSCapabilities;
    synthesize(text: string, options?: {
        signal?: AbortSignal;
    }): AsyncIterable<SynthesizedAudio>;
    stream(options?: {
        signal?: AbortSignal;
    }): TTSStream;
    close?(): Promise<void>;
}

/**
 * Predicts from the conversation so far whether the user has finished their turn. The session waits the
 * minimum endpointing delay when the probability is at or above `unlikelyThreshold`, the maximum
 * otherwise.
 */
interface TurnDetector {
    readonly label: string;
    /** Below this probability the end of turn is unlikely; undefined when the language is unsupported. */
    unlikelyThreshold(language?: string): number | undefined;
    supportsLanguage(language?: string): boolean;
    /** Probability 0..1 that the user's turn is over. */
    predictEndOfTurn(chatCtx: ChatContext, options?: {
        signal?: AbortSignal;
    }): Promise<number>;
}

/**
 * Voice activity detection contract. Timestamps are positions in the audio pushed so far (ms of audio),
 * not wall-clock time, so results do not depend on how fast frames arrive.
 */
type VADEvent = {
    type: 'start_of_speech';
    /** Audio position where speech began (after min speech duration was confirmed). */
    timestampMs: number;
    speechDurationMs: number;
    silenceDurationMs: number;
    /** Prefix padding plus the speech so far. */
    frames: AudioFrame[];
} | {
    type: 'inference_done';
    timestampMs: number;
    /** Speech probability of the latest window, 0..1. */
    probability: number;
    /** Whether the detector considers the user to be speaking after this window. */
    speaking: boolean;
    speechDurationMs: number;
    silenceDurationMs: number;
    /** CPU time the inference took, for metrics. */
    inferenceDurationMs: number;
} | {
    type: 'end_of_speech';
    timestampMs: number;
    speechDurationMs: number;
    silenceDurationMs: number;
    /** The whole utterance (with prefix padding), bounded by the detector's max buffered speech. */
    frames: AudioFrame[];
};
interface VADStream extends AsyncIterable<VADEvent> {
    /** Feeds audio; any sample rate or frame length. Never blocks: the stream buffers boundedly. */
    pushFrame(frame: AudioFrame): void;
    /** No more audio will come: pending windows are processed, then iteration ends. */
    endInput(): void;
    /** Stops at once and releases resources; iteration ends. */
    close(): Promise<void>;
}
interface VADCapabilities {
    /** How often `inference_done` is emitted, in ms. */
    updateIntervalMs: number;
}
interface VAD {
    readonly label: string;
    readonly capabilities: VADCapabilities;
    /** Silence needed before `end_of_speech`, in ms. The session's liveness bounds derive from it. */
    readonly minSilenceDurationMs: number;
    /** Speech needed before `start_of_speech`, in ms. */
    readonly minSpeechDurationMs: number;
    stream(options?: {
        signal?: AbortSignal;
    }): VADStream;
}

/**
 * What a full channel does with one more item:
 * - `drop-oldest`: discard the oldest queued item (counted in `droppedCount`) and keep the new one;
 * - `drop-newest`: discard the new item (counted);
 * - `block`: `send()` waits for room (back-pressure); `trySend()` refuses.
 */
type OverflowPolicy = 'drop-oldest' | 'drop-newest' | 'block';
interface ChannelOptions {
    /** Maximum queued items. Must be at least 1. */
    capacity: number;
    overflow: OverflowPolicy;
    /** Shows up in error messages and metrics. */
    name?: string;
}
/**
 * A bounded single-consumer async queue: the one stream abstraction of the core. It never grows past
 * its capacity, never keeps a listener or a promise after close, and reports every drop.
 */
declare class Channel<T> implements AsyncIterable<T> {
    readonly capacity: number;
    readonly overflow: OverflowPolicy;
    readonly name: string;
    private buffer;
    private head;
    private receivers;
    private senders;
    private state;
    private failure;
    private dropped;
    constructor(options: ChannelOptions);
    /** Items waiting to be received. */
    get size(): number;
    /** Items discarded because the channel was full. */
    get droppedCount(): number;
    /** True once `close()` or `fail()` was called. Queued items may still be received. */
    get closed(): boolean;
    /**
     * Offers an item without waiting. Returns false when the item was not queued: the channel is closed,
     * or full under `drop-newest` / `block`.
     */
    trySend(item: T): boolean;
    /**
     * Sends an item. Under `block`, waits for room; under the drop policies it never waits. Rejects with
     * `ChannelClosedError` when the channel is closed (or closes while waiting), or with the signal's reason.
     */
    send(item: T, signal?: AbortSignal): Promise<void>;
    /** Receives the next item; `done` once the channel is closed and drained. Rejects if it failed. */
    receive(signal?: AbortSignal): Promise<IteratorResult<T>>;
    /** Ends the channel: queued items can still be received, then iteration finishes. */
    close(): void;
    /** Ends the channel with an error: receivers get it once the queue is drained. */
    fail(error: unknown): void;
    /** Closes and discards everything queued: for consumers that are gone. */
    dispose(): void;
    [Symbol.asyncIterator](): AsyncIterator<T>;
    private releaseWaiters;
    private admitBlockedSender;
    private shift;
}

/**
 * Fans one producer out to many consumers, each with its own bounded channel. A slow consumer drops
 * or blocks only itself (by its own policy); a consumer that stops iterating is unsubscribed, so
 * nothing is retained for it. This replaces `tee()`, whose branches buffer without bound.
 */
declare class Broadcast<T> {
    private readonly subscribers;
    private ended;
    subscribe(options: ChannelOptions): Channel<T>;
    unsubscribe(channel: Channel<T>): void;
    get subscriberCount(): number;
    /** Offers the item to every subscriber without waiting; subscribers that closed are dropped. */
    publish(item: T): void;
    close(): void;
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
     */
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    /** Calls `callback` once after `ms`. */
    setTimer(ms: number, callback: () => void): TimerHandle;
    /** Calls `callback` every `intervalMs` until cancelled. */
    setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}
declare function abortReason(signal: AbortSignal): unknown;
/** Shared by both clocks: a sleep is a timer plus an abort listener that is always removed. */
declare function sleepWithTimer(clock: Clock, ms: number, signal?: AbortSignal): Promise<void>;
/** The wall clock. The only place in the core that touches the host's timers. */
declare class RealClock implements Clock {
    now(): number;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    setTimer(ms: number, callback: () => void): TimerHandle;
    setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}
/** The process-wide real clock, used when no clock is injected. */
declare function realClock(): Clock;

interface VirtualClockOptions {
    /** Virtual time at creation, in ms. Default 0. */
    startMs?: number;
    /**
     * When true (the default), the clock advances by itself whenever the host has no other work queued:
     * every promise chain has settled and only virtual timers remain. A simulated hour then runs in
     * milliseconds without anyone driving the clock.
     */
    autoAdvance?: boolean;
}
/**
 * Time that passes only when nothing else can run. Timers due at the same instant fire in the order they
 * were created, one per host macrotask, so every promise chain a timer starts settles before the next
 * timer fires: the order of events is a pure function of the program, not of the machine's speed.
 */
declare class VirtualClock implements Clock {
    private current;
    private seq;
    private readonly heap;
    private autoAdvance;
    private stepScheduled;
    private idleWaiters;
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
     * Advances virtual time by `ms`, firing every timer due on the way and letting the work each one
     * starts settle before the next fires. Use with `autoAdvance: false` for step-by-step tests.
     */
    advance(ms: number): Promise<void>;
    /**
     * Resolves once no timer is pending and all work has settled (with auto-advance on), or at once if
     * nothing is pending. Useful to run a simulation to completion.
     */
    whenIdle(): Promise<void>;
    private scheduleStep;
    private step;
    private fireNext;
    private dropCancelledHead;
    private push;
    private pop;
}

/** Produces ids like `item_1`, `item_2`. Deterministic per generator, so simulations replay exactly. */
type IdGenerator = (prefix: string) => string;
declare function createIdGenerator(namespace?: string): IdGenerator;
/** Ids unique within the process, for objects created outside a session. */
declare function processId(prefix: string): string;

export { APIConnectionError, APIError, type APIErrorOptions, APIStatusError, APITimeoutError, type AddMessageOptions, type AgentHandoff, AllProvidersFailedError, type AnyTool, AudioFrame, type AudioFrameLike, Broadcast, Channel, ChannelClosedError, type ChannelOptions, type ChatContent, ChatContext, type ChatItem, type ChatMessage, type ChatRole, type Clock, type CopyOptions, type FunctionCall, type FunctionCallOutput, type IdGenerator, type ImageContent, InvalidAudioError, type JSONSchema, type LLM, type LLMCapabilities, type LLMChatOptions, type LLMStreamPart, type LLMUsage, type OverflowPolicy, RealClock, type RunContext, type STT, type STTCapabilities, type STTEvent, type STTStream, type STTStreamOptions, SessionClosedError, type SpeechAlternative, SpeechInterruptedError, type SynthesizedAudio, type TTS, type TTSCapabilities, type TTSStream, type TimedWord, type TimerHandle, type Tool, type ToolChoice, ToolError, type ToolOptions, type TurnDetector, type VAD, type VADCapabilities, type VADEvent, type VADStream, VirtualClock, type VirtualClockOptions, VoxwireError, abortReason, createIdGenerator, isAbortError, isRetryableStatus, messageText, processId, realClock, sleepWithTimer, tool };
