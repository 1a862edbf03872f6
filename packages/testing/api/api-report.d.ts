import { AudioFrame, Agent, AgentSessionOptions, AgentSession, RunResult, FramePushingInput, Clock, FrameReceiver, LLM, TurnDetector, VAD, SessionDeadlines, TurnHandlingOptions, LocalInterruptionDetectorOptions, ChatItem, SessionMetrics, TimedTraceRecord } from '@voxwire/agents';
export { EventAssert, ExpectationError, RunAssert, RunEvent, RunResult, describeEvent } from '@voxwire/agents';
import { AudioOutputBase, LLMChatOptions, LLMStreamPart, StreamingSTT, STTStreamOptions, STTStream, StreamingTTS, TTSStream, SynthesizedAudio, BatchTTS, ConversationTurn, VADStream } from '@voxwire/agents/provider-utils';

/**
 * The simulated microphone speaks in codes: user speech segment `i` is a square wave whose amplitude
 * encodes `i`, silence is zeros. The fake VAD measures energy and the fake STT decodes which utterance
 * it is hearing, so both react to the audio the session actually routes to them.
 */
declare const SAMPLE_RATE = 16000;
/** Highest segment index that fits in 16-bit samples. */
declare const MAX_SEGMENT_CODE: number;
/** Peak amplitude above which a frame counts as voiced. */
declare const VOICE_THRESHOLD: number;
/** A frame of zeros. Cached: the session never writes into frames, so one object can be shared. */
declare function silentFrame(durationMs: number, sampleRate?: number): AudioFrame;
/** A voiced frame carrying `code` (the user speech segment index). */
declare function voicedFrame(code: number, durationMs: number, sampleRate?: number): AudioFrame;
/** Peak absolute sample value. */
declare function peakOf(frame: {
    data: Int16Array;
}): number;
/** The segment code a frame carries, or undefined for silence. */
declare function decodeSegment(frame: {
    data: Int16Array;
}): number | undefined;
/** Agent audio: a quieter constant tone, distinct from any user code. */
declare function agentFrame(durationMs: number, sampleRate?: number): AudioFrame;

interface RunTurnOptions {
    /** Give up after this long on the session's clock. Default 60000 ms. */
    timeoutMs?: number;
}
/**
 * Sends `userInput` as a user turn and waits until the conversation rests: `session.run({ userInput })`,
 * kept for the tests written before it existed.
 */
declare function runTurn(session: AgentSession, userInput: string, options?: RunTurnOptions): Promise<RunResult>;
/**
 * A started session without audio, for testing an agent's conversation logic with `session.run()`:
 * pass a real LLM, or a `FakeLLM` and a `VirtualClock` for deterministic tests.
 */
declare function createTextSession<UserData = unknown>(agent: Agent, options?: AgentSessionOptions<UserData>): Promise<AgentSession<UserData>>;

interface InputSegment {
    startMs: number;
    endMs: number;
}
interface FakeAudioInputOptions {
    clock: Clock;
    /** Voiced spans; segment `i` carries code `i`. */
    segments: readonly InputSegment[];
    /** Default 20 ms. */
    frameMs?: number;
    sampleRate?: number;
    /** The microphone closes at this time (the input ends). Default: never, until `stop()`. */
    endAtMs?: number;
    /** Sees the code of every frame delivered (undefined: silence). */
    onFrame?(code: number | undefined): void;
}
/**
 * A microphone on the virtual clock: one frame every `frameMs`, delivered when its audio has been
 * captured, silent outside the scripted speech and carrying the segment's code inside it.
 */
declare class FakeAudioInput implements FramePushingInput {
    private readonly options;
    private stopped;
    private delivered;
    constructor(options: FakeAudioInputOptions);
    get framesDelivered(): number;
    /** Ends the input after the frame in progress (a microphone unplugged, a track unpublished). */
    stop(): void;
    private badFrames;
    /** Sends one malformed frame (0 Hz, as a broken transport would) before the next regular one. */
    injectBadFrame(): void;
    [Symbol.asyncIterator](): AsyncIterator<AudioFrame>;
    /** The same frames at the same times as iterating, each handed over in its frame timer's callback. */
    subscribeFrames(receiver: FrameReceiver): () => void;
    private readonly control;
}
type OutputRecord = {
    type: 'output_frame';
    durationMs: number;
    first: boolean;
} | {
    type: 'output_overrun';
    aheadMs: number;
} | {
    type: 'output_paused';
    positionMs: number;
} | {
    type: 'output_resumed';
    positionMs: number;
} | {
    type: 'output_segment_end';
    how: 'flush' | 'clear';
    queuedMs: number;
} | {
    type: 'output_audio_end';
    positionMs: number;
    interrupted: boolean;
} | {
    type: 'output_playback_finished';
    positionMs: number;
    interrupted: boolean;
}
/** A frame the sink took and will never acknowledge (`captureFrame` never resolves). */
 | {
    type: 'output_capture_stalled';
    durationMs: number;
};
interface FakeAudioOutputOptions {
    clock: Clock;
    /** Audio the sink accepts ahead of playback before `captureFrame` waits. Default 200 ms. */
    bufferMs?: number;
    /** Whether `pause()` holds playback. Default true. */
    canPause?: boolean;
    /** Report playback finished late by this much. Default 0. */
    finishLagMs?: number;
    /** Never report playback finished (a broken sink). */
    neverFinish?: boolean;
    sampleRate?: number;
    onRecord?(record: OutputRecord): void;
}
/**
 * An audio sink that plays at real speed on the clock, with a bounded buffer (back-pressure), pause and
 * resume, and a playback report that can come late or never. It records every frame it receives.
 */
