/**
 * An AbortController that also aborts when `parent` does. `dispose()` removes the listener on the parent,
 * so a long-lived parent (a session's signal) does not collect one listener per provider call.
 */
interface LinkedController {
    readonly signal: AbortSignal;
    abort(reason?: unknown): void;
    /** Detaches from the parent. Idempotent; the controller itself stays as it is (aborted or not). */
    dispose(): void;
}
declare function linkedController(parent?: AbortSignal): LinkedController;
/**
 * Waits for `promise`, but gives up as soon as `signal` aborts (rejecting with its reason). The abort
 * listener is removed as soon as either side settles, so racing many calls against one long-lived signal
 * leaves nothing behind. The promise itself is not cancelled: abort the work it stands for separately.
 */
declare function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T>;

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
declare function abortReason(signal: AbortSignal): unknown;
/** The wall clock. The only place in the core that touches the host's timers. */
declare class RealClock implements Clock {
    now(): number;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
    setTimer(ms: number, callback: () => void): TimerHandle;
    setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle;
}
/** The process-wide real clock, used when no clock is injected. */
declare function realClock(): Clock;

interface IdleTimeoutOptions {
    /** Where the waits are measured. */
    clock: Clock;
    /** The longest wait for the next item once the first one came, in ms. `Infinity` disables it. */
    idleTimeoutMs: number;
    /**
     * The longest wait for the first item, in ms: time to first byte, often longer than the gaps of a
     * running stream (a model thinking before its first token). Defaults to `idleTimeoutMs`.
     */
    firstItemTimeoutMs?: number;
    /** The caller's signal: aborting ends the iteration quietly and aborts the work. */
    signal?: AbortSignal;
    /** Names the call in the timeout error, e.g. `cartesia.TTS(sonic-2)`. */
    label?: string;
}
/**
 * Streams what `source` yields, failing with `APITimeoutError` (retryable) when an item takes longer
 * than allowed: the source's signal is then aborted (with that error as its reason) and the iteration
 * throws at once, even when the source ignores its signal. The clock runs only while waiting for the
 * source, never while the caller works on an item, so a slow consumer is not taken for a stalled
 * server. No timer and no listener outlive the iteration, however it ends.
 *
 * A caller's abort ends the iteration quietly. Inside `retryBeforeFirstItem`, a stall before the first
 * item is retried like any retryable error.
 */
declare function withIdleTimeout<T>(source: (signal: AbortSignal) => AsyncIterable<T>, options: IdleTimeoutOptions): AsyncGenerator<T, void, undefined>;

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

/**
 * How a `ReplayBuffer` learns that the provider no longer needs something:
 * - `acknowledged`: only through `acknowledge()`, as the provider confirms what it processed (a
 *   transcript up to an audio position, a synthesis that finished). Whatever had to leave the buffer
 *   unacknowledged counts as lost;
 * - `window`: the buffer simply keeps the most recent data (the last seconds of audio); what leaves it
 *   after reaching a provider is assumed processed. Only data that never reached one counts as lost.
 */
type ReplayMode = 'acknowledged' | 'window';
interface ReplayBufferOptions {
    /** The most data kept, in the unit of the sizes given to `push` (ms of audio, or items). At least 0. */
    capacity: number;
    /** The most entries kept, whatever their size. Default 1_000. */
    maxEntries?: number;
    /** Default `window`. */
    mode?: ReplayMode;
}
/**
 * What was sent on a connection the provider may not have processed yet, kept to be sent again on the
 * next one. Every item has a size (ms of audio, 1 per message, 0 for control messages) and positions
 * are running sums of sizes: `push` returns the position after the item, `acknowledge(position)`
 * drops everything that ends there or before. Bounded by `capacity` and `maxEntries`: the oldest
 * entries leave first, and what they carried is accounted for by `takeLost()`.
 */
declare class ReplayBuffer<T> {
    readonly capacity: number;
    readonly maxEntries: number;
    readonly mode: ReplayMode;
    private entries;
    private head;
    private kept;
    private end;
    private acked;
    /** Where the data not yet reported lost begins (acknowledged mode). */
    private accountedUntil;
    /** Data that left before reaching any provider, not yet reported (window mode). */
    private undeliveredLost;
    constructor(options: ReplayBufferOptions);
    /** The position after everything pushed so far. */
    get position(): number;
    /** The highest position acknowledged (in `window` mode, also what aged out after delivery). */
    get acknowledged(): number;
    /** Where the kept entries start: a replay begins here. Equals `position` when nothing is kept. */
    get start(): number;
    /** Entries kept. */
    get length(): number;
    /** Total size kept. */
    get size(): number;
    /**
     * Keeps `item` and returns the position after it. `delivered` says whether it is also being sent on
     * a live connection right now. The oldest entries leave when the bounds are exceeded, this one too if
     * it cannot fit at all.
     */
    push(item: T, size: number, delivered: boolean): number;
    /** The provider processed everything up to `position`: what ends there or before is dropped. */
    acknowledge(position: number): void;
    /** The kept items, oldest first, now marked delivered: they are about to be sent again. */
    replay(): T[];
    /**
     * How much data can no longer reach a provider, since the last call: in `acknowledged` mode all that
     * left unacknowledged, in `window` mode what left before it was ever delivered. Called when a new
     * connection starts, so each loss is reported once.
     */
    takeLost(): number;
    /** Forgets everything kept (the stream is over). Positions stay. */
    clear(): void;
    private evict;
    private drop;
}

