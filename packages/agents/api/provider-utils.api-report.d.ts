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
     * header. The core has no wall clock; a plugin that wants this fallback passes `Date.now()`.
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

export { type ConnectInfo, DEFAULT_RETRY_POLICY, type HeadersLike, type IdleTimeoutOptions, type LinkedController, type OpenWebSocketOptions, type ParseRetryAfterOptions, type ProviderCallOptions, type ProviderProblem, ReconnectingSocket, type ReconnectingSocketOptions, type ReconnectingSocketState, ReplayBuffer, type ReplayBufferOptions, type ReplayMode, type ReplayOptions, type RetryOptions, type RetryPolicy, type SendOptions, type SocketConnection, type WebSocketData, type WebSocketLike, type WebSocketMessage, type WithRetryOptions, type WithTimeoutOptions, delayBeforeRetryMs, isRetryableError, linkedController, openWebSocket, parseHttpDateMs, parseRetryAfterMs, raceAbort, resolveRetryPolicy, retryAfterFromError, retryBeforeFirstItem, retryDelayMs, timeoutAfter, withIdleTimeout, withRetry, withTimeout };