declare class FakeAudioOutput extends AudioOutputBase {
    private readonly options;
    readonly sampleRate: number | undefined;
    readonly canPause: boolean;
    /** Every captured frame, with the time it was received. */
    readonly frames: Array<{
        atMs: number;
        durationMs: number;
    }>;
    private queuedMs;
    private basePos;
    private baseAt;
    private paused;
    /** Between the first frame of a segment and its flush or clear. */
    private open;
    /** An ended segment whose audio has not finished playing. */
    private draining;
    private drainTimer;
    private pendingCaptures;
    /** Writers waiting for room, usually one: an array, as a Set's only member added and deleted per frame costs more. */
    private wakeCaptures;
    private maxAhead;
    private capturesStalledUntil;
    /** The current segment has a frame stuck in a write. */
    private stalledSegment;
    constructor(options: FakeAudioOutputOptions);
    /** Most audio ever queued ahead of playback, in ms. */
    get maxQueuedMs(): number;
    get isPaused(): boolean;
    /** `captureFrame` calls made in the next `durationMs` never resolve (a transport stuck in a write). */
    stallCaptures(durationMs: number): void;
    protected onCaptureFrame(frame: AudioFrame): Promise<void>;
    /** Holds the writer until the audio ahead of playback fits the buffer, or the segment ends. */
    private waitForRoom;
    protected onFlush(): void;
    protected onClearBuffer(): void;
    pause(): void;
    resume(): void;
    private position;
    private wake;
    private scheduleDrain;
    /** The segment's audio stopped (drained or cleared); report it as the sink is configured to. */
    private endAudio;
    private record;
}

/** Which requests a scripted reply answers. Every given field must match. */
interface ReplyMatch {
    /** The last conversation item is a user message containing this text (case-insensitive). */
    user?: string;
    /** The last conversation item is the output of this tool. */
    afterTool?: string;
    /** The system instructions contain this text (identifies the agent or a one-off instruction). */
    instructions?: string;
}
interface FakeToolCall {
    name: string;
    args?: Record<string, unknown>;
    /**
     * The call id the model gives. Default: a fresh `call_<n>`. Set it to play a model that numbers its
     * calls `call_0` every turn, or one that re-emits an earlier call.
     */
    id?: string;
}
interface FakeLLMError {
    /** After this much streaming time (from the request); 0 fails before the first token. */
    afterMs?: number;
    kind?: 'connection' | 'timeout' | 'status';
    statusCode?: number;
    message?: string;
}
/** One scripted answer of the model. */
interface LLMReply {
    match?: ReplyMatch;
    /** How many requests it may answer; unlimited when omitted. */
    times?: number;
    /** Time to first token. Default 300 ms. */
    ttftMs?: number;
    /** Time between text chunks (one word each). Default 40 ms. */
    tokenMs?: number;
    text?: string;
    toolCalls?: FakeToolCall[];
    /** Fail the request (after the text and tool calls streamed so far). */
    error?: FakeLLMError;
    /** Stream nothing more and never finish, until the request is aborted. */
    hang?: boolean;
    /** Stop streaming after this many words (a model that stalls mid-reply), until the request is aborted. */
    stallAfterWords?: number;
}
interface FakeLLMRequest {
    atMs: number;
    /** Index of the reply used in `replies`, or -1 for the default one. */
    reply: number;
    lastItem: string;
    toolCallIds: string[];
}
interface FakeLLMOptions {
    clock: Clock;
    replies: readonly LLMReply[];
    /** Used when no scripted reply matches. Default: a short text. */
    fallback?: LLMReply;
    /** Called when a tool call is handed to the session, and when a request fails. */
    onEvent?(event: {
        type: 'tool_call';
        callId: string;
        name: string;
        request: FakeLLMRequest;
    } | {
        type: 'error';
        message: string;
    } | {
        type: 'stall';
    } | {
        type: 'request';
        reply: number;
        lastItem: string;
        instructions: string;
    }): void;
    /** Called for every request as it is made. */
    onRequest?(request: FakeLLMRequest): void;
}
/**
 * A chat model that answers from a script: the reply is chosen by what the conversation ends with,
 * then streamed in time (time to first token, one word per `tokenMs`), tool calls after the text.
 * Outages make requests fail as a provider would, with typed, retryable errors.
 */
declare class FakeLLM implements LLM {
    private readonly options;
    readonly specificationVersion = "v1";
    readonly label = "fake.FakeLLM";
    readonly model = "scripted";
    readonly supportsToolCalls = true;
    /** Every request, in order. */
    readonly requests: FakeLLMRequest[];
    private readonly used;
    private outageUntil;
    private callSeq;
    private readonly inFlight;
    private stalledUntil;
    private readonly streaming;
    constructor(options: FakeLLMOptions);
    /**
     * Requests in flight stop streaming at their next chunk and never finish (until aborted); new ones
     * send nothing until `durationMs` has passed. No error is ever raised: the model just goes quiet.
     */
    stall(durationMs: number): void;
    /** Requests in flight fail now; new ones fail until `durationMs` has passed. */
    outage(durationMs: number): void;
    chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
    private stream;
    /** A stalled request: nothing more until it is aborted (false) or dropped by an outage (throws). */
    private hangUntilAborted;
    private sleepOrAbort;
    private fail;
    private pick;
}

/** What the fake recognizer knows about the utterance behind one segment code. */
interface FakeUtterance {
    transcript: string;
    /** Length of the spoken audio, so partial hearing yields partial text. */
    durationMs: number;
    /** From the last voiced audio heard to the final transcript. Default: the STT's `finalDelayMs`. */
    finalDelayMs?: number;
    /** The final transcript arrives empty (a recognizer that heard noise, or lost the words). */
    emptyFinal?: boolean;
    /** No final transcript at all for this utterance (only interims). */
    noFinal?: boolean;
    /**
     * From the last voiced audio to an eager end of turn (`preflight_transcript` of the final's text), when
     * shorter than the final's delay. Default: none.
     */
    preflightDelayMs?: number;
}
interface FakeSTTOptions {
    clock: Clock;
    /** Indexed by segment code. */
    utterances: readonly FakeUtterance[];
    /** Default delay from the end of voiced audio to the final transcript. Default 300 ms. */
    finalDelayMs?: number;
    /** Silence after which the recognizer considers the utterance over. Default 200 ms. */
    endSilenceMs?: number;
    /** Voiced audio between interim transcripts. Default 400 ms; 0 disables interims. */
    interimIntervalMs?: number;
    /** Latency of an interim transcript. Default 150 ms. */
    interimDelayMs?: number;
    /** Emit the recognizer's own start/end of speech events. Default false. */
    speechEvents?: boolean;
    language?: string;
    /** Sees every frame the session feeds, with the code it carries (undefined: silence). */
    onFrame?(code: number | undefined): void;
    /** A stream went quiet (see `stall()`): it takes audio but reports nothing any more. */
    onStall?(): void;
    queueCapacity?: number;
}
/**
 * A streaming recognizer that transcribes what it hears: it decodes which scripted utterance a voiced
 * frame belongs to, emits interims as the audio accumulates, and a final transcript of the part it
 * heard after the utterance ends. Fed silence, it hears nothing, as a real recognizer would.
 */