/** Exponential backoff between attempts of a provider call. Durations in ms. */
interface RetryPolicy {
    /** Attempts after the first one; 0 means a single attempt. */
    maxRetries: number;
    /** Delay before the first retry. */
    initialDelayMs: number;
    /** Upper bound of the backoff delays, jitter included (a server's `retry-after` may ask for more). */
    maxDelayMs: number;
    /** Growth factor of the delay from one retry to the next. */
    multiplier: number;
    /**
     * Fraction (0..1) of each delay that is randomized downwards, so that many clients failing together do
     * not retry in lockstep. 0 gives the exact exponential schedule.
     */
    jitter: number;
    /**
     * The longest wait a server may ask for (`retry-after`, `retry-after-ms`) and still be honoured; such
     * a wait may exceed `maxDelayMs`. A server asking for more is not retried at all: waiting that long
     * would stall a live conversation, and retrying sooner would only be refused again, so the error
     * surfaces at once and the session (or a FallbackAdapter) can act on it. Default 30_000.
     */
    maxRetryAfterMs: number;
}
declare const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy>;
/**
 * Fills the gaps of a partial policy from `defaults` (a plugin's own, say) and then the core's
 * defaults, and rejects values that make no sense. Fields set to `undefined` count as gaps.
 */
declare function resolveRetryPolicy(policy?: Partial<RetryPolicy>, defaults?: Partial<RetryPolicy>): RetryPolicy;
/**
 * The delay before retry number `attempt` (1 for the first retry), in whole ms. `random` returns values
 * in [0, 1); pass a seeded one to make schedules reproducible.
 */
declare function retryDelayMs(policy: Partial<RetryPolicy>, attempt: number, random?: () => number): number;
/**
 * The delay before retry number `attempt` when the server may have said how long to wait: the longer
 * of the policy's backoff and `retryAfterMs`. `undefined` means "do not retry": the server asked for
 * more than `policy.maxRetryAfterMs` (see there why that is not shortened).
 */
declare function delayBeforeRetryMs(policy: Partial<RetryPolicy>, attempt: number, retryAfterMs: number | undefined, random?: () => number): number | undefined;
/** How `withRetry` and `retryBeforeFirstItem` decide on, wait for and report retries. */
interface RetryOptions {
    policy?: Partial<RetryPolicy>;
    /** Where the delays are waited; the real clock by default. */
    clock?: Clock;
    /** Aborting stops at once: a pending delay ends and nothing is retried. */
    signal?: AbortSignal;
    /** Told of each retry before its delay, as `{ type: 'retrying', attempt, delayMs, error }`. */
    onProblem?: (problem: ProviderProblem) => void;
    /** Called before each delay, with the retry number (1-based) that follows it. */
    onRetry?(error: unknown, attempt: number, delayMs: number): void;
    /** Replaces the default test: an `APIError` with `retryable: true`. */
    isRetryable?(error: unknown): boolean;
    /**
     * How long, in ms, the server asked to wait after `error`, or `undefined` when it did not say. By
     * default `retryAfterFromError`: the error's `retryAfterMs`, or the `retry-after` headers of the HTTP
     * response it (or its cause) carries.
     */
    retryAfterMs?(error: unknown): number | undefined;
    /** Source of jitter, [0, 1). */
    random?: () => number;
}
/** The options of `withRetry`; the same as every retry helper takes. */
type WithRetryOptions = RetryOptions;
declare function isRetryableError(error: unknown): boolean;
/**
 * Calls `fn` until it succeeds, the error is not retryable, or the policy's retries are spent; then
 * rethrows the last error. `attempt` is 0 on the first call. An abort rejects with the signal's reason.
 */
declare function withRetry<T>(fn: (attempt: number, signal: AbortSignal) => Promise<T>, options?: RetryOptions): Promise<T>;

/**
 * One live duplex connection to a provider, as the plugin's `connect` builds it (over a WebSocket,
 * usually through `openWebSocket`). The core has no network code: this is all it needs to know.
 */
