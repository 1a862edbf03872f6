import { APIConnectionError, APITimeoutError } from '../errors.js';
import type { ProviderProblem } from '../providers/common.js';
import { Channel } from '../stream/channel.js';
import { abortReason, type Clock, realClock } from '../time/clock.js';
import { untilAborted } from '../utils/abortable.js';
import { type LinkedController, linkedController } from './abort.js';
import { asError, reportProblem } from './problems.js';
import { ReplayBuffer, type ReplayMode } from './replay-buffer.js';
import { delayBeforeRetryMs, isRetryableError, type RetryPolicy, resolveRetryPolicy } from './retry.js';
import { retryAfterFromError } from './retry-after.js';

/**
 * One live duplex connection to a provider, as the plugin's `connect` builds it (over a WebSocket,
 * usually through `openWebSocket`). The core has no network code: this is all it needs to know.
 */
export interface SocketConnection<Out, In> {
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
export interface ConnectInfo {
  /**
   * The position the replay on this connection starts from: what the provider's own clock calls 0 (its
   * transcript timestamps restart with each connection). Final once the connection is open, before its
   * first message is read, so read it when handling messages rather than in `connect` itself.
   */
  readonly resumeFrom: number;
}

export interface ReplayOptions {
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

export interface ReconnectingSocketOptions<Out, In> {
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

export type ReconnectingSocketState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface SendOptions {
  /** Weight in the replay buffer and the position: ms of audio, or items. See `ReplayOptions.unit`. */
  size?: number;
  /**
   * False for messages that only make sense on the current connection (a keep-alive): they are not
   * kept for replay, and are dropped when no connection is open. Default true.
   */
  replay?: boolean;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_REPLAY_CAPACITY = 10_000;
const DEFAULT_MAX_PENDING_MESSAGES = 64;

type Served = { kind: 'finished' } | { kind: 'stopped' } | { kind: 'broken'; error: unknown };

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
export class ReconnectingSocket<Out, In> implements AsyncIterable<In> {
  readonly label: string;
  private readonly options: ReconnectingSocketOptions<Out, In>;
  private readonly clock: Clock;
  private readonly policy: RetryPolicy;
  private readonly connectTimeoutMs: number;
  private readonly unit: 'ms' | 'items';
  private readonly controller: LinkedController;
  private readonly buffer: ReplayBuffer<Out>;
  private readonly incoming: Channel<In>;
  private readonly loop: Promise<void>;
  private current: SocketConnection<Out, In> | undefined;
  private sendFailure: unknown;
  private ending = false;
  private currentState: ReconnectingSocketState = 'connecting';

  constructor(options: ReconnectingSocketOptions<Out, In>) {
    this.options = options;
    this.label = options.label ?? 'socket';
    this.clock = options.clock ?? realClock();
    this.policy = resolveRetryPolicy(options.policy);
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (!(this.connectTimeoutMs > 0)) {
      throw new RangeError(`connectTimeoutMs must be a positive number of ms, got ${this.connectTimeoutMs}`);
    }
    const replay = options.replay ?? {};
    this.unit = replay.unit ?? 'ms';
    this.buffer = new ReplayBuffer<Out>({
      capacity: replay.capacity ?? DEFAULT_REPLAY_CAPACITY,
      ...(replay.maxMessages !== undefined ? { maxEntries: replay.maxMessages } : {}),
      ...(replay.mode !== undefined ? { mode: replay.mode } : {}),
    });
    this.incoming = new Channel<In>({
      capacity: options.maxPendingMessages ?? DEFAULT_MAX_PENDING_MESSAGES,
      overflow: 'block',
      name: `${this.label} messages`,
    });
    this.controller = linkedController(options.signal);
    this.loop = this.run();
  }

  get state(): ReconnectingSocketState {
    return this.currentState;
  }

  /** The position after everything sent so far (a running sum of sizes). */
  get position(): number {
    return this.buffer.position;
  }

  /**
   * Sends a message now if a connection is open, and keeps it for replay unless `replay: false`.
   * Returns the position after it, the one to `acknowledge` once the provider confirms it. Ignored
   * once closed: a failure, if any, comes out of the iteration.
   */
  send(message: Out, options: SendOptions = {}): number {
    if (this.currentState === 'closed') return this.buffer.position;
    const connection = this.current;
    const delivered = connection !== undefined && this.deliver(connection, message);
    if (options.replay === false) return this.buffer.position;
    return this.buffer.push(message, options.size ?? (this.unit === 'items' ? 1 : 0), delivered);
  }

  /** The provider processed everything up to `position`; it will not be replayed. */
  acknowledge(position: number): void {
    this.buffer.acknowledge(position);
  }

  /**
   * No more input: sends `message` if given (the provider's "close stream" request; replayed like the
   * rest should the connection break before the end), then lets the provider close the connection,
   * which ends the iteration once the messages before it were read.
   */
  end(message?: Out, options?: SendOptions): void {
    if (this.ending || this.currentState === 'closed') return;
    if (message !== undefined) this.send(message, options);
    this.ending = true;
  }

  /** Closes now: no reconnect, queued messages are dropped, the iteration ends quietly. */
  async close(): Promise<void> {
    this.controller.abort();
    await this.loop;
  }

  /** One consumer. Stopping the iteration early closes the socket. */
  [Symbol.asyncIterator](): AsyncIterator<In> {
    return {
      next: () => this.incoming.receive(),
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    let attempt = 0;
    let failures = 0;
    let outage = false;
    let finished = false;
    try {
      while (!signal.aborted) {
        const info = { resumeFrom: this.buffer.start };
        let error: unknown;
        try {
          const connection = await this.open(attempt++, info);
          const served = await this.serve(connection, info, () => {
            // A message is proof of a healthy connection: the next outage gets all its attempts.
            failures = 0;
          });
          if (served.kind === 'finished') finished = true;
          if (served.kind !== 'broken') return;
          error = served.error;
          outage = true;
        } catch (caught) {
          if (signal.aborted) return;
          error = caught;
        }
        this.currentState = outage ? 'reconnecting' : 'connecting';
        const delayMs = this.planAttempt(error, failures, outage);
        failures++;
        await this.clock.sleep(delayMs, signal);
      }
    } catch (error) {
      // Giving up (or an abort during a backoff, which is no failure).
      if (!signal.aborted) this.incoming.fail(error);
    } finally {
      this.currentState = 'closed';
      this.current = undefined;
      this.buffer.clear();
      // After a normal end the consumer still reads what came before it; after a close, nothing.
      if (finished) this.incoming.close();
      else if (signal.aborted) this.incoming.dispose();
      this.controller.dispose();
      this.controller.abort();
    }
  }

  /**
   * Connects within the connect timeout, or rejects at once on abort. The timer and the listener go
   * when it settles, even if `connect` ignores its signal; a connection that comes after that is closed.
   */
  private open(attempt: number, info: ConnectInfo): Promise<SocketConnection<Out, In>> {
    const signal = this.controller.signal;
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const link = linkedController(signal);
    return new Promise<SocketConnection<Out, In>>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void): boolean => {
        if (settled) return false;
        settled = true;
        timer.cancel();
        signal.removeEventListener('abort', onAbort);
        link.dispose();
        outcome();
        return true;
      };
      const timer = this.clock.setTimer(this.connectTimeoutMs, () => {
        const error = new APITimeoutError(`${this.label}: no connection within ${this.connectTimeoutMs} ms`);
        if (settle(() => reject(error))) link.abort(error);
      });
      const onAbort = (): void => {
        settle(() => reject(abortReason(signal)));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let pending: Promise<SocketConnection<Out, In>>;
      try {
        pending = Promise.resolve(this.options.connect(attempt, link.signal, info));
      } catch (error) {
        settle(() => reject(error));
        return;
      }
      pending.then(
        (connection) => {
          if (!settle(() => resolve(connection))) connection.close(1000, 'abandoned');
        },
        (error: unknown) => {
          settle(() => reject(error));
        },
      );
    });
  }

  /** Replays, then pumps messages until the connection ends. Never throws. */
  private async serve(
    connection: SocketConnection<Out, In>,
    info: { resumeFrom: number },
    onMessage: () => void,
  ): Promise<Served> {
    const signal = this.controller.signal;
    this.reportLoss();
    info.resumeFrom = this.buffer.start;
    this.sendFailure = undefined;
    try {
      for (const message of this.buffer.replay()) {
        if (!this.deliver(connection, message)) break;
      }
      if (this.sendFailure === undefined) {
        this.current = connection;
        this.currentState = 'open';
      }
      for await (const message of untilAborted(connection.messages, signal)) {
        onMessage();
        await this.incoming.send(message, signal);
      }
      if (signal.aborted) return { kind: 'stopped' };
      if (this.ending && this.sendFailure === undefined) return { kind: 'finished' };
      return {
        kind: 'broken',
        error:
          this.sendFailure ?? new APIConnectionError(`${this.label}: the connection closed unexpectedly`),
      };
    } catch (error) {
      // The consumer is gone (it stopped iterating): there is no one to reconnect for.
      if (this.incoming.closed) this.controller.abort();
      if (signal.aborted) return { kind: 'stopped' };
      return { kind: 'broken', error };
    } finally {
      this.current = undefined;
      connection.close(1000, 'closing');
    }
  }

  /** Sends on `connection`; a failure closes it, so that its end starts the reconnect. */
  private deliver(connection: SocketConnection<Out, In>, message: Out): boolean {
    try {
      connection.send(message);
      return true;
    } catch (error) {
      // Whatever the transport threw, the connection is unusable: a break like any other.
      this.sendFailure ??= new APIConnectionError(
        `${this.label}: sending failed: ${asError(error).message}`,
        {
          cause: error,
        },
      );
      if (this.current === connection) this.current = undefined;
      connection.close(1000, 'send failed');
      return false;
    }
  }

  /** The delay before the next attempt, or throws what the iteration should fail with. */
  private planAttempt(error: unknown, failures: number, outage: boolean): number {
    if (!(this.options.isRetryable ?? isRetryableError)(error)) throw error;
    if (failures >= this.policy.maxRetries) {
      const what = outage
        ? `the connection broke and ${failures} reconnect attempt(s) failed`
        : `could not connect in ${failures + 1} attempt(s)`;
      throw new APIConnectionError(`${this.label}: ${what}: ${asError(error).message}`, { cause: error });
    }
    const retryAfterMs = (this.options.retryAfterMs ?? retryAfterFromError)(error);
    const delayMs = delayBeforeRetryMs(this.policy, failures + 1, retryAfterMs, this.options.random);
    if (delayMs === undefined) throw error;
    reportProblem(this.options.onProblem, {
      type: outage ? 'reconnecting' : 'retrying',
      attempt: failures + 1,
      delayMs,
      error: asError(error),
    });
    return delayMs;
  }

  private reportLoss(): void {
    const lost = this.buffer.takeLost();
    if (lost <= 0) return;
    const problem: ProviderProblem =
      this.unit === 'ms'
        ? {
            type: 'audio_dropped',
            droppedMs: lost,
            message: `${this.label}: ${lost} ms of audio could not be sent again after the connection broke`,
          }
        : {
            type: 'warning',
            message: `${this.label}: ${lost} message(s) could not be sent again after the connection broke`,
          };
    reportProblem(this.options.onProblem, problem);
  }
}
