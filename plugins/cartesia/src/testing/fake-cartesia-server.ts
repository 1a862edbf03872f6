import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A loopback Cartesia TTS server speaking the real wire protocol (docs.cartesia.ai, "TTS / WebSocket"
 * and "Bytes"): `GET /tts/websocket` with `X-API-Key` and `Cartesia-Version` headers (or `api_key` /
 * `cartesia_version` query parameters), JSON messages with contexts, base64 PCM `chunk`s, `timestamps`,
 * `flush_done`, `done` and `error`; `POST /tts/bytes` answering raw PCM.
 *
 * It "speaks" `msPerChar` of audio per character, in chunks of `chunkMs`. Every sample of a context's
 * audio has the same value, `1000 + n` for the n-th context the server saw (0 first), so a test can
 * tell which speech a frame came from. Faults are switched on through `faults`.
 */

export interface FakeCartesiaFaults {
  /** Refuse the WebSocket upgrade and the bytes endpoint with this HTTP status. */
  rejectStatus?: number;
  /** Answer a context whose transcript contains this text with an `error` message instead of audio. */
  errorOn?: { text: string; statusCode?: number; message?: string; newShape?: boolean };
  /** Send nothing for a context whose transcript contains this text (a stalled generation). */
  stallOn?: string;
  /** Close the connection abruptly after this many chunks have been sent on it (once). */
  dropAfterChunks?: number;
  /** Close the connection abruptly when the first message of a connection arrives (once). */
  dropOnFirstMessage?: boolean;
  /** Chunks still sent for a context after its cancel arrived, as if already in flight. Default 0. */
  chunksAfterCancel?: number;
  /** Statuses the bytes endpoint answers with, one per request, before it answers normally. */
  bytesStatuses?: Array<{ status: number; retryAfter?: string; body?: string }>;
  /** The bytes endpoint sends half of the audio, then cuts the connection. */
  bytesCutOff?: boolean;
  /** The bytes endpoint echoes the API key in an error body with this status. */
  bytesEchoKey?: number;
}

export interface FakeCartesiaOptions {
  /** The key the server accepts. Default `test-key`. */
  apiKey?: string;
  /** Audio per character of transcript. Default 10 ms. */
  msPerChar?: number;
  /** Audio per chunk. Default 40 ms. */
  chunkMs?: number;
  /** Pause between chunks, in real ms. Default 1. */
  chunkGapMs?: number;
  /**
   * A context expires this long after its last chunk, as Cartesia's do after one second: a message on
   * it after that is answered with an error. Default: contexts never expire.
   */
  contextExpiryMs?: number;
}

export interface FakeConnection {
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
  /** Every message received, parsed. */
  messages: Array<Record<string, unknown>>;
  socket: WebSocket;
}

interface FakeContext {
  id: string;
  index: number;
  connection: FakeConnection;
  /** Text received and not yet spoken. */
  pending: string;
  /** All text received. */
  transcript: string;
  /** Audio already sent, in ms (the word timestamps continue from it). */
  spokenMs: number;
  flushId: number;
  cancelled: boolean;
  finished: boolean;
  encoding: string;
  sampleRate: number;
  /** Generations run one after the other, as the server speaks a context in order. */
  queue: Promise<void>;
  chunksSent: number;
  lastChunkAt: number | undefined;
  /** The first message's fields, which every later one must repeat (Cartesia's rule for contexts). */
  fields: string;
}

const VARYING_FIELDS = new Set(['transcript', 'continue', 'flush', 'context_id', 'duration']);

function fixedFields(message: Record<string, unknown>): string {
  return JSON.stringify(
    Object.entries(message)
      .filter(([key]) => !VARYING_FIELDS.has(key))
      .sort(),
  );
}