interface SocketConnection<Out, In> {
    /** Sends one message. May throw once the connection is going down; the message is then replayed. */
    send(message: Out): void;
    /** Closes the connection; `messages` then ends. Idempotent. */
    close(code?: number, reason?: string): void;
    /**
     * What the provider sends. Ends when the connection closed normally; throws when it broke, with an
     * `APIError` whose `retryable` says whether reconnecting can help (a rejected API key cannot).
     */
    readonly messages: AsyncIterable<In>;
}
/** Given to `connect`, about the connection being made. */
interface ConnectInfo {
    /**
     * The position the replay on this connection starts from: what the provider's own clock calls 0 (its
     * transcript timestamps restart with each connection). Final once the connection is open, before its
     * first message is read, so read it when handling messages rather than in `connect` itself.
     */
    readonly resumeFrom: number;
}
interface ReplayOptions {
    /**
     * The most unacknowledged data kept to be sent again, in the unit of `send`'s `size`. Default 10_000:
     * ten seconds of audio, or 10_000 items.
     */
    capacity?: number;
    /** The most messages kept, whatever their size. Default 1_000. */
    maxMessages?: number;
    /** See `ReplayMode`. Default `window`. */
    mode?: ReplayMode;
    /**
     * What sizes measure: `ms` of audio (the default; a `send` without a size weighs 0), reported as
     * `audio_dropped` when lost, or `items` (a `send` weighs 1 by default), reported as a `warning`.
     */
    unit?: 'ms' | 'items';
}
interface ReconnectingSocketOptions<Out, In> {
    /**
     * Opens connection number `attempt` (0 first) and resolves once it can carry data: per-connection
     * setup (a configuration or authentication message) belongs here, since it is not replayed.
     * `signal` aborts when the attempt is abandoned (connect timeout, close); the open connection is
     * ended with its `close()`.
     */
    connect(attempt: number, signal: AbortSignal, info: ConnectInfo): Promise<SocketConnection<Out, In>>;
    clock?: Clock;
    /** Aborting closes the connection and ends the iteration quietly. */
    signal?: AbortSignal;
    /**
     * Told of `retrying` (the first connection failed), `reconnecting` (a live one broke),
     * `audio_dropped` / `warning` (data that could not be replayed).
     */
    onProblem?: (problem: ProviderProblem) => void;
    /** Backoff between attempts; `maxRetries` is how many attempts an outage gets before giving up. */
    policy?: Partial<RetryPolicy>;
    /** Replaces the default test: an `APIError` with `retryable: true`. */
    isRetryable?(error: unknown): boolean;
    /** How long the server asked to wait, in ms; `retryAfterFromError` by default. */
    retryAfterMs?(error: unknown): number | undefined;
    /** Source of jitter, [0, 1). */
    random?: () => number;
    replay?: ReplayOptions;
    /** The longest `connect` may take, in ms. Default 10_000. */
    connectTimeoutMs?: number;
    /**
     * Received messages waiting for the consumer; beyond that, reading from the connection waits.
     * Default 64.
     */
    maxPendingMessages?: number;
    /** Names the provider in errors, e.g. `deepgram.STT`. */
    label?: string;
}
type ReconnectingSocketState = 'connecting' | 'open' | 'reconnecting' | 'closed';
interface SendOptions {
    /** Weight in the replay buffer and the position: ms of audio, or items. See `ReplayOptions.unit`. */
    size?: number;
    /**
     * False for messages that only make sense on the current connection (a keep-alive): they are not
     * kept for replay, and are dropped when no connection is open. Default true.
     */
    replay?: boolean;
}
/**
 * A connection to a streaming provider that survives drops: after an unexpected close it reconnects
 * with backoff (reporting `reconnecting`), sends again what the provider had not acknowledged, and goes
 * on; after `policy.maxRetries` failed attempts in a row it gives up and the iteration throws an
 * `APIConnectionError`. A non-retryable failure (a rejected API key) ends it at once, as it is.
 *
 * Write with `send` (each message kept in a bounded `ReplayBuffer` until `acknowledge` says the
 * provider processed it), read by iterating (one consumer), finish with `end` (the provider then closes
 * the connection, which ends the iteration) or stop with `close` / the signal. Connecting starts at
 * construction; what is sent before the connection opens waits in the replay buffer.
 */
declare class ReconnectingSocket<Out, In> implements AsyncIterable<In> {
    readonly label: string;
    private readonly options;
    private readonly clock;
    private readonly policy;
    private readonly connectTimeoutMs;
    private readonly unit;
    private readonly controller;
    private readonly buffer;
    private readonly incoming;
    private readonly loop;
    private current;
    private sendFailure;
    private ending;
    private currentState;
    constructor(options: ReconnectingSocketOptions<Out, In>);
    get state(): ReconnectingSocketState;
    /** The position after everything sent so far (a running sum of sizes). */
    get position(): number;
    /**
     * Sends a message now if a connection is open, and keeps it for replay unless `replay: false`.
     * Returns the position after it, the one to `acknowledge` once the provider confirms it. Ignored
     * once closed: a failure, if any, comes out of the iteration.
     */
    send(message: Out, options?: SendOptions): number;
    /** The provider processed everything up to `position`; it will not be replayed. */
    acknowledge(position: number): void;
    /**
     * No more input: sends `message` if given (the provider's "close stream" request; replayed like the
     * rest should the connection break before the end), then lets the provider close the connection,
     * which ends the iteration once the messages before it were read.
     */
    end(message?: Out, options?: SendOptions): void;
    /** Closes now: no reconnect, queued messages are dropped, the iteration ends quietly. */
    close(): Promise<void>;
    /** One consumer. Stopping the iteration early closes the socket. */
    [Symbol.asyncIterator](): AsyncIterator<In>;
    private run;
    /**
     * Connects within the connect timeout, or rejects at once on abort. The timer and the listener go
     * when it settles, even if `connect` ignores its signal; a connection that comes after that is closed.
     */
    private open;
    /** Replays, then pumps messages until the connection ends. Never throws. */
    private serve;
    /** Sends on `connection`; a failure closes it, so that its end starts the reconnect. */
    private deliver;
    /** The delay before the next attempt, or throws what the iteration should fail with. */
    private planAttempt;
    private reportLoss;
}

/**
 * Response headers as the common HTTP clients hand them over: a fetch `Headers` (anything with `get`),
 * or a plain record such as Node's `IncomingHttpHeaders` (the WebSocket handshake response of `ws`).
 */
