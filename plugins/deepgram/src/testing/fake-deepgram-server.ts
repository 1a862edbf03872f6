import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { decodeWav } from '@voxwire/agents/provider-utils';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { CodedSpeechRecognizer, type HeardWord } from './coded-speech.js';
import { FakeFluxSession } from './fake-flux.js';

/**
 * A loopback Deepgram for tests: `/v1/listen` over WebSocket (live) and HTTP POST (pre-recorded), and
 * `/v2/listen` (Flux). It speaks the real JSON messages and recognizes the coded test audio of
 * `coded-speech.ts`, driven by the audio it receives (not by wall time), so every run is the same.
 */
export interface FakeDeepgramOptions {
  /** The key `Authorization: Token <key>` must carry; anything else is refused with 401. */
  apiKey?: string;
  /** Silence after speech before a final with `speech_final` when the client asks no `endpointing`. */
  defaultEndpointingMs?: number;
  /** A segment is finalized (without `speech_final`) once it is this long, at a word boundary. */
  maxSegmentMs?: number;
  /** Pure silence is finalized as an empty result after this long. */
  silenceFinalMs?: number;
}

/** One upgrade or request refused with a status, in order of arrival. */
export interface Refusal {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Something that goes wrong on a live connection once it has received `afterAudioMs` of audio. */
export interface LiveFault {
  /** Which connection (0 = the first accepted one). */
  connection: number;
  afterAudioMs: number;
  /** `send`: one message of the server's choosing (a Flux `Error`, say). */
  action: 'drop' | 'malformed' | 'stall' | { close: number; reason: string } | { send: unknown };
}

export interface LiveConnectionRecord {
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  requestId: string;
  audioMs: number;
  binaryFrames: number;
  /** Every text message received, parsed when it was JSON. */
  controls: unknown[];
  keepAlives: number;
  finalizes: number;
  closeStreams: number;
  /** Every message sent, in order. */
  sent: string[];
  closed: boolean;
}

export interface RestRequestRecord {
  query: URLSearchParams;
  authorization: string | undefined;
  contentType: string | undefined;
  bytes: number;
}

export interface FakeDeepgramServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `ws://127.0.0.1:<port>` */
  readonly wsUrl: string;
  readonly connections: LiveConnectionRecord[];
  readonly requests: RestRequestRecord[];
  /** Upgrades (live and Flux) refused before any is accepted. */
  readonly refuseUpgrades: Refusal[];
  readonly liveFaults: LiveFault[];
  /** What the next REST requests get instead of a transcript: a refusal, malformed JSON, or a delay. */
  readonly restFaults: Array<Refusal | 'malformed' | { delayMs: number }>;
  /** Every message the server sends waits this long first (order kept). */
  slowMs: number;
  /** Upgrade attempts seen, refused ones included. */
  upgradeAttempts: number;
  close(): Promise<void>;
}

const MS_PER_S = 1000;