declare class FakeSTT implements StreamingSTT {
    readonly options: FakeSTTOptions;
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label = "fake.FakeSTT";
    /** Every common rate, so the session hands the fake microphone's frames over untouched. */
    readonly inputSampleRates: readonly number[];
    private readonly streams;
    private outageUntil;
    private stalledUntil;
    private framesTotal;
    constructor(options: FakeSTTOptions);
    get framesPushed(): number;
    stream(options: STTStreamOptions): STTStream;
    /** Drops every open connection; new ones fail until `outageMs` has passed. */
    disconnect(outageMs?: number): void;
    /**
     * Open streams go quiet for good: they take audio but never report anything again (a stalled socket);
     * new streams are quiet too until `durationMs` has passed.
     */
    stall(durationMs: number): void;
    /** @internal */
    countFrame(): void;
}

interface FakeTTSOptions {
    clock: Clock;
    /** Audio per character of text. Default 60 ms (about 2.5 words a second). */
    msPerChar?: number;
    /** Frame length of the produced audio. Default 20 ms. */
    frameMs?: number;
    /** Time to first byte of a stream or synthesis. Default 200 ms. */
    ttfbMs?: number;
    /** Synthesis time per ms of audio after the first byte. Default 0.2 (5x faster than real time). */
    realtimeFactor?: number;
    sampleRate?: number;
    /** Synthesis of text containing any of these fails (case-insensitive). */
    failOn?: readonly string[];
    onEvent?(event: {
        type: 'synthesis';
        text: string;
    } | {
        type: 'error';
        message: string;
    } | {
        type: 'stall';
    }): void;
}
/**
 * A speech synthesizer whose audio lasts in proportion to its text. Audio is produced on demand (the
 * consumer's pace bounds the buffer) after a time to first byte, faster than real time.
 */
declare class FakeTTS implements StreamingTTS {
    readonly options: FakeTTSOptions;
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label = "fake.FakeTTS";
    readonly sampleRate: number;
    readonly numChannels = 1;
    /** @internal */
    readonly streams: Set<FakeTTSStream>;
    private outageUntil;
    private stalledUntil;
    constructor(options: FakeTTSOptions);
    /** Streams in flight fail now; new ones fail until `durationMs` has passed. */
    outage(durationMs: number): void;
    /**
     * Streams in flight stop producing audio (no error: they go quiet until closed); new ones produce
     * none until `durationMs` has passed.
     */
    stall(durationMs: number): void;
    /** @internal */
    get stalling(): boolean;
    /** @internal */
    get down(): boolean;
    /** The same synthesizer seen as one that takes only whole texts (the session then cuts sentences). */
    asBatch(): BatchTTS;
    synthesize(text: string, options?: {
        signal?: AbortSignal;
    }): AsyncIterable<SynthesizedAudio>;
    stream(options?: {
        signal?: AbortSignal;
    }): TTSStream;
    /** @internal */
    error(message: string, status?: number): Error;
}
/**
 * One synthesis. Its audio is read through a plain iterator rather than an async generator: a reply
 * reads dozens of frames a second, and a generator's yield and await cost several promises each. A frame
 * of a block already synthesized is answered at once; only the wait for text or for the next block is
 * asynchronous. Calls made while one is in progress wait for it, as a generator's would.
 */