type HeadersLike = {
    get(name: string): string | null | undefined;
} | Readonly<Record<string, string | readonly string[] | number | undefined>>;
interface ParseRetryAfterOptions {
    /**
     * Wall-clock time (ms since 1970) to measure an HTTP-date against when the response carries no `Date`
     * header. The core reads no wall clock itself; a plugin that wants this fallback passes the current epoch time.
     */
    nowEpochMs?: number;
}
/**
 * How long a server asked to wait before the next attempt, in whole ms (rounded up), or `undefined`
 * when it did not say or said something unreadable. Reads, in this order:
 * - `retry-after-ms`: milliseconds (OpenAI, Azure);
 * - `retry-after` as delay-seconds: `120`, or `0.5` as some servers send;
 * - `retry-after` as an HTTP-date: measured against the response's own `Date` header, so that neither
 *   the host's clock nor clock skew matters; without one, against `options.nowEpochMs`. A date in the
 *   past means 0.
 */
declare function parseRetryAfterMs(headers: HeadersLike | undefined, options?: ParseRetryAfterOptions): number | undefined;
/**
 * What a failed call says about waiting: a numeric `retryAfterMs` on the error, or the `retry-after`
 * headers of the HTTP response it carries (`error.headers` or `error.response.headers`, as SDKs built
 * on fetch expose them), looked for on the error and then down its `cause` chain.
 */
declare function retryAfterFromError(error: unknown): number | undefined;
/**
 * An HTTP-date (any of the three forms HTTP allows) as ms since 1970, or `undefined`. Computed by hand:
 * the core keeps the host's `Date` out, and these three forms are all it needs to read.
 */
declare function parseHttpDateMs(text: string): number | undefined;

/**
 * Streams what `attempt` yields, starting it again after a retryable failure as long as nothing has
 * been yielded yet: once an item reached the caller, a new attempt would repeat it (the same words
 * spoken twice), so a later error propagates as it is. Retries follow the policy and `retry-after`
 * like `withRetry`, are waited on the clock and are reported to `onProblem` as `retrying`.
 *
 * `attempt` gets its number (0 first) and a signal that aborts when the caller's does and when the
 * attempt is over, however it ended, so that whatever it left open (an HTTP body) is released.
 * Aborting the caller's signal ends the iteration quietly, also during a backoff: no error, no retry.
 * Stopping the iteration early (`break`) stops the attempt too.
 */
declare function retryBeforeFirstItem<T>(attempt: (attempt: number, signal: AbortSignal) => AsyncIterable<T>, options?: RetryOptions): AsyncGenerator<T, void, undefined>;

/**
 * Settles like `promise`, unless `timeoutMs` passes first on the clock: then rejects with what
 * `onTimeout` returns (which is also where the caller aborts the work). No timeout when undefined.
 */
declare function timeoutAfter<T>(promise: Promise<T>, clock: Clock, timeoutMs: number | undefined, onTimeout: () => unknown): Promise<T>;
interface WithTimeoutOptions {
    /** Where the deadline is measured. */
    clock: Clock;
    /** The longest the call may take, in ms. `Infinity` disables the deadline. */
    timeoutMs: number;
    /** The caller's signal: aborting rejects at once with its reason and aborts the work. */
    signal?: AbortSignal;
    /** Names the call in the timeout error, e.g. `deepgram.STT(nova-3)`. */
    label?: string;
}
/**
 * Runs one call with a deadline. `fn` gets a signal that aborts when the caller's does or when the
 * deadline passes; in the second case the result is an `APITimeoutError` (retryable), whatever `fn`
 * does with the abort afterwards: an SDK that turns an abort into its own "user aborted" error cannot
 * hide the timeout. A caller's abort rejects with the signal's reason. Either way the result comes at
 * once, even from work that ignores its signal, and the timer and listeners are released.
 */
declare function withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>, options: WithTimeoutOptions): Promise<T>;

/**
 * The part of a WebSocket this module uses: what the WHATWG `WebSocket` (browsers, Node 22+) and the
 * `ws` package have in common. The core opens no sockets; the plugin creates one and hands it over.
 */
interface WebSocketLike {
    readonly readyState: number;
    binaryType: string;
    send(data: string | ArrayBufferLike | ArrayBufferView): void;
    close(code?: number, reason?: string): void;
    addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: unknown) => void): void;
    removeEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: unknown) => void): void;
}
/** What a WebSocket connection sends. */
type WebSocketData = string | ArrayBufferLike | ArrayBufferView;
/** What it receives: text frames as strings, binary frames as bytes. */
type WebSocketMessage = string | Uint8Array;
interface OpenWebSocketOptions {
    /** Abandons the opening handshake: the socket is closed and the promise rejects with the reason. */
    signal?: AbortSignal;
    /**
     * Received messages waiting to be read. A socket cannot be slowed down, so a consumer that falls
     * this far behind fails the connection (not retryable) rather than growing memory. Default 1_024.
     */
    maxBufferedMessages?: number;
    /**
     * Whether a close with this code (and reason) is worth reconnecting after. By default: 1006
     * (abnormal), 1011 (server error), 1012 (restart), 1013 (try again later) and 1014 (bad gateway).
     * Provider codes in 4000-4999 vary: pass this to classify them.
     */
    isRetryableClose?(code: number, reason: string): boolean;
    /** Names the provider in errors. */
    label?: string;
}
/**
 * Waits until `socket` is open and returns it as a `SocketConnection` (for `ReconnectingSocket`'s
 * `connect`). Listeners go on at once, so no message is missed before the first read, and come off
 * when the socket closes. A normal close (1000, 1001, 1005) ends `messages`; any other throws an
 * `APIConnectionError`, or a non-retryable `APIError` for codes such as 1008 (policy violation). A
 * handshake refused with an HTTP status (as `ws` reports it) rejects with an `APIStatusError`.
 */