export class FakeCartesiaServer {
  readonly connections: FakeConnection[] = [];
  readonly contexts = new Map<string, FakeContext>();
  /** Bodies of the bytes requests, parsed, with their headers. */
  readonly bytesRequests: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }> = [];
  faults: FakeCartesiaFaults = {};
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly apiKey: string;
  private readonly msPerChar: number;
  private readonly chunkMs: number;
  private readonly chunkGapMs: number;
  private readonly contextExpiryMs: number | undefined;
  private chunksOnConnection = new Map<FakeConnection, number>();
  private dropped = false;
  private droppedFirst = false;

  private constructor(
    private readonly server: Server,
    options: FakeCartesiaOptions,
  ) {
    this.apiKey = options.apiKey ?? 'test-key';
    this.msPerChar = options.msPerChar ?? 10;
    this.chunkMs = options.chunkMs ?? 40;
    this.chunkGapMs = options.chunkGapMs ?? 1;
    this.contextExpiryMs = options.contextExpiryMs;
    server.on('upgrade', (request, socket, head) => this.upgrade(request, socket, head));
    server.on('request', (request, response) => {
      void this.bytes(request).then(
        ({ status, headers, body, cutOff }) => {
          response.writeHead(status, headers);
          if (cutOff) {
            response.write(body.subarray(0, Math.floor(body.length / 4) * 2));
            setTimeout(() => response.socket?.destroy(), 20);
          } else response.end(body);
        },
        () => response.destroy(),
      );
    });
  }

  static async start(options: FakeCartesiaOptions = {}): Promise<FakeCartesiaServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new FakeCartesiaServer(server, options);
  }

  /** `http://127.0.0.1:<port>`: the plugin's `baseURL`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every message received on every connection, in order. */
  get messages(): Array<Record<string, unknown>> {
    return this.connections.flatMap((c) => c.messages);
  }

  /** Contexts in the order the server first saw them. */
  contextList(): FakeContext[] {
    return [...this.contexts.values()].sort((a, b) => a.index - b.index);
  }

  /** Sends a raw text frame on the latest connection (a malformed frame, an unknown type). */
  sendRaw(text: string): void {
    this.connections.at(-1)?.socket.send(text);
  }

  /** Closes every connection abruptly, as a network failure would. */
  dropAll(): void {
    for (const c of this.connections) c.socket.terminate();
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The credentials and version a request carries, from its headers or its query. */
  private authorize(headers: IncomingHttpHeaders, query: URLSearchParams): number | undefined {
    if (this.faults.rejectStatus !== undefined) return this.faults.rejectStatus;
    const key = headers['x-api-key'] ?? query.get('api_key');
    if (key !== this.apiKey) return 401;
    const version = headers['cartesia-version'] ?? query.get('cartesia_version');
    if (typeof version !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(version)) return 400;
    return undefined;
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const refused =
      url.pathname === '/tts/websocket' ? this.authorize(request.headers, url.searchParams) : 404;
    if (refused !== undefined) {
      socket.end(`HTTP/1.1 ${refused} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const connection: FakeConnection = {
        headers: request.headers,
        query: url.searchParams,
        messages: [],
        socket: ws,
      };
      this.connections.push(connection);
      ws.on('message', (data) => this.onMessage(connection, data.toString()));
      ws.on('error', () => {});
    });
  }

  private onMessage(connection: FakeConnection, text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      connection.socket.send(
        JSON.stringify({ type: 'error', done: true, error: 'invalid JSON', status_code: 400 }),
      );
      return;
    }
    connection.messages.push(message);
    if (this.faults.dropOnFirstMessage && !this.droppedFirst && connection.messages.length === 1) {
      this.droppedFirst = true;
      connection.socket.terminate();
      return;
    }
    const id = message.context_id;
    if (typeof id !== 'string') {
      this.send(connection, { type: 'error', done: true, error: 'context_id is required', status_code: 400 });
      return;
    }
    let context = this.contexts.get(id);
    if (message.cancel === true) {
      if (context) {
        context.cancelled = true;
      }
      return;
    }
    if (!context) {
      const format = (message.output_format ?? {}) as { encoding?: string; sample_rate?: number };
      context = {
        id,
        index: this.contexts.size,
        connection,
        pending: '',
        transcript: '',
        spokenMs: 0,
        flushId: 0,
        cancelled: false,
        finished: false,
        encoding: format.encoding ?? 'pcm_s16le',
        sampleRate: format.sample_rate ?? 24_000,
        queue: Promise.resolve(),
        chunksSent: 0,
        lastChunkAt: undefined,
        fields: fixedFields(message),
      };
      this.contexts.set(id, context);
    }
    const expired =
      this.contextExpiryMs !== undefined &&
      context.lastChunkAt !== undefined &&
      Date.now() - context.lastChunkAt > this.contextExpiryMs;
    if (!context.finished && fixedFields(message) !== context.fields) {
      context.finished = true;
      this.send(connection, {
        type: 'error',
        done: true,
        context_id: id,
        error:
          'inputs on the same context must keep all fields except transcript, continue and duration the same',
        status_code: 400,
      });
      return;
    }
    if (context.finished || expired) {
      context.finished = true;
      this.send(connection, {
        type: 'error',
        done: true,
        context_id: id,
        error: 'context has expired',
        status_code: 400,
      });
      return;
    }
    const transcript = typeof message.transcript === 'string' ? message.transcript : '';
    context.pending += transcript;
    context.transcript += transcript;
    const errorOn = this.faults.errorOn;
    if (errorOn && context.transcript.includes(errorOn.text)) {
      context.finished = true;
      const status = errorOn.statusCode ?? 400;
      const detail = errorOn.message ?? 'Invalid request';
      this.send(
        connection,
        errorOn.newShape
          ? {
              type: 'error',
              done: true,
              title: 'Bad request',
              message: detail,
              error_code: 'bad_request',
              status_code: status,
              context_id: id,
            }
          : { type: 'error', done: true, error: detail, status_code: status, context_id: id },
      );
      return;
    }
    if (this.faults.stallOn !== undefined && context.transcript.includes(this.faults.stallOn)) return;
    const ctx = context;
    // A flush or the end speaks what came before it, not what arrives while earlier audio is sent.
    const spoken = ctx.pending;
    if (message.flush === true || message.continue !== true) ctx.pending = '';
    if (message.flush === true) {
      ctx.queue = ctx.queue.then(async () => {
        await this.speak(ctx, spoken, this.timestampsWanted(ctx));
        ctx.flushId++;
        if (!ctx.cancelled)
          this.send(connection, {
            type: 'flush_done',
            done: false,
            flush_done: true,
            flush_id: ctx.flushId,
            status_code: 206,
            context_id: id,
          });
      });
    } else if (message.continue !== true) {
      ctx.finished = true;
      ctx.queue = ctx.queue.then(async () => {
        await this.speak(ctx, spoken, message.add_timestamps === true || this.timestampsWanted(ctx));
        if (!ctx.cancelled)
          this.send(connection, { type: 'done', done: true, status_code: 206, context_id: id });
      });
    }
  }

  private timestampsWanted(context: FakeContext): boolean {
    return context.connection.messages.some((m) => m.context_id === context.id && m.add_timestamps === true);
  }

  /** Speaks a context's text: chunks, then the words' timestamps. */
  private async speak(context: FakeContext, text: string, timestamps: boolean): Promise<void> {
    if (text.trim() === '') return;
    const totalMs = text.length * this.msPerChar;
    const startMs = context.spokenMs;
    let afterCancel = this.faults.chunksAfterCancel ?? 0;
    for (let sent = 0; sent < totalMs; sent += this.chunkMs) {
      if (context.cancelled) {
        if (afterCancel <= 0) return;
        afterCancel--;
      }
      if (context.connection.socket.readyState !== context.connection.socket.OPEN) return;
      const ms = Math.min(this.chunkMs, totalMs - sent);
      const pcm = samples(context, ms);
      this.send(context.connection, {
        type: 'chunk',
        data: pcm.toString('base64'),
        done: false,
        status_code: 206,
        step_time: ms,
        context_id: context.id,
      });
      context.chunksSent++;
      context.lastChunkAt = Date.now();
      const count = (this.chunksOnConnection.get(context.connection) ?? 0) + 1;
      this.chunksOnConnection.set(context.connection, count);
      if (
        this.faults.dropAfterChunks !== undefined &&
        !this.dropped &&
        count >= this.faults.dropAfterChunks
      ) {
        this.dropped = true;
        context.connection.socket.terminate();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.chunkGapMs));
    }
    context.spokenMs += totalMs;
    if (timestamps && !context.cancelled) {
      const words: string[] = [];
      const start: number[] = [];
      const end: number[] = [];
      let at = 0;
      for (const match of text.matchAll(/\S+/g)) {
        const offset = match.index ?? at;
        words.push(match[0]);
        start.push((startMs + offset * this.msPerChar) / 1000);
        end.push((startMs + (offset + match[0].length) * this.msPerChar) / 1000);
        at = offset;
      }
      this.send(context.connection, {
        type: 'timestamps',
        done: false,
        status_code: 206,
        context_id: context.id,
        word_timestamps: { words, start, end },
      });
    }
  }

  private send(connection: FakeConnection, message: Record<string, unknown>): void {
    if (connection.socket.readyState === connection.socket.OPEN)
      connection.socket.send(JSON.stringify(message));
  }

  private async bytes(
    request: IncomingMessage,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer; cutOff?: boolean }> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || url.pathname !== '/tts/bytes') {
      return { status: 404, headers: {}, body: Buffer.from('not found') };
    }
    const refused = this.authorize(request.headers, url.searchParams);
    if (refused !== undefined) {
      return {
        status: refused,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"error":"refused"}'),
      };
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    this.bytesRequests.push({ headers: request.headers, body });
    if (this.faults.bytesEchoKey !== undefined) {
      return {
        status: this.faults.bytesEchoKey,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({ error: `bad request from key ${String(request.headers['x-api-key'])}` }),
        ),
      };
    }
    const scripted = this.faults.bytesStatuses?.shift();
    if (scripted) {
      return {
        status: scripted.status,
        headers: {
          'content-type': 'application/json',
          ...(scripted.retryAfter ? { 'retry-after': scripted.retryAfter } : {}),
        },
        body: Buffer.from(scripted.body ?? '{"error":"scripted failure"}'),
      };
    }
    const format = (body.output_format ?? {}) as { encoding?: string; sample_rate?: number };
    const transcript = typeof body.transcript === 'string' ? body.transcript : '';
    const context = {
      index: 0,
      encoding: format.encoding ?? 'pcm_s16le',
      sampleRate: format.sample_rate ?? 24_000,
    };
    const audio = samples(context, transcript.length * this.msPerChar);
    return {
      status: 200,
      headers: { 'content-type': 'application/octet-stream' },
      body: audio,
      cutOff: this.faults.bytesCutOff === true,
    };
  }
}

/** `ms` of audio whose samples all carry the context's number. */
function samples(context: { index: number; encoding: string; sampleRate: number }, ms: number): Buffer {
  const count = Math.round((context.sampleRate * ms) / 1000);
  const value = 1000 + context.index;
  if (context.encoding === 'pcm_f32le') {
    const out = Buffer.alloc(count * 4);
    for (let i = 0; i < count; i++) out.writeFloatLE(value / 32767, i * 4);
    return out;
  }
  const out = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) out.writeInt16LE(value, i * 2);
  return out;
}
