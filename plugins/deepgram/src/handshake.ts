import type { IncomingMessage } from 'node:http';
import {
  APIStatusError,
  openWebSocket,
  parseRetryAfterMs,
  type SocketConnection,
  type WebSocketData,
  type WebSocketLike,
  type WebSocketMessage,
} from '@voxwire/agents/provider-utils';
import { WebSocket } from 'ws';
import { API_KEY_ENV } from './options.js';

/** A refused upgrade's body is a short JSON error; anything longer is not read. */
const MAX_ERROR_BODY_BYTES = 8_192;

export interface OpenedSocket {
  connection: SocketConnection<WebSocketData, WebSocketMessage>;
  /** The `dg-request-id` of the upgrade's answer. */
  requestId: string | undefined;
  /** Bytes sent but not yet handed to the network (`ws` keeps them without a bound). */
  bufferedAmount(): number;
}

/**
 * Opens one Deepgram WebSocket. A refused upgrade becomes an `APIStatusError` with the status, the
 * server's `err_msg`, its request id and `retry-after`: 401/403 are not retryable, 429/5xx are.
 * (`openWebSocket` alone only sees the status in `ws`'s error text, without headers or body.)
 */
export async function openDeepgramSocket(
  url: URL,
  apiKey: string,
  options: { signal: AbortSignal; label: string },
): Promise<OpenedSocket> {
  const ws = new WebSocket(url, {
    headers: { Authorization: `Token ${apiKey}` },
    perMessageDeflate: false,
  });
  let requestId: string | undefined;
  ws.once('upgrade', (response) => {
    requestId = header(response, 'dg-request-id');
  });
  const refused = new Promise<never>((_resolve, reject) => {
    ws.once('unexpected-response', (request, response) => {
      void readBody(response).then((body) => {
        reject(refusalError(options.label, response, body));
        // With this listener `ws` leaves the failed handshake to us.
        request.destroy();
        ws.terminate();
      });
    });
  });
  const connection = await Promise.race([
    openWebSocket(ws as unknown as WebSocketLike, { signal: options.signal, label: options.label }),
    refused,
  ]);
  return {
    connection,
    requestId,
    bufferedAmount: () => ws.bufferedAmount,
  };
}

function refusalError(label: string, response: IncomingMessage, body: string): APIStatusError {
  const statusCode = response.statusCode ?? 0;
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {}
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const detail =
    typeof fields.err_msg === 'string'
      ? fields.err_msg
      : typeof fields.message === 'string'
        ? fields.message
        : '';
  const hint =
    statusCode === 401 || statusCode === 403
      ? ` (check the API key: ${API_KEY_ENV} or the apiKey option)`
      : '';
  const requestId =
    header(response, 'dg-request-id') ??
    (typeof fields.request_id === 'string' ? fields.request_id : undefined);
  const error = new APIStatusError(
    `${label}: the server refused the connection with HTTP ${statusCode}${detail ? `: ${detail}` : ''}${hint}`,
    { statusCode, requestId, body: parsed },
  );
  const retryAfterMs = parseRetryAfterMs(response.headers);
  return retryAfterMs === undefined ? error : Object.assign(error, { retryAfterMs });
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    response.on('data', (chunk: Buffer) => {
      if (size >= MAX_ERROR_BODY_BYTES) return;
      chunks.push(chunk.subarray(0, MAX_ERROR_BODY_BYTES - size));
      size += chunk.length;
      if (size >= MAX_ERROR_BODY_BYTES) done();
    });
    response.once('end', done);
    response.once('error', done);
    response.once('close', done);
  });
}