declare function openWebSocket(socket: WebSocketLike, options?: OpenWebSocketOptions): Promise<SocketConnection<WebSocketData, WebSocketMessage>>;

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
/** How many words a transcript holds, e.g. to compare with `minInterruptionWords`. */
declare function countWords(text: string): number;

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

interface STTStreamAdapterOptions {
    /** Retries of a failed `recognize()` before the stream fails. Default: the default retry policy. */
    retryPolicy?: Partial<RetryPolicy>;
    clock?: Clock;
    /**
     * Utterances waiting for recognition. Speech boundaries are few, so this only fills when the recognizer
     * is far slower than speech; the oldest utterance is then dropped (counted). Default 8.
     */
    maxPendingUtterances?: number;
    /** Events waiting for the consumer; when full, recognition waits. Default 32. */
    eventQueueCapacity?: number;
    /** Source of retry jitter, for reproducible runs. */
    random?: () => number;
}
/**
 * Makes a recognizer that only transcribes finished utterances (`recognize()`) usable as a live stream:
 * a VAD cuts the pushed audio into utterances and each one is recognized when the VAD reports its end.
 * The stream emits `start_of_speech`, then `final_transcript` and `end_of_speech` per utterance, in
 * order. Frames pushed must be at one of the recognizer's `inputSampleRates`: the VAD cuts them as
 * they are, so each utterance reaches `recognize()` at the rate the recognizer asked for.
 */
declare class STTStreamAdapter implements StreamingSTT {
    readonly stt: BatchSTT;
    readonly vad: VAD;
    private readonly options;
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly inputSampleRates: readonly number[];
    private readonly recognizeFn;
    constructor(stt: BatchSTT, vad: VAD, options?: STTStreamAdapterOptions);
    recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]>;
    stream(options: STTStreamOptions): STTStream;
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

interface TTSStreamAdapterOptions {
    /** How pushed text is cut into requests. Default: a `SentenceTokenizer` with its defaults. */
    tokenizer?: SentenceTokenizer;
    /**
     * Sentences synthesized ahead of the one whose audio is being emitted, so the next one is ready when
     * the current one ends. Default 1; 0 synthesizes strictly one at a time.
     */
    prefetch?: number;
    /** Audio chunks buffered per sentence before its synthesis waits for the consumer. Default 64. */
    chunkBuffer?: number;
}
/**
 * Streaming TTS over a provider that only synthesizes whole texts: pushed text is cut into sentences,
 * each is synthesized with `synthesize()`, and the audio comes out in order.
 */
declare class TTSStreamAdapter implements StreamingTTS {
    readonly tts: BatchTTS;
    private readonly options;
    readonly specificationVersion = "v1";
    readonly kind = "streaming";
    readonly label: string;
    readonly sampleRate: number;
    readonly numChannels: number;
    private readonly tokenizer;
    constructor(tts: BatchTTS, options?: TTSStreamAdapterOptions);
    synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
    stream(options?: ProviderCallOptions): TTSStream;
    close(): Promise<void>;
}

/**
 * Joins frames of one format into a single frame. A single frame is returned as is (no copy).
 * Throws InvalidAudioError for an empty list or when sample rates or channel counts differ.
 */
declare function concatenateFrames(frames: readonly AudioFrameLike[]): AudioFrame;
/**
 * Cuts a frame into consecutive frames of `durationMs`; the last one holds the remainder and may be
 * shorter. The pieces are views on the input's memory (no copy).
 */
declare function splitFrame(frame: AudioFrameLike, durationMs: number): AudioFrame[];
interface FrameChunkerOptions {
    sampleRate: number;
    /** Defaults to 1. */
    channels?: number;
    /** Duration of every output frame; must be a whole number of samples at `sampleRate`. */
    durationMs?: number;
    /** Alternative to `durationMs` for consumers that count samples (e.g. 512-sample VAD windows). */
    samplesPerChannel?: number;
}
/**
 * Re-frames a stream: push frames of any length, receive frames of exactly one size. VADs and
 * transports that need 10/20/30 ms frames put one in front of their input. Raw little-endian Int16
 * bytes (a network body, a pipe) go in through `pushBytes`, split at any byte.
 *
 * Output frames that lie wholly inside one pushed frame are views on its memory (no copy); samples
 * that straddle pushes are copied into a fresh buffer per output frame.
 */
