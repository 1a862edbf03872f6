import { APIConnectionError, APIError, APIStatusError } from '@voxwire/agents';
import {
  type Clock,
  openWebSocket,
  raceAbort,
  type SocketConnection,
  type WebSocketData,
  type WebSocketMessage,
  withTimeout,
} from '@voxwire/agents/provider-utils';
import WebSocket from 'ws';
import { authError, type KeyScrubber } from './errors.js';
import { type MalformedFrameError, parseServerMessage, type ServerMessage } from './protocol.js';

/** Messages about one context, as the socket routes them. */
export type ContextMessage = Exclude<ServerMessage, { type: 'other' }>;

/** One speech's end of a shared socket. */
export interface ContextListener {
  message(message: ContextMessage): void;
  /** The socket is gone (or can no longer be trusted): the context will hear nothing more. */
  lost(error: APIError): void;
}

export interface SocketPoolOptions {
  label: string;
  url: string;
  headers: Record<string, string>;
  clock: Clock;
  connectTimeoutMs: number;
  scrubber: KeyScrubber;
}

/**
 * One live Cartesia WebSocket, multiplexing contexts: messages are routed by `context_id`, and those of
 * a context nobody listens to any more (cancelled, finished) are dropped here. That is what keeps the
 * chunks already in flight after a cancel from reaching a session.
 */
export class CartesiaSocket {
  private readonly listeners = new Map<string, ContextListener>();
  private isClosed = false;
  private lastMessageAt: number;

  constructor(
    private readonly connection: SocketConnection<WebSocketData, WebSocketMessage>,
    private readonly options: SocketPoolOptions,
    private readonly onClosed: (socket: CartesiaSocket) => void,
  ) {
    this.lastMessageAt = options.clock.now();
    void this.read();
  }

  /** How long the server has sent nothing at all, for any context. */
  silentForMs(now: number): number {
    return now - this.lastMessageAt;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Contexts listening now. */
  get contextCount(): number {
    return this.listeners.size;
  }

  attach(contextId: string, listener: ContextListener): void {
    if (this.isClosed) throw new APIConnectionError(`${this.options.label}: the socket is closed`);
    this.listeners.set(contextId, listener);
  }

  detach(contextId: string): void {
    this.listeners.delete(contextId);
  }

  /** Throws `APIConnectionError` when the socket is no longer open. */
  send(message: Record<string, unknown>): void {
    if (this.isClosed) throw new APIConnectionError(`${this.options.label}: the socket is closed`);
    this.connection.send(JSON.stringify(message));
  }

  close(): void {
    this.shutDown(new APIConnectionError(`${this.options.label}: the socket was closed`));
  }

  private async read(): Promise<void> {
    let failure: APIError;
    try {
      for await (const raw of this.connection.messages) {
        this.lastMessageAt = this.options.clock.now();
        if (!this.route(raw)) return;
      }
      failure = new APIConnectionError(`${this.options.label}: Cartesia closed the connection`);
    } catch (error) {
      failure =
        error instanceof APIError
          ? error
          : new APIConnectionError(`${this.options.label}: the connection broke`, { cause: error });
    }
    this.shutDown(this.options.scrubber.error(failure));
  }

  /** False when the socket had to be given up. */
  private route(raw: WebSocketMessage): boolean {
    let message: ServerMessage;
    try {
      message = parseServerMessage(this.options.label, raw);
    } catch (error) {
      const malformed = this.options.scrubber.error(error as MalformedFrameError);
      const owner = malformed.contextId === undefined ? undefined : this.listeners.get(malformed.contextId);
      if (owner) {
        // The frame names its speech: that speech fails, the others go on.
        this.listeners.delete(malformed.contextId!);
        owner.lost(malformed);
        return true;
      }
      // A frame that cannot be attributed means the stream is not Cartesia's protocol any more.
      this.shutDown(malformed);
      return false;
    }
    if (message.type === 'other') return true;
    if (message.contextId === undefined) {
      // An error about no context in particular (a malformed request, a revoked key): every speech hears it.
      for (const listener of [...this.listeners.values()]) listener.message(message);
      return true;
    }
    this.listeners.get(message.contextId)?.message(message);
    return true;
  }

  private shutDown(error: APIError): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.connection.close(1000, 'closing');
    this.onClosed(this);
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener.lost(error);
  }
}

/**
 * The socket a TTS shares between its speeches: opened on first use, reused while it lives, and opened
 * again by the next speech after it dropped. Concurrent speeches wait for the same handshake.
 */
export class SocketPool {
  private live: CartesiaSocket | undefined;
  private opening: Promise<CartesiaSocket> | undefined;
  private readonly shutdown = new AbortController();

  constructor(private readonly options: SocketPoolOptions) {}

  /** The open socket, connecting if needed. Rejects with a typed error, or the signal's reason. */
  acquire(signal: AbortSignal): Promise<CartesiaSocket> {
    if (this.shutdown.signal.aborted) {
      return Promise.reject(new APIConnectionError(`${this.options.label}: the TTS is closed`));
    }
    if (this.live && !this.live.closed) return Promise.resolve(this.live);
    if (!this.opening) {
      const opening = this.open();
      this.opening = opening;
      const forget = (): void => {
        if (this.opening === opening) this.opening = undefined;
      };
      opening.then(forget, forget);
    }
    return raceAbort(this.opening, signal);
  }

  /** Closes the socket; speeches still on it fail with `APIConnectionError`. */
  close(): void {
    this.shutdown.abort();
    this.live?.close();
    this.live = undefined;
  }

  private async open(): Promise<CartesiaSocket> {
    const { label, url, headers, clock, connectTimeoutMs, scrubber } = this.options;
    let connection: SocketConnection<WebSocketData, WebSocketMessage>;
    try {
      connection = await withTimeout(
        (signal) => openWebSocket(new WebSocket(url, { headers }), { signal, label }),
        { clock, timeoutMs: connectTimeoutMs, signal: this.shutdown.signal, label: `${label} connect` },
      );
    } catch (error) {
      throw scrubber.error(toConnectError(label, error));
    }
    if (this.shutdown.signal.aborted) {
      connection.close(1000, 'closed');
      throw new APIConnectionError(`${label}: the TTS is closed`);
    }
    const socket = new CartesiaSocket(connection, this.options, (closed) => {
      if (this.live === closed) this.live = undefined;
    });
    this.live = socket;
    return socket;
  }
}

function toConnectError(label: string, error: unknown): APIError {
  if (error instanceof APIStatusError && (error.statusCode === 401 || error.statusCode === 403)) {
    return authError(label, error.statusCode, error);
  }
  if (error instanceof APIError) return error;
  return new APIConnectionError(`${label}: could not connect`, { cause: error });
}