export async function startFakeDeepgram(options: FakeDeepgramOptions = {}): Promise<FakeDeepgramServer> {
  const sockets = new Set<Socket>();
  const wss = new WebSocketServer({ noServer: true });
  let requestCounter = 0;
  const nextRequestId = (): string => `req-${(++requestCounter).toString().padStart(4, '0')}`;

  const state: FakeDeepgramServer = {
    url: '',
    wsUrl: '',
    connections: [],
    requests: [],
    refuseUpgrades: [],
    liveFaults: [],
    restFaults: [],
    slowMs: 0,
    upgradeAttempts: 0,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const authorized = (header: string | undefined): boolean =>
    options.apiKey === undefined || header === `Token ${options.apiKey}`;

  const server: Server = createServer((request, response) => {
    void handleRest(request, response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handleRest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    state.requests.push({
      query: url.searchParams,
      authorization: request.headers.authorization,
      contentType: request.headers['content-type'],
      bytes: body.length,
    });
    if (request.method !== 'POST' || url.pathname !== '/v1/listen') {
      return json(response, 404, { err_code: 'NOT_FOUND', err_msg: 'no such route' });
    }
    if (!authorized(request.headers.authorization)) {
      return json(response, 401, invalidAuthBody(nextRequestId()));
    }
    let fault = state.restFaults.shift();
    while (fault !== undefined && typeof fault === 'object' && 'delayMs' in fault) {
      await new Promise((resolve) => setTimeout(resolve, (fault as { delayMs: number }).delayMs));
      fault = state.restFaults.shift();
    }
    if (fault === 'malformed') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"metadata": {"request_id": "x"}, "results": ');
      return;
    }
    if (fault !== undefined) return json(response, fault.status, fault.body ?? {}, fault.headers);
    const { samples, sampleRate } = decodeAudio(body, request.headers['content-type'], url.searchParams);
    const recognizer = new CodedSpeechRecognizer(sampleRate);
    const heard = recognizer.feed(samples).words;
    const last = recognizer.cutWord();
    if (last) heard.push(last);
    const requestId = nextRequestId();
    const punctuate = isOn(url.searchParams, 'punctuate') || isOn(url.searchParams, 'smart_format');
    json(
      response,
      200,
      {
        metadata: { request_id: requestId, duration: recognizer.positionMs / MS_PER_S, channels: 1 },
        results: {
          channels: [
            {
              alternatives: [alternative(heard, punctuate)],
              ...(url.searchParams.get('language') ? {} : { detected_language: 'en' }),
            },
          ],
        },
      },
      { 'dg-request-id': requestId },
    );
  }

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    state.upgradeAttempts++;
    const url = new URL(request.url ?? '/', 'http://fake');
    const refuse = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      const text = JSON.stringify(body);
      const lines = [
        `HTTP/1.1 ${status} Refused`,
        'content-type: application/json',
        `content-length: ${Buffer.byteLength(text)}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        'connection: close',
      ];
      socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
    };
    if (url.pathname !== '/v1/listen' && url.pathname !== '/v2/listen') return refuse(404, {});
    if (!authorized(request.headers.authorization)) return refuse(401, invalidAuthBody(nextRequestId()));
    const refusal = state.refuseUpgrades.shift();
    if (refusal) return refuse(refusal.status, refusal.body ?? {}, refusal.headers);
    const requestId = nextRequestId();
    wss.once('headers', (headers) => headers.push(`dg-request-id: ${requestId}`));
    wss.handleUpgrade(request, socket, head, (ws) => {
      const record: LiveConnectionRecord = {
        path: url.pathname,
        query: url.searchParams,
        authorization: request.headers.authorization,
        requestId,
        audioMs: 0,
        binaryFrames: 0,
        controls: [],
        keepAlives: 0,
        finalizes: 0,
        closeStreams: 0,
        sent: [],
        closed: false,
      };
      const index = state.connections.push(record) - 1;
      const outbox = new Outbox(ws, record, () => state.slowMs);
      if (url.pathname === '/v2/listen') new FakeFluxSession(ws, record, index, outbox, state);
      else new FakeLiveSession(ws, record, index, outbox, state, options);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(state, { url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}` });
  return state;
}

/** Sends in order, each message delayed by the server's current `slowMs`. */
export class Outbox {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    private readonly record: LiveConnectionRecord,
    private readonly slowMs: () => number,
  ) {}

  send(message: unknown): void {
    this.raw(JSON.stringify(message));
  }

  raw(text: string): void {
    const delay = this.slowMs();
    this.chain = this.chain.then(async () => {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.ws.readyState !== this.ws.OPEN) return;
      this.record.sent.push(text);
      this.ws.send(text);
    });
  }

  /** Closes after everything queued was sent; without a code the close frame carries no status. */
  close(code: number | undefined, reason: string | undefined): void {
    this.chain = this.chain.then(() => this.ws.close(code, reason));
  }
}