declare class FrameChunker {
    readonly sampleRate: number;
    readonly channels: number;
    readonly samplesPerChannel: number;
    private pending;
    private pendingSamples;
    /** Bytes of a sample frame split across `pushBytes` calls. */
    private partialBytes;
    constructor(options: FrameChunkerOptions);
    /** Duration of each output frame. */
    get durationMs(): number;
    /** Samples per channel held back until the next push completes a frame. */
    get pendingSamplesPerChannel(): number;
    push(frame: AudioFrameLike): AudioFrame[];
    /**
     * Pushes interleaved little-endian Int16 PCM bytes. Chunks may end anywhere, inside a sample or
     * between the channels of one: those bytes wait for the next chunk. The output never shares memory
     * with `bytes`, so the caller may reuse its buffer.
     */
    pushBytes(bytes: Uint8Array): AudioFrame[];
    /**
     * Emits what is left as a final frame: shorter than the others, or padded with silence to full
     * size when `padWithSilence` is set (for consumers that only accept one frame size). Bytes of an
     * incomplete sample frame from `pushBytes` cannot be played and are dropped.
     */
    flush(options?: {
        padWithSilence?: boolean;
    }): AudioFrame[];
    /** Drops buffered samples, e.g. when the stream is interrupted. */
    reset(): void;
    private takePending;
}
/** Silence with the same rate, channel count and length as `frame`. */
declare function silenceLike(frame: AudioFrameLike): AudioFrame;
/** Averages all channels into one. A mono frame is returned as is. */
declare function toMono(frame: AudioFrameLike): AudioFrame;
/**
 * Reads little-endian Int16 PCM bytes (a Buffer is a Uint8Array). Returns a view on the same memory
 * when the bytes are 2-byte aligned, and a copy otherwise.
 */
declare function int16FromBytes(bytes: Uint8Array): Int16Array;
/** The frame's samples as little-endian bytes, without copying on little-endian hosts. */
declare function frameToBytes(frame: AudioFrameLike): Uint8Array;
/**
 * RMS level over all channels in dB relative to full scale (32768): a full-scale square wave is 0 dBFS,
 * a full-scale sine about -3 dBFS. Silence and empty frames are -Infinity.
 */
declare function rmsDbfs(frame: AudioFrameLike): number;

type ResamplerQuality = 'low' | 'medium' | 'high';
interface AudioResamplerOptions {
    /** Interleaved channels per frame. Defaults to 1. */
    channels?: number;
    /**
     * Filter length versus fidelity. Every level starts its stopband at the lower Nyquist frequency, so
     * none aliases; they differ in stopband depth and in how close to Nyquist the passband reaches:
     * - `low`: 60 dB stopband, flat to ~63% of the lower Nyquist, shortest filter.
     * - `medium` (default): 80 dB, flat to ~73% (5.8 kHz when one side is 16 kHz).
     * - `high`: 100 dB, flat to ~87%, about three times the work of `medium`.
     */
    quality?: ResamplerQuality;
}
/**
 * Streaming sample-rate converter for Int16 PCM: a rational (up/down) polyphase windowed-sinc filter.
 * Output sample k sits exactly at input time k * inputRate / outputRate, so the output is aligned with
 * the input and has no group delay; in exchange `push` holds back a few ms of input (half the filter
 * length) until the samples after it arrive, and `flush` releases them.
 *
 * Filter state is kept across pushes, so the chunking of the input never changes the output: pushing a
 * signal in any pieces yields exactly the samples `resampleFrame` gives for the whole signal.
 */
declare class AudioResampler {
    readonly inputRate: number;
    readonly outputRate: number;
    readonly channels: number;
    readonly quality: ResamplerQuality;
    /** Output samples are produced at input positions k * down / up (rates divided by their gcd). */
    private readonly up;
    private readonly down;
    private readonly filter;
    /** Interleaved input history; index 0 is the first tap of the next output sample. */
    private history;
    private historyLength;
    /** Where, in `history`, the first tap of the output being computed lies. */
    private readBase;
    /** Fractional position of the next output between two input samples, in units of 1/up. */
    private phase;
    constructor(inputRate: number, outputRate: number, options?: AudioResamplerOptions);
    /**
     * Resamples the next piece of the stream. Returns zero or one frame: input shorter than the filter's
     * look-ahead is held until more arrives. With equal rates the frame is passed through untouched.
     */
    push(frame: AudioFrameLike): AudioFrame[];
    /**
     * Ends the stream: returns the held-back tail (as if silence followed the input) and resets, so the
     * resampler can start an unrelated stream. Total output over the stream is ceil(inputSamples * ratio).
     */
    flush(): AudioFrame[];
    /** Drops held-back input without producing output, e.g. when playback is interrupted. */
    reset(): void;
    private appendInput;
    private appendSilence;
    private reserve;
    private discardConsumedInput;
    /** Computes every output whose first tap lies at or before `lastReadBase` in the history. */
    private produce;
    private convolveExact;
    private convolveInterpolated;
}

/**
 * The one WAV codec of Voxwire. Writing always produces the plainest file every reader accepts (16-bit
 * PCM, a 44-byte header); reading accepts what real writers produce:
 *
 * - integer PCM of 8 (unsigned), 16, 24 or 32 bits and IEEE float of 32 or 64 bits, any channel count,
 *   plain or WAVE_FORMAT_EXTENSIBLE, in RIFF or RF64 files. Samples become Int16 (rounded, clamped).
 * - chunks other than `fmt ` and `data` (LIST, fact, JUNK, bext, ...) are skipped, odd-sized ones with
 *   their pad byte; whatever follows the data chunk is ignored.
 * - a data size of 0 or 0xFFFFFFFF means "up to the end of the input": programs writing to a pipe cannot
 *   seek back to fill it in.
 * - truncation rule: a data chunk that declares more bytes than the input holds is read up to the end
 *   of the input (espeak-ng writing to a pipe declares 0x7FFFF000 bytes; a file cut short by a crash
 *   still plays what it has), and a trailing partial sample frame is dropped. Headers cut short throw.
 * - the header's byte rate and block align are not trusted: they are derived from channels and bits.
 *
 * Anything else throws WavFormatError, whose message says what is wrong.
 */
