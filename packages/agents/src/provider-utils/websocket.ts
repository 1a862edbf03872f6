import { APIConnectionError, APIError, APIStatusError } from '../errors.js';
import { Channel } from '../stream/channel.js';
import { abortReason } from '../time/clock.js';
import type { SocketConnection } from './reconnecting-socket.js';

/**
 * The part of a WebSocket this module uses: what the WHATWG `WebSocket` (browsers, Node 22+) and the
 * `ws` package have in common. The core opens no sockets; the plugin creates one and hands it over.
 */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType: string;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  // Listeners take `unknown` so that sockets typing their events differently (DOM, `ws`) all fit.
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: unknown) => void): void;
  removeEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (event: unknown) => void): void;
}

/** What a WebSocket connection sends. */
export type WebSocketData = string | ArrayBufferLike | ArrayBufferView;
/** What it receives: text frames as strings, binary frames as bytes. */
export type WebSocketMessage = string | Uint8Array;

export interface OpenWebSocketOptions {
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

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
/** Closes that mean "done" rather than "broken": normal, going away, no status given. */
const NORMAL_CLOSES = new Set([1000, 1001, 1005]);
const RETRYABLE_CLOSES = new Set([1006, 1011, 1012, 1013, 1014]);
const DEFAULT_MAX_BUFFERED_MESSAGES = 1_024;

/** The fields this module reads from events, whatever their classes. */
interface EventFields {
  data?: unknown;
  code?: unknown;
  reason?: unknown;
  error?: unknown;
  message?: unknown;
}

function fields(event: unknown): EventFields {
  return typeof event === 'object' && event !== null ? (event as EventFields) : {};
}

/**
 * Waits until `socket` is open and returns it as a `SocketConnection` (for `ReconnectingSocket`'s
 * `connect`). Listeners go on at once, so no message is missed before the first read, and come off
 * when the socket closes. A normal close (1000, 1001, 1005) ends `messages`; any other throws an
 * `APIConnectionError`, or a non-retryable `APIError` for codes such as 1008 (policy violation). A
 * handshake refused with an HTTP status (as `ws` reports it) rejects with an `APIStatusError`.
 */
export function openWebSocket(
  socket: WebSocketLike,
  options: OpenWebSocketOptions = {},
): Promise<SocketConnection<WebSocketData, WebSocketMessage>> {
  const label = options.label ?? 'websocket';
  const { signal } = options;
  const isRetryableClose = options.isRetryableClose ?? ((code: number) => RETRYABLE_CLOSES.has(code));
  const inbox = new Channel<WebSocketMessage>({
    capacity: options.maxBufferedMessages ?? DEFAULT_MAX_BUFFERED_MESSAGES,
    overflow: 'drop-newest',
    name: `${label} inbox`,
  });
  // Binary frames arrive as ArrayBuffer everywhere (not Blob in browsers, not Buffer in `ws`).
  socket.binaryType = 'arraybuffer';
  let lastError: unknown;
  let closedByUs = false;

  return new Promise((resolve, reject) => {
    let opened = false;
    const connection: SocketConnection<WebSocketData, WebSocketMessage> = {
      send: (data) => {
        // The server has begun to close: its close code, about to end `messages`, says what went wrong
        // and whether reconnecting can help. Failing this send would report a retryable break instead
        // and hide a final close (1008). What a ReconnectingSocket sent stays in its replay buffer.
        if (socket.readyState === CLOSING && !closedByUs) return;
        if (socket.readyState !== OPEN) throw new APIConnectionError(`${label}: the socket is not open`);
        socket.send(data);
      },
      close: (code = 1000, reason = '') => {
        if (closedByUs) return;
        closedByUs = true;
        inbox.close();
        // The listeners stay until the close event: `ws` throws on an `error` nobody listens to.
        socket.close(code, reason);
      },
      messages: { [Symbol.asyncIterator]: () => inbox[Symbol.asyncIterator]() },
    };

    const onOpen = (): void => {
      opened = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(connection);
    };
    const onMessage = (event: unknown): void => {
      if (closedByUs) return;
      const message = toMessage(fields(event).data);
      if (message === undefined) {
        fail(new APIError(`${label}: received a frame of an unsupported type`, { retryable: false }));
      } else if (!inbox.trySend(message)) {
        fail(
          new APIError(`${label}: more than ${inbox.capacity} received messages were waiting to be read`, {
            retryable: false,
          }),
        );
      }
    };
    const onError = (event: unknown): void => {
      const { error, message } = fields(event);
      lastError = error ?? (typeof message === 'string' ? new Error(message) : undefined);
    };
    const onClose = (event: unknown): void => {
      detach();
      const { code: rawCode, reason: rawReason } = fields(event);
      const code = typeof rawCode === 'number' ? rawCode : 1005;
      const reason = typeof rawReason === 'string' ? rawReason : '';
      if (!opened) {
        signal?.removeEventListener('abort', onAbort);
        reject(handshakeError(label, code, reason, lastError));
        return;
      }
      if (closedByUs || NORMAL_CLOSES.has(code)) inbox.close();
      else inbox.fail(closeError(label, code, reason, isRetryableClose(code, reason), lastError));
    };
    const onAbort = (): void => {
      closedByUs = true;
      socket.close(1000, 'aborted');
      reject(abortReason(signal!));
    };
    const fail = (error: APIError): void => {
      inbox.fail(error);
      closedByUs = true;
      socket.close(1000, 'closing');
    };
    const listeners = [
      ['open', onOpen],
      ['message', onMessage],
      ['error', onError],
      ['close', onClose],
    ] as const;
    const detach = (): void => {
      for (const [type, listener] of listeners) socket.removeEventListener(type, listener);
    };

    // Listening first, even to close at once: closing makes `ws` emit an `error` that must be heard.
    for (const [type, listener] of listeners) socket.addEventListener(type, listener);
    if (socket.readyState !== CONNECTING && socket.readyState !== OPEN) {
      detach();
      reject(new APIConnectionError(`${label}: the socket is already closed`));
    } else if (signal?.aborted) onAbort();
    else if (socket.readyState === OPEN) onOpen();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function toMessage(data: unknown): WebSocketMessage | undefined {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

function handshakeError(label: string, code: number, reason: string, cause: unknown): APIError {
  // `ws` reports a refused upgrade as "Unexpected server response: 401"; the status decides retrying.
  const status = /server response: (\d{3})/.exec(cause instanceof Error ? cause.message : '')?.[1];
  if (status !== undefined) {
    return new APIStatusError(`${label}: the server refused the connection with HTTP ${status}`, {
      statusCode: Number(status),
      cause,
    });
  }
  const detail = cause instanceof Error ? cause.message : describeClose(code, reason);
  return new APIConnectionError(`${label}: could not connect (${detail})`, { cause });
}

function closeError(
  label: string,
  code: number,
  reason: string,
  retryable: boolean,
  cause: unknown,
): APIError {
  const message = `${label}: the connection closed with ${describeClose(code, reason)}`;
  const body = { code, reason };
  return retryable
    ? new APIConnectionError(message, { body, cause })
    : new APIError(message, { retryable: false, body, cause });
}

function describeClose(code: number, reason: string): string {
  return reason ? `code ${code}: ${reason}` : `code ${code}`;
}