/** One `/v1/listen` connection: segments the coded audio like Deepgram's endpointing. */
class FakeLiveSession {
  private readonly recognizer: CodedSpeechRecognizer;
  private readonly interim: boolean;
  private readonly punctuate: boolean;
  private readonly vadEvents: boolean;
  private readonly endpointingMs: number | undefined;
  private readonly utteranceEndMs: number | undefined;
  private segmentStartMs = 0;
  private segmentWords: HeardWord[] = [];
  private lastWordEndMs = 0;
  private utterancePending = false;
  private speechActive = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly record: LiveConnectionRecord,
    private readonly index: number,
    private readonly outbox: Outbox,
    private readonly server: FakeDeepgramServer,
    private readonly options: FakeDeepgramOptions,
  ) {
    const query = record.query;
    this.recognizer = new CodedSpeechRecognizer(Number(query.get('sample_rate') ?? 16_000));
    this.interim = isOn(query, 'interim_results');
    this.punctuate = isOn(query, 'punctuate') || isOn(query, 'smart_format');
    this.vadEvents = isOn(query, 'vad_events');
    const endpointing = query.get('endpointing');
    this.endpointingMs =
      endpointing === 'false' ? undefined : Number(endpointing ?? options.defaultEndpointingMs ?? 10);
    const utteranceEnd = query.get('utterance_end_ms');
    this.utteranceEndMs = utteranceEnd === null ? undefined : Number(utteranceEnd);
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => {
      record.closed = true;
    });
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const bytes = Buffer.isBuffer(data)
      ? data
      : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
    if (isBinary) this.onAudio(bytes);
    else this.onControl(bytes.toString('utf8'));
  }

  private onAudio(bytes: Buffer): void {
    this.record.binaryFrames++;
    const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const { words, started } = this.recognizer.feed(samples);
    this.record.audioMs = this.recognizer.positionMs;
    if (started.length > 0 && this.vadEvents && !this.speechActive) {
      this.outbox.send({ type: 'SpeechStarted', channel: [0], timestamp: started[0]! / MS_PER_S });
    }
    if (started.length > 0) this.speechActive = true;
    for (const word of words) {
      this.segmentWords.push(word);
      this.lastWordEndMs = word.endMs;
      this.utterancePending = true;
      if (this.interim) this.sendResults(false, false);
    }
    this.endpoint();
    this.applyFaults();
  }

  private endpoint(): void {
    const position = this.recognizer.positionMs;
    const silentMs = position - this.lastWordEndMs;
    const inWord = this.recognizer.inWord;
    if (this.segmentWords.length > 0 && !inWord) {
      if (this.endpointingMs !== undefined && silentMs >= this.endpointingMs) {
        // Like Deepgram, the segment ends where the endpoint was found, wherever the frames end.
        this.sendResults(true, true, false, this.lastWordEndMs + this.endpointingMs);
        this.speechActive = false;
      } else if (position - this.segmentStartMs >= (this.options.maxSegmentMs ?? 5_000)) {
        this.sendResults(true, false);
      }
    } else if (
      this.segmentWords.length === 0 &&
      !inWord &&
      position - this.segmentStartMs >= (this.options.silenceFinalMs ?? 1_000)
    ) {
      this.sendResults(true, false);
    }
    if (
      this.utteranceEndMs !== undefined &&
      this.utterancePending &&
      !inWord &&
      silentMs >= this.utteranceEndMs
    ) {
      this.utterancePending = false;
      this.speechActive = false;
      this.outbox.send({
        type: 'UtteranceEnd',
        channel: [0, 1],
        last_word_end: this.lastWordEndMs / MS_PER_S,
      });
    }
  }

  private applyFaults(): void {
    applyLiveFaults(this.server, this.index, this.recognizer.positionMs, this.ws, this.outbox);
  }

  private onControl(text: string): void {
    let message: unknown = text;
    try {
      message = JSON.parse(text);
    } catch {}
    this.record.controls.push(message);
    const type = (message as { type?: unknown } | null)?.type;
    if (type === 'KeepAlive') this.record.keepAlives++;
    else if (type === 'Finalize') {
      this.record.finalizes++;
      this.finalizeNow(true);
    } else if (type === 'CloseStream') {
      this.record.closeStreams++;
      this.finalizeNow(false);
      this.outbox.send({
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: this.record.requestId,
        sha256: '0'.repeat(64),
        created: '2026-01-01T00:00:00.000Z',
        duration: this.recognizer.positionMs / MS_PER_S,
        channels: 1,
      });
      this.outbox.close(1000, '');
    }
  }

  private finalizeNow(fromFinalize: boolean): void {
    const cut = this.recognizer.cutWord();
    if (cut) {
      this.segmentWords.push(cut);
      this.lastWordEndMs = cut.endMs;
    }
    if (this.segmentWords.length > 0 || this.recognizer.positionMs > this.segmentStartMs) {
      this.sendResults(true, false, fromFinalize);
    }
  }

  private sendResults(isFinal: boolean, speechFinal: boolean, fromFinalize = false, endMs?: number): void {
    const position = Math.min(endMs ?? this.recognizer.positionMs, this.recognizer.positionMs);
    this.outbox.send({
      type: 'Results',
      channel_index: [0, 1],
      duration: (position - this.segmentStartMs) / MS_PER_S,
      start: this.segmentStartMs / MS_PER_S,
      is_final: isFinal,
      speech_final: speechFinal,
      ...(fromFinalize ? { from_finalize: true } : {}),
      channel: { alternatives: [alternative(this.segmentWords, this.punctuate)] },
      metadata: {
        request_id: this.record.requestId,
        model_info: { name: this.record.query.get('model') ?? 'general', version: '1', arch: 'fake' },
        model_uuid: '00000000-0000-0000-0000-000000000000',
      },
    });
    if (isFinal) {
      this.segmentStartMs = position;
      this.segmentWords = [];
    }
  }
}