/** How the samples of a WAV file are stored. */
interface WavFormat {
    /** Integer PCM (8-bit is unsigned, wider is signed) or IEEE float. */
    readonly encoding: 'pcm' | 'float';
    /** 8, 16, 24 or 32 for `pcm`; 32 or 64 for `float`. */
    readonly bitsPerSample: number;
    readonly sampleRate: number;
    readonly channels: number;
}
/**
 * Encodes audio as a 16-bit PCM WAV file in memory. Frames must share one sample rate and channel
 * count; raw samples (interleaved when `channels` > 1) take their format as a second argument.
 */
declare function encodeWav(audio: AudioFrameLike | readonly AudioFrameLike[]): Uint8Array;
declare function encodeWav(samples: Int16Array, format: {
    sampleRate: number;
    channels?: number;
}): Uint8Array;
/**
 * Decodes a whole WAV file into one frame (multi-channel files stay interleaved; `toMono` mixes them
 * down). Throws WavFormatError for malformed or unsupported input.
 */
declare function decodeWav(bytes: Uint8Array): AudioFrame;
/**
 * Decodes a WAV byte stream as it arrives (a child process's stdout, a network body): push chunks
 * split anywhere, get the samples they complete. The same rules as `decodeWav` apply; a data chunk of
 * unknown size runs until `end()`. Frames handed out never share memory with the pushed bytes.
 */