declare class FakeTTSStream implements TTSStream {
    private readonly owner;
    private readonly signal;
    private pending;
    private inputEnded;
    private closed;
    private dropped;
    /** @internal Produces nothing more (a synthesizer that went quiet). */
    stalled: boolean;
    /** Wakes the producer waiting for text. */
    private wake;
    /** Cuts a synthesis delay short: only close, abort and outages do. */
    private cut;
    private readonly onAbort;
    private readonly audio;
    private started;
    private finished;
    private first;
    private backlogMs;
    /** Frames of the block synthesized last that are still to be read. */
    private framesLeft;
    /** The last call answered a frame: the next one goes on from there. */
    private afterFrame;
    private inFlight;
    constructor(owner: FakeTTS, signal: AbortSignal | undefined);
    pushText(text: string): void;
    flush(): void;
    endInput(): void;
    close(): Promise<void>;
    drop(): void;
    [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio>;
    private nextAudio;
    private returnAudio;
    private after;
    private finish;
    private frame;
    private notify;
    private stopNow;
    private stopped;
    /** Sleeps on the clock; false when the stream was closed or aborted meanwhile. */
    private pause;
    /** Waits for text, synthesizes the next block and answers its first frame; done when there is no more. */
    private produce;
}

interface FakeTurnDetectorOptions {
    clock: Clock;
    /** Time a prediction takes. Default 50 ms. */
    latencyMs?: number;
    /** Probability returned when no rule matches. Default 0.9 (the user is done). */
    probability?: number;
    /** The last user message containing `text` (case-insensitive) gets `probability`. */
    rules?: ReadonlyArray<{
        text: string;
        probability: number;
    }>;
    /** Below this the end of turn is unlikely. Default 0.5. */
    threshold?: number;
}
/** An end-of-turn model with a scripted verdict and latency; outages make predictions fail. */
declare class FakeTurnDetector implements TurnDetector {
    private readonly options;
    readonly specificationVersion = "v1";
    readonly label = "fake.FakeTurnDetector";
    private outageUntil;
    constructor(options: FakeTurnDetectorOptions);
    outage(durationMs: number): void;
    unlikelyThreshold(): number;
    predictEndOfTurn(turns: readonly ConversationTurn[], options?: {
        signal?: AbortSignal;
    }): Promise<number>;
}

interface ScriptedVADOptions {
    /** Voiced audio needed before `start_of_speech`, in ms. Default 100. */
    minSpeechDurationMs?: number;
    /** Silence needed before `end_of_speech`, in ms. Default 500. */
    minSilenceDurationMs?: number;
    /** Analysis window; one `inference_done` per window. Default 20 ms. */
    windowMs?: number;
    /** Peak amplitude above which a window is voiced. */
    threshold?: number;
    /** Audio kept for the `frames` of speech events, in ms. Default 2000. */
    maxBufferedSpeechMs?: number;
    /** Events queued for a consumer that does not read them; beyond it the oldest are dropped (counted). */
    queueCapacity?: number;
    /** Sees whether each frame fed to the detector was voiced. */
    onFrame?(voiced: boolean): void;
}
/**
 * An energy VAD: it listens to the frames it is fed and decides speech the way a model-based detector
 * would, with an activation delay (minimum speech) and a release delay (minimum silence). Because it
 * hears real frames, a session that stops feeding it, or feeds it the wrong audio, is caught.
 */
declare class ScriptedVAD implements VAD {
    private readonly options;
    readonly specificationVersion = "v1";
    readonly label = "fake.ScriptedVAD";
    /** How often the detector reports, in ms of audio. */
    readonly windowMs: number;
    readonly minSilenceDurationMs: number;
    readonly minSpeechDurationMs: number;
    private readonly streams;
    private droppedTotal;
    private framesTotal;
    constructor(options?: ScriptedVADOptions);
    /** Events dropped because a consumer fell behind, over every stream. */
    get droppedEvents(): number;
    /** Frames pushed into every stream so far. */
    get framesPushed(): number;
    stream(options?: {
        signal?: AbortSignal;
    }): VADStream;
    /** Makes every open stream fail, as a crashed inference worker would. */
    fail(error?: unknown): void;
    /** @internal */
    countFrame(): void;
}

/**
 * A whole conversation as plain data: what the user says and when, how the providers behave in time,
 * what the tools do, which faults strike, and what the application calls. JSON in, JSON out, so a bug
 * report becomes a file that replays exactly. Every time is in ms from the start of the session.
 */
interface Scenario {
    name?: string;
    description?: string;
    session?: SessionSpec;
    /** Input frame length. Default 20 ms. */
    frameMs?: number;
    vad?: VADSpec;
    stt?: STTSpec;
    /** Without it, endpointing uses the minimum delay. */
    turnDetector?: TurnDetectorSpec;
    llm?: {
        replies?: ScenarioReply[];
        fallback?: LLMReply;
    };
    tts?: TTSSpec;
    output?: OutputSpec;
    /** The first one starts the session. Default: one agent named `assistant` with every tool. */
    agents?: AgentSpec[];
    tools?: ToolSpec[];
    tasks?: TaskSpec[];
    user?: UserSpeech[];
    actions?: SessionAction[];
    faults?: Fault[];
    /**
     * Close the session at this time. Default: once the conversation has been quiet for a while after
     * the last scripted moment (bounded by `settleTimeoutMs`).
     */
    endMs?: number;
    /** Longest wait for the conversation to settle after the last scripted moment. Default 60000. */
    settleTimeoutMs?: number;
    /** Fraction by which the seed varies provider latencies (0..1). Default 0: exact timings. */
    jitter?: number;
}
/** The session's deadlines (`llmFirstChunkTimeoutMs`, `playoutGraceMs`...): the session's defaults otherwise. */
interface SessionSpec extends Partial<SessionDeadlines> {
    /** `interruptionDetector` is set with the field below (a detector is not plain data). */
    turnHandling?: Partial<Omit<TurnHandlingOptions, 'interruptionDetector'>>;
    /**
     * `turnHandling.interruptionDetector`: the local default (absent, `'local'`, or its options), or
     * `'none'` for the plain thresholds.
     */
    interruptionDetector?: 'local' | 'none' | LocalInterruptionDetectorOptions;
    maxToolSteps?: number;
    /** The session's default limit for tools without their own `timeoutMs`. */
    toolTimeoutMs?: number;
    /** `null` disables. Default: the session's own default. */
    userAwayTimeout?: number | null;
    closeTimeout?: number;
    interruptedPlayoutTimeout?: number;
    playoutWatchdogSlack?: number;
}
interface VADSpec {
    minSpeechMs?: number;
    minSilenceMs?: number;
    windowMs?: number;
}
interface STTSpec {
    finalDelayMs?: number;
    endSilenceMs?: number;
    interimIntervalMs?: number;
    interimDelayMs?: number;
    speechEvents?: boolean;
}
interface TurnDetectorSpec {
    latencyMs?: number;
    probability?: number;
    rules?: Array<{
        text: string;
        probability: number;
    }>;
    threshold?: number;
}
interface TTSSpec {
    ttfbMs?: number;
    msPerChar?: number;
    frameMs?: number;
    realtimeFactor?: number;
    streaming?: boolean;
    failOn?: string[];
}
interface OutputSpec {
    bufferMs?: number;
    canPause?: boolean;
    finishLagMs?: number;
    neverFinish?: boolean;
}
/** A scripted model reply; `match.agent` selects replies by the agent (or task) making the request. */
type ScenarioReply = Omit<LLMReply, 'match'> & {
    match?: ReplyMatch & {
        agent?: string;
    };
};
interface UserSpeech {
    startMs: number;
    endMs: number;
    /** What the user says; '' for a noise the recognizer makes nothing of. */
    transcript: string;
    /** From the end of the speech to its final transcript. Default: the STT's. */
    sttDelayMs?: number;
    /**
     * From the end of the speech to the recognizer's eager end of turn (a `preflight_transcript` of the
     * same text), when it comes before the final. Default: none.
     */
    sttPreflightMs?: number;
    emptyFinal?: boolean;
    noFinal?: boolean;
}
type Greeting = {
    say: string;
    allowInterruptions?: boolean;
} | {
    generateReply: {
        instructions?: string;
        userInput?: string;
    };
};
interface AgentSpec {
    name: string;
    instructions?: string;
    /** Tool names; default every tool of the scenario. */
    tools?: string[];
    onEnter?: Greeting;
    /** `onEnter` starts this task (awaited in the background of the hook, as an agent asking for details). */
    onEnterTask?: string;
    /** User turns containing any of these get no reply (`StopResponse` in `onUserTurnCompleted`). */
    skipTurnsContaining?: string[];
    /** The agent's default for the speeches it creates (`new Agent({ allowInterruptions })`). */
    allowInterruptions?: boolean;
    /**
     * What `onUserTurnExceeded` does when a turn outlasts `turnHandling.maxUserTurnDuration`: say
     * something, commit the turn (answer what was said so far), or keep listening (the default).
     */
    onUserTurnExceeded?: {
        say: string;
        allowInterruptions?: boolean;
    } | 'commit' | 'listen';
}
/** An AgentTask awaited by a tool: it takes over the conversation until it completes. */
interface TaskSpec extends AgentSpec {
    /**
     * `user_turn` (default): completes with the next user turn's text (the turn gets no reply of its own);
     * `afterMs`: completes by itself after that long; `error`: completes with an error.
     */
    completeOn?: 'user_turn' | {
        afterMs: number;
    } | {
        error: string;
        afterMs?: number;
    };
    /** Result returned to the awaiting tool instead of the user's text. */
    result?: string;
    /**
     * With `completeOn: 'user_turn'`: the turn that completes the task is answered too (no `StopResponse`),
     * by the agent in charge once the task has handed the conversation back.
     */
    answerCompletingTurn?: boolean;
}
type ToolStep = {
    sleep: number;
} | {
    say: string;
    allowInterruptions?: boolean;
    wait?: boolean;
} | {
    disallowInterruptions: true;
} | {
    task: string;
} | {
    waitForPlayout: true;
} | {
    throw: string;
    toolError?: boolean;
};
interface ToolSpec {
    name: string;
    description?: string;
    steps?: ToolStep[];
    /** The tool's output. Default `"<name> done"`. */
    result?: string;
    /** Return this agent: the conversation is handed to it. */
    handoff?: string;
    /** Keep running when the speech is interrupted (sleeps ignore the cancellation signal). */
    ignoresCancellation?: boolean;
    /** The tool's `timeoutMs`. */
    timeoutMs?: number;
}
type SessionAction = {
    atMs: number;
    type: 'say';
    text: string;
    allowInterruptions?: boolean;
    addToChatCtx?: boolean;
} | {
    atMs: number;
    type: 'generate_reply';
    userInput?: string;
    instructions?: string;
    allowInterruptions?: boolean;
} | {
    atMs: number;
    type: 'interrupt';
    force?: boolean;
}
/** `handle.interrupt()` on the latest speech created (which may be done already). */
 | {
    atMs: number;
    type: 'interrupt_speech';
    force?: boolean;
} | {
    atMs: number;
    type: 'update_agent';
    agent: string;
} | {
    atMs: number;
    type: 'commit_user_turn';
} | {
    atMs: number;
    type: 'clear_user_turn';
} | {
    atMs: number;
    type: 'close';
    reason?: string;
}
/** `session.input.setAudioEnabled(enabled)`. */
 | {
    atMs: number;
    type: 'set_input_enabled';
    enabled: boolean;
}
/** `session.output.setAudioEnabled(enabled)`. */
 | {
    atMs: number;
    type: 'set_output_enabled';
    enabled: boolean;
}
/** `session.input.audio = another microphone` that goes on with the same script. */
 | {
    atMs: number;
    type: 'swap_input';
}
/** `session.run({ userInput })`: a text turn in the middle of the spoken conversation. */
 | {
    atMs: number;
    type: 'run_text';
    userInput: string;
};
type FaultTarget = 'llm' | 'tts' | 'stt' | 'vad' | 'turn_detector' | 'input' | 'bad_frame' | 'llm_stall' | 'tts_stall' | 'stt_stall' | 'capture_stall';
/**
 * `llm`/`tts`/`turn_detector`: requests in flight fail and new ones fail for `durationMs`; `stt`: the
 * connection drops (and cannot be reopened for `durationMs`); `vad`: the stream fails; `input`: the
 * microphone goes away for good; `bad_frame`: the microphone sends one malformed frame (0 Hz), then goes on.
 *
 * Hung providers, which never raise an error: `llm_stall`: requests in flight stop mid-stream and new
 * ones send nothing, for good; `tts_stall`: syntheses in flight stop producing audio and new ones produce
 * none; `stt_stall`: recognition streams take audio but never report again; `capture_stall`: the audio
 * sink's `captureFrame` never returns. Requests or streams opened after `durationMs` work again.
 */
interface Fault {
    atMs: number;
    target: FaultTarget;
    durationMs?: number;
}
/** The moment after which nothing more is scripted. */
declare function lastScriptedMs(scenario: Scenario): number;
/** Rejects scenarios that cannot be run, with a message naming the field. */
declare function validateScenario(scenario: Scenario): void;

interface GeneratorOptions {
    /** Most user speech segments. Default 7. */
    maxSegments?: number;
    /** Allow provider outages and dropped streams. Default true. */
    faults?: boolean;
    /** Allow scripted session calls (say, interrupt, handoff...). Default true. */
    actions?: boolean;
}
/** The word that identifies user segment `i` in transcripts ("s1z" is not a substring of "s10z"). */
declare function segmentTag(i: number): string;
/**
 * A random conversation from a seed: user speech that overlaps every phase of the agent's turn (thinking,
 * speaking, tools, tasks), tools of random duration with `say`, `disallowInterruptions()` and AgentTasks,
 * random provider latencies, sink behaviours and faults, and session calls at random times. The same seed
 * always gives the same scenario.
 */
declare function generateScenario(seed: number, options?: GeneratorOptions): Scenario;

/** Parameters the checker needs to judge a log; recorded first so a log can be judged on its own. */
interface SimConfig {
    frameMs: number;
    vad: {
        minSpeechMs: number;
        minSilenceMs: number;
        windowMs: number;
    };
    turnHandling: TurnHandlingOptions;
    interruptedPlayoutTimeoutMs: number;
    playoutWatchdogSlackMs: number;
    closeTimeoutMs: number;
    userAwayTimeoutMs: number | null;
    output: {
        bufferMs: number;
        canPause: boolean;
        finishLagMs: number;
        neverFinish: boolean;
    };
    tts: {
        msPerChar: number;
    };
    /** The session's deadlines. Absent from logs recorded before they existed: the defaults apply. */
    deadlines?: SessionDeadlines;
}
type Timed<T> = T & {
    atMs: number;
};
/** Public session events, made serializable (a SpeechHandle becomes its id, an error its name and message). */
type EventEntry = Timed<{
    src: 'event';
    type: 'user_state_changed';
    oldState: string;
    newState: string;
} | {
    src: 'event';
    type: 'agent_state_changed';
    oldState: string;
    newState: string;
} | {
    src: 'event';
    type: 'user_input_transcribed';
    transcript: string;
    isFinal: boolean;
} | {
    src: 'event';
    type: 'conversation_item_added';
    item: ChatItem;
} | {
    src: 'event';
    type: 'speech_created';
    speechId: string;
    source: string;
    allowInterruptions: boolean;
} | {
    src: 'event';
    type: 'function_tools_executed';
    speechId: string;
    callIds: string[];
    outputs: Array<{
        callId: string;
        output: string;
        isError: boolean;
    }>;
} | {
    src: 'event';
    type: 'agent_false_interruption';
    speechId: string;
    resumed: boolean;
} | {
    src: 'event';
    type: 'metrics_collected';
    metrics: SessionMetrics;
} | {
    src: 'event';
    type: 'error';
    source: string;
    recoverable: boolean;
    error: {
        name: string;
        message: string;
    };
} | {
    src: 'event';
    type: 'close';
    reason: string;
}>;
type TraceEntry = TimedTraceRecord & {
    src: 'trace';
};
/** What the simulation harness saw happen around the session. */
type SimRecord = {
    type: 'sim_config';
    config: SimConfig;
    scenario: string | undefined;
    seed: number;
} | {
    type: 'user_speech_start';
    segment: number;
    transcript: string;
    endMs: number;
} | {
    type: 'user_speech_end';
    segment: number;
} | {
    type: 'stt_fed_silence';
    segment: number;
} | {
    type: 'stt_fed_speech';
    segment: number;
} | {
    type: 'vad_fed_silence';
    segment: number;
} | (OutputRecord & {
    speechId: string | undefined;
})
/** `agent`: the scenario agent (or task) whose instructions the request carries. */
 | {
    type: 'llm_request';
    reply: number;
    lastItem: string;
    agent: string | undefined;
} | {
    type: 'llm_tool_call';
    callId: string;
    name: string;
    speechId: string | undefined;
} | {
    type: 'llm_error';
    message: string;
}
/** A provider went quiet without an error (a scripted hang or a stall fault). */
 | {
    type: 'provider_stall';
    target: 'llm' | 'tts' | 'stt';
} | {
    type: 'tts_synthesis';
    text: string;
} | {
    type: 'tts_error';
    message: string;
} | {
    type: 'fault';
    target: string;
    durationMs: number;
} | {
    type: 'action';
    action: string;
    detail?: string;
    speechId?: string;
} | {
    type: 'action_done';
    action: string;
    error?: string;
    speechId?: string;
    detail?: string;
} | {
    type: 'tool_step';
    callId: string;
    speechId: string;
    step: string;
    detail?: string;
} | {
    type: 'tool_say_done';
    callId: string;
    speechId: string;
    outcome: string;
} | {
    type: 'task_await_start';
    callId: string;
    speechId: string;
    taskId: string;
} | {
    type: 'task_await_end';
    callId: string;
    speechId: string;
    taskId: string;
    outcome: string;
} | {
    type: 'task_complete';
    taskId: string;
    result: string;
} | {
    type: 'turn_exceeded_hook';
    agent: string;
    decision: string;
    transcript: string;
} | {
    type: 'playout_waited';
    speechId: string;
    outcome: string;
} | {
    type: 'handle_interrupt_call';
    speechId: string;
    force: boolean;
    wasDone: boolean;
    returned: boolean;
    threw?: string;
} | {
    type: 'sim_timer_error';
    message: string;
} | {
    type: 'sim_close_timeout';
    waitedMs: number;
} | {
    type: 'sim_pending';
    what: string;
    detail: string;
} | {
    type: 'sim_end';
    simulatedMs: number;
    inputFrames: number;
    vadFrames: number;
    sttFrames: number;
    vadDroppedEvents: number;
    outputMaxQueuedMs: number;
};
type SimEntry = Timed<SimRecord & {
    src: 'sim';
}>;
/** One line of a conversation log: a session event, a session trace record, or a harness record. */
type LogEntry = EventEntry | TraceEntry | SimEntry;
type LogEntryType = LogEntry['type'];
type EntryOf<T extends LogEntryType> = Extract<LogEntry, {
    type: T;
}>;
declare function errorInfo(error: unknown): {
    name: string;
    message: string;
};
/**
 * Collects a session's events and trace records (and any harness records) into one time-ordered,
 * JSON-serializable log. Works on a real session too: pass `recorder.onTrace` as the session's
 * `onTrace` option and call `attach(session)` before `start()`.
 */
declare class LogRecorder {
    private readonly clock;
    readonly entries: LogEntry[];
    constructor(clock: Clock);
    readonly onTrace: (record: TimedTraceRecord) => void;
    sim(record: SimRecord): void;
    attach(session: AgentSession): void;
}
/** The log as canonical JSON: one entry per line, so diffs between runs are readable. */
declare function serializeLog(log: readonly LogEntry[]): string;

interface Violation {
    /** Stable invariant id: L1..L10, S1..S13 (see INVARIANTS). */
    id: string;
    message: string;
    /** Virtual time of the offending moment. */
    atMs: number;
    /** Indexes of the log entries involved. */
    entries: number[];
}
/** Used for logs that carry no `sim_config` (recorded from a real session). */
declare const DEFAULT_CONFIG: SimConfig;

/** The properties of ../shared/INVARIANTS.md that a log can decide, by stable id. */
declare const INVARIANTS: {
    readonly L1: "userState returns to listening within the VAD min silence after the last voiced frame";
    readonly L2: "every speech ends exactly once; an interrupted one ends within a bounded time";
    readonly L3: "the speech queue always moves";
    readonly L4: "no wait depends on input that may be discarded (endpointing always ends)";
    readonly L5: "every committed user turn is answered (its reply ended) in bounded time, or visibly skipped";
    readonly L6: "a paused speech is resumed or interrupted soon after the user stops";
    readonly L7: "close() completes within its deadline and leaves nobody waiting";
    readonly L8: "every function call gets exactly one output in the history";
    readonly L9: "turns are committed between min and max endpointing delay after the last speech";
    readonly L10: "waitForPlayout() resolves only once playout has actually stopped";
    readonly S1: "agentState is speaking exactly while frames reach the output";
    readonly S2: "nothing of an interrupted speech is heard or recorded after the interrupt";
    readonly S3: "an uninterruptible speech is cut only by a forced interrupt";
    readonly S4: "a tool awaiting an AgentTask is not cancelled by user audio; holds are counted; sibling tasks take turns; a finished task says nothing";
    readonly S5: "tool calls and outputs are recorded exactly once; no empty function_tools_executed";
    readonly S6: "at most one reply is audible per user turn";
    readonly S7: "an interruptible reply sends no frame while the user speaks";
    readonly S8: "the user is never away while a tool runs or the agent speaks";
    readonly S9: "interruptions need the minimum speech duration or word count";
    readonly S10: "one agent_false_interruption per pause; no resume without it";
    readonly S11: "a failure surfaces as an error event and never breaks later turns";
    readonly S12: "back-pressure or counted drops, never unbounded buffering";
    readonly S13: "every final transcript reaches the user message of its turn";
};
type InvariantId = keyof typeof INVARIANTS;
interface CheckOptions {
    /** Only these invariants. Default: all. */
    only?: readonly InvariantId[];
}
/**
 * Checks a conversation log against every invariant it can decide. Each violation names its invariant
 * and points at the log entries involved (by index). Logs without harness records (recorded from a real
 * session) are checked on what they contain.
 */
declare function checkInvariants(log: readonly LogEntry[], options?: CheckOptions): Violation[];
/** One line per violation, with the offending entries. */
declare function formatViolations(violations: readonly Violation[], log?: readonly LogEntry[]): string;

/** A known engine bug: violations matching it are counted and reported, not failed. */
interface KnownBug {
    id: string;
    invariant: string;
    /** Matched against the violation message. */
    pattern: RegExp;
    scenario?: string;
    diagnosis: string;
}
interface SeedOutcome {
    seed: number;
    violations: Violation[];
    /** Known bug ids matching every violation, when all of them are known. */
    known: string[] | undefined;
    simulatedMs: number;
}
interface FuzzOptions {
    seeds: number;
    from?: number;
    generator?: GeneratorOptions;
    known?: readonly KnownBug[];
    onSeed?(outcome: SeedOutcome): void;
}
interface FuzzReport {
    seeds: number;
    from: number;
    failures: SeedOutcome[];
    knownFailures: SeedOutcome[];
    simulatedMs: number;
    cpuMs: number;
    wallMs: number;
}
/** Which known bugs explain all of these violations (undefined when one is unexplained). */
declare function classify(violations: readonly Violation[], known: readonly KnownBug[]): string[] | undefined;
declare function runSeed(seed: number, options?: Pick<FuzzOptions, 'generator' | 'known'>): Promise<SeedOutcome>;
/** Runs generated scenarios for consecutive seeds; reports failures and speed. */
declare function fuzz(options: FuzzOptions): Promise<FuzzReport>;
/** Shrinks the scenario of a failing seed to a minimal one that still violates the same invariant(s). */
declare function shrinkSeed(seed: number, ids?: readonly string[], generator?: GeneratorOptions): Promise<Scenario>;

/** One scripted utterance over the agent's speech, and whether it should cut the agent. */
interface InterruptionProbe {
    transcript: string;
    durationMs: number;
    kind: 'backchannel' | 'noise' | 'barge_in';
}
/** A way of deciding interruptions, as the session options that configure it. */
interface InterruptionConfig {
    name: string;
    session: SessionSpec;
}
interface InterruptionReportRow {
    config: string;
    backchannels: number;
    /** Backchannels and noises that cut the agent (false cuts). */
    falseCuts: number;
    /** Backchannels that got a reply of their own after the agent's speech. */
    answeredBackchannels: number;
    noises: number;
    bargeIns: number;
    /** Barge-ins that did not cut the agent. */
    missedBargeIns: number;
    /** From the start of a barge-in to the cut, in ms (virtual time). */
    reactionMedianMs: number | undefined;
    reactionMaxMs: number | undefined;
    /** From the end of a backchannel to the agent resuming, in ms. */
    resumeMedianMs: number | undefined;
}
/** Acknowledgements, non-speech sounds and real barge-ins, at the lengths people say them. */
declare const DEFAULT_PROBES: readonly InterruptionProbe[];
declare const DEFAULT_INTERRUPTION_CONFIGS: readonly InterruptionConfig[];
/**
 * Says each probe over a long reply, under each config, on the simulation harness (virtual time, the
 * real session), and counts false cuts, missed barge-ins and the time a barge-in takes to cut.
 */
declare function interruptionReport(probes?: readonly InterruptionProbe[], configs?: readonly InterruptionConfig[]): Promise<InterruptionReportRow[]>;
/** The rows as a Markdown table. */
declare function formatInterruptionReport(rows: readonly InterruptionReportRow[]): string;

type Fields = Record<string, unknown>;
/**
 * Writes conversation logs by hand, for tests of the checker and for users who want to check logs of
 * their own making. Entries are stamped with the current time; `at()` moves it forward.
 */
declare class LogBuilder {
    readonly entries: LogEntry[];
    private now;
    constructor(config?: Partial<SimConfig>);
    at(ms: number): this;
    event(type: string, fields?: Fields): this;
    trace(type: string, fields?: Fields): this;
    sim(type: string, fields?: Fields): this;
    userState(newState: string, oldState?: string): this;
    agentState(newState: string, oldState?: string): this;
    /** A speech created, queued and granted the output at the current time. */
    speech(speechId: string, options?: {
        source?: string;
        allowInterruptions?: boolean;
        turnId?: string;
    }): this;
    /** `n` frames of `ms` each, one per frame duration from now, attributed to the speech. */
    frames(speechId: string, n: number, ms?: number): this;
    /** Ends the log like a finished simulation. */
    end(fields?: Fields): LogEntry[];
    private push;
}

/**
 * Engine bugs found by the simulator and reported to the core's maintainers. Fuzz runs count seeds that
 * fail only on these instead of failing; each has a minimal scenario under scenarios/known-bugs/.
 * Remove an entry once the engine is fixed: its scenario test then turns red as a reminder.
 */
declare const KNOWN_BUGS: readonly KnownBug[];
/**
 * Engine bugs the simulator found that are now fixed (their scenarios live on as regression tests
 * under scenarios/regressions/). Kept to document what each scenario guards.
 */
declare const FIXED_BUGS: ReadonlyArray<{
    id: string;
    invariant: string;
    scenario: string;
    diagnosis: string;
}>;

/**
 * A small seeded generator (sfc32 seeded through splitmix32), so that scenarios and latencies replay
 * exactly from a seed. Math.random is never used by this package: a run must be a function of its seed.
 */
declare class Rng {
    private a;
    private b;
    private c;
    private d;
    constructor(seed: number);
    /** Uniform in [0, 1). */
    next(): number;
    /** Integer in [min, max], both included. */
    int(min: number, max: number): number;
    /** True with probability `p`. */
    chance(p: number): boolean;
    pick<T>(items: readonly T[]): T;
    /** Picks by weight: `[[weight, value], ...]`. */
    weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T;
    /** Rounds to a multiple of `step` so generated scenarios stay readable. */
    ms(min: number, max: number, step?: number): number;
    /** A value within ±fraction of `value` (for latency jitter). */
    jitter(value: number, fraction: number): number;
}

interface SimulateOptions {
    /** Seeds latency jitter (when the scenario asks for it). Default 0. */
    seed?: number;
    /** Run the invariant checker on the log. Default true. */
    check?: boolean;
    /** Starts the session with this agent instead of the scenario's first one (rehearse your own agent). */
    agent?: () => Agent;
    /**
     * Endpoints with this detector (e.g. a real end-of-turn model) instead of the scenario's scripted
     * one; `turn_detector` outages then do not apply.
     */
    turnDetector?: TurnDetector;
}
interface SimulationResult {
    scenario: Scenario;
    seed: number;
    /** Every event, trace record and harness record, with its virtual time. */
    log: LogEntry[];
    /** Frames the output received, per speech id (`unattributed` for frames outside any speech). */
    framesBySpeech: Record<string, Array<{
        atMs: number;
        durationMs: number;
    }>>;
    /** The session's history at the end. */
    history: ChatItem[];
    violations: Violation[];
    /** Virtual time the conversation lasted. */
    simulatedMs: number;
}
/**
 * Runs the real `AgentSession` through a scenario on a `VirtualClock`, with fake providers that hear
 * the audio the session routes to them. The same scenario and seed always give the same log.
 */
declare function simulate(scenario: Scenario, options?: SimulateOptions): Promise<SimulationResult>;

interface TimelineOptions {
    /** Also show VAD inference, frames, metrics and other fine-grained records. Default false. */
    verbose?: boolean;
}
/** One readable line for a log entry, or undefined for entries not worth showing. */
declare function describeEntry(entry: LogEntry, verbose?: boolean): [string, string] | undefined;
/** The conversation as a readable timeline: who spoke when, states, speeches, tools, and violations. */
declare function formatTimeline(result: SimulationResult, options?: TimelineOptions): string;
/** Runs a scenario and returns its readable timeline (and the simulation result). */
declare function rehearse(scenario: Scenario, options?: SimulateOptions & TimelineOptions): Promise<{
    timeline: string;
    result: SimulationResult;
}>;

interface ShrinkOptions {
    /** Most candidate scenarios to try. Default 400. */
    maxAttempts?: number;
}
interface ShrinkResult {
    scenario: Scenario;
    attempts: number;
    /** Candidates that still failed, each one adopted. */
    steps: number;
}
/**
 * Greedy shrinking: adopt the first simpler variant that still fails, and start over from it, until no
 * variant fails or the attempts run out. `fails` decides what "still failing" means (usually: the same
 * invariant is violated).
 */
declare function shrinkScenario(scenario: Scenario, fails: (candidate: Scenario) => Promise<boolean>, options?: ShrinkOptions): Promise<ShrinkResult>;

export { type AgentSpec, type CheckOptions, DEFAULT_CONFIG, DEFAULT_INTERRUPTION_CONFIGS, DEFAULT_PROBES, type EntryOf, type EventEntry, FIXED_BUGS, FakeAudioInput, type FakeAudioInputOptions, FakeAudioOutput, type FakeAudioOutputOptions, FakeLLM, type FakeLLMError, type FakeLLMOptions, type FakeLLMRequest, FakeSTT, type FakeSTTOptions, FakeTTS, type FakeTTSOptions, type FakeToolCall, FakeTurnDetector, type FakeTurnDetectorOptions, type FakeUtterance, type Fault, type FaultTarget, type FuzzOptions, type FuzzReport, type GeneratorOptions, type Greeting, INVARIANTS, type InputSegment, type InterruptionConfig, type InterruptionProbe, type InterruptionReportRow, type InvariantId, KNOWN_BUGS, type KnownBug, type LLMReply, LogBuilder, type LogEntry, type LogEntryType, LogRecorder, MAX_SEGMENT_CODE, type OutputRecord, type OutputSpec, type ReplyMatch, Rng, type RunTurnOptions, SAMPLE_RATE, type STTSpec, type Scenario, type ScenarioReply, ScriptedVAD, type ScriptedVADOptions, type SeedOutcome, type SessionAction, type SessionSpec, type ShrinkOptions, type ShrinkResult, type SimConfig, type SimEntry, type SimRecord, type SimulateOptions, type SimulationResult, type TTSSpec, type TaskSpec, type TimelineOptions, type ToolSpec, type ToolStep, type TraceEntry, type TurnDetectorSpec, type UserSpeech, type VADSpec, VOICE_THRESHOLD, type Violation, agentFrame, checkInvariants, classify, createTextSession, decodeSegment, describeEntry, errorInfo, formatInterruptionReport, formatTimeline, formatViolations, fuzz, generateScenario, interruptionReport, lastScriptedMs, peakOf, rehearse, runSeed, runTurn, segmentTag, serializeLog, shrinkScenario, shrinkSeed, silentFrame, simulate, validateScenario, voicedFrame };