/** Applies the faults due on connection `index` once it has heard `positionMs` of audio. */
export function applyLiveFaults(
  server: FakeDeepgramServer,
  index: number,
  positionMs: number,
  ws: WebSocket,
  outbox: Outbox,
): void {
  const faults = server.liveFaults;
  for (let i = 0; i < faults.length; i++) {
    const fault = faults[i]!;
    if (fault.connection !== index || positionMs < fault.afterAudioMs) continue;
    faults.splice(i--, 1);
    const action = fault.action;
    if (action === 'drop') ws.terminate();
    else if (action === 'malformed') outbox.raw('{"type": "Results", "channel": {oops');
    // Stops reading: the client's writes back up, as over a network that stopped moving.
    else if (action === 'stall') (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    else if ('send' in action) outbox.send(action.send);
    else outbox.close(action.close, action.reason);
  }
}

export function alternative(words: readonly HeardWord[], punctuate: boolean) {
  const shaped = words.map((heard, index) => ({
    word: heard.word,
    start: heard.startMs / MS_PER_S,
    end: heard.endMs / MS_PER_S,
    confidence: 0.9,
    punctuated_word: punctuate && index === 0 ? capitalize(heard.word) : heard.word,
  }));
  return {
    transcript: shaped.map((word) => word.punctuated_word).join(' '),
    confidence: shaped.length > 0 ? 0.9 : 0,
    words: shaped,
  };
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function isOn(query: URLSearchParams, name: string): boolean {
  return query.get(name) === 'true';
}

function invalidAuthBody(requestId: string) {
  return {
    err_code: 'INVALID_AUTH',
    err_msg: 'Invalid credentials.',
    request_id: requestId,
  };
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function decodeAudio(
  body: Buffer,
  contentType: string | undefined,
  query: URLSearchParams,
): { samples: Int16Array; sampleRate: number } {
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (contentType?.includes('wav')) {
    const frame = decodeWav(bytes);
    return { samples: frame.data, sampleRate: frame.sampleRate };
  }
  const copy = bytes.slice();
  return {
    samples: new Int16Array(copy.buffer, 0, copy.byteLength >> 1),
    sampleRate: Number(query.get('sample_rate') ?? 16_000),
  };
}