declare class WavDecoder {
    private stage;
    /** Header bytes gathered so far, or the start of a sample frame split across pushes. */
    private held;
    /** Bytes of input consumed, for messages that point into the file. */
    private position;
    private formatValue;
    private toInt16;
    private sampleFrameBytes;
    private rf64;
    private rf64DataSize;
    private ended;
    /** The sample format, known once the fmt chunk has been read. */
    get format(): WavFormat | undefined;
    /** Adds bytes; returns the samples they complete as a frame (none while the header is read). */
    push(bytes: Uint8Array): AudioFrame[];
    /**
     * Declares the input complete. Throws WavFormatError when it stopped before the samples began (no
     * data chunk, or a header cut short); a partial sample frame left over is dropped.
     */
    end(): void;
    private readRiff;
    private readChunkHeader;
    private readHeaderChunk;
    /** Converts whole sample frames; a split one waits in `held` for the next push. */
    private samplesOf;
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
/** Audio that cannot be used as given (wrong rate, channel count, or malformed buffer). */
declare class InvalidAudioError extends VoxwireError {
    name: string;
}
/**
 * Bytes that are not a WAV file the codec can read: not RIFF/WAVE, chunks out of order or cut short, or
 * a sample format it does not decode. A kind of InvalidAudioError, so code that already catches bad
 * audio catches this too; the message says what is wrong.
 */
declare class WavFormatError extends InvalidAudioError {
    name: string;
}
/** Sending on, or waiting for room in, a channel that was closed. */
declare class ChannelClosedError extends VoxwireError {
    name: string;
    constructor(channelName: string);
}
declare function isAbortError(error: unknown): boolean;
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

/**
 * The chat context as the LLM specification's plain messages. Function calls are grouped per assistant
 * turn (a run of consecutive calls, joined to the assistant text right before it) and each group is
 * followed by exactly its outputs. A call without an output, an output without a call, and a repeated
 * call are left out: each would make a provider reject the whole request.
 */
declare function toLLMMessages(chatCtx: ChatContext): LLMMessage[];

/**
 * What the core's loggers do to every value before it is written: secrets become `[Redacted]`, audio and
 * other binary data become a one-line description. Logs end up in terminals, CI output and bug reports,
 * so a provider key or a user's voice must never get that far.
 */
declare const REDACTED = "[Redacted]";
/** True for object keys whose values are credentials (`apiKey`, `api_key`, `accessToken`, ...). */
declare function isSecretKey(key: string): boolean;
/**
 * Redacts credentials inside free text: `Bearer <key>` and `Token <key>` (HTTP and Deepgram auth
 * headers), `?api_key=...`-style query parameters (WebSocket URLs carry keys there) and `sk-...` keys.
 */
declare function redactLogText(text: string): string;
/**
 * Returns a copy of `value` that is safe to log: secret-named keys redacted at any depth, credentials in
 * strings redacted, binary data described, errors flattened (message, stack and cause redacted too),
 * cycles and very deep or long structures cut short. The input is never modified.
 */
declare function redactLogValue(value: unknown): unknown;

/**
 * Audio and text I/O, specification v1: what a transport (a LiveKit room, the playground's socket, a
 * file) gives the session. The session reads user audio from an `AudioInput` and plays the agent's
 * audio into an `AudioOutput`, one segment per speech step.
 */

/** Where the user's audio comes from: any async sequence of frames (a room track, a socket, a file). */
type AudioInput = AsyncIterable<AudioFrame>;
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

/** Produces ids like `item_1`, `item_2`. Deterministic per generator, so simulations replay exactly. */
type IdGenerator = (prefix: string) => string;
declare function createIdGenerator(namespace?: string): IdGenerator;
/** Ids unique within the process, for objects created outside a session. */
declare function processId(prefix: string): string;

/**
 * Segment bookkeeping shared by every output: a sink calls `notifyPlaybackStarted()` when the first
 * frame of a segment is audible and `notifyPlaybackFinished()` when the segment has ended, and
 * `waitForPlayout()` pairs each ended segment with its finish.
 */
declare abstract class AudioOutputBase implements AudioOutput {
    abstract readonly sampleRate: number | undefined;
    abstract readonly canPause: boolean;
    private segmentsEnded;
    private segmentsFinished;
    private lastFinished;
    private waiters;
    private readonly listeners;
    private segmentOpen;
    /** Queues a frame in the sink (the base class has already opened the segment). */
    protected abstract onCaptureFrame(frame: AudioFrame): Promise<void>;
    protected abstract onFlush(): void;
    protected abstract onClearBuffer(): void;
    abstract pause(): void;
    abstract resume(): void;
    captureFrame(frame: AudioFrame): Promise<void>;
    flush(): void;
    clearBuffer(): void;
    waitForPlayout(options?: {
        signal?: AbortSignal;
    }): Promise<PlaybackFinished>;
    /** Calls of `waitForPlayout()` still waiting for their segment's finish (diagnostics and tests). */
    protected get pendingPlayoutWaits(): number;
    onPlayback(listener: (event: PlaybackEvent) => void): () => void;
    /** True between the first frame of a segment and its flush/clear. */
    protected get inSegment(): boolean;
    /** True when an ended segment has not reported its finish yet. */
    protected get finishPending(): boolean;
    protected notifyPlaybackStarted(): void;
    /** Call once per ended segment, when its last audible sample has played (or it was cleared). */
    protected notifyPlaybackFinished(event: PlaybackFinished): void;
    private endSegment;
}

/**
 * An output that plays into nothing at real speed on the given clock: useful for text-only sessions and
 * tests. Playback of a segment takes as long as its audio.
 */
declare class NullAudioOutput extends AudioOutputBase {
    private readonly clock;
    readonly sampleRate: number | undefined;
    readonly canPause = true;
    private queuedMs;
    private playedMs;
    private playing;
    private paused;
    private startedAt;
    private finishTimer;
    constructor(clock: Clock);
    protected onCaptureFrame(frame: AudioFrame): Promise<void>;
    protected onFlush(): void;
    protected onClearBuffer(): void;
    pause(): void;
    resume(): void;
    private heardMs;
    private scheduleFinish;
    private finish;
}

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

export { APIConnectionError, APIError, type APIErrorOptions, APIStatusError, APITimeoutError, AudioFrame, type AudioFrameLike, type AudioInput, type AudioOutput, AudioOutputBase, AudioResampler, type AudioResamplerOptions, type BatchSTT, type BatchTTS, Channel, ChannelClosedError, type ChannelOptions, type Clock, type ConnectInfo, type ConversationTurn, DEFAULT_RETRY_POLICY, FrameChunker, type FrameChunkerOptions, type HeadersLike, type IdleTimeoutOptions, InvalidAudioError, type LLM, type LLMChatOptions, type LLMContentPart, type LLMMessage, type LLMStreamPart, type LLMToolCall, type LLMUsage, type LinkedController, NullAudioOutput, type OpenWebSocketOptions, type OverflowPolicy, type ParseRetryAfterOptions, type PlaybackEvent, type PlaybackFinished, type ProviderCallOptions, type ProviderProblem, ProviderProblemError, REDACTED, RealClock, ReconnectingSocket, type ReconnectingSocketOptions, type ReconnectingSocketState, ReplayBuffer, type ReplayBufferOptions, type ReplayMode, type ReplayOptions, type ResamplerQuality, type RetryOptions, type RetryPolicy, SPECIFICATION_VERSION, type STT, type STTEvent, type STTStream, STTStreamAdapter, type STTStreamAdapterOptions, type STTStreamOptions, type SendOptions, SentenceStream, SentenceTokenizer, type SentenceTokenizerOptions, type SocketConnection, type SpecificationVersion, type SpeechAlternative, type StreamingSTT, type StreamingTTS, type SynthesizedAudio, type TTS, type TTSStream, TTSStreamAdapter, type TTSStreamAdapterOptions, type TextOutput, type TimedWord, type TimerHandle, type ToolChoice, type ToolDefinition, type TurnDetector, type VAD, type VADEvent, type VADStream, VirtualClock, type VirtualClockOptions, VoxwireError, WavDecoder, type WavFormat, WavFormatError, type WebSocketData, type WebSocketLike, type WebSocketMessage, type WithRetryOptions, type WithTimeoutOptions, abortReason, concatenateFrames, countWords, createIdGenerator, decodeWav, delayBeforeRetryMs, encodeWav, frameToBytes, int16FromBytes, isAbortError, isRetryableError, isRetryableStatus, isSecretKey, linkedController, openWebSocket, parseHttpDateMs, parseRetryAfterMs, processId, raceAbort, realClock, redactLogText, redactLogValue, resolveRetryPolicy, retryAfterFromError, retryBeforeFirstItem, retryDelayMs, rmsDbfs, silenceLike, splitFrame, timeoutAfter, toLLMMessages, toMono, withIdleTimeout, withRetry, withTimeout };
