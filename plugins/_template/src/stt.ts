import {
  APIConnectionError,
  APIError,
  APIStatusError,
  APITimeoutError,
  type AudioFrame,
} from '@voxwire/agents';
import {
  frameToBytes,
  SPECIFICATION_VERSION,
  type SpeechAlternative,
  type STTEvent,
  type STTStream,
  type STTStreamOptions,
  type StreamingSTT,
} from '@voxwire/agents/provider-utils';
import { type RawData, WebSocket } from 'ws';
import { DEFAULT_BASE_URL } from './http.js';

export interface EchoSTTOptions {
  /** `http(s)://` or `ws(s)://`; defaults to the imaginary `https://api.echo-speech.invalid`. */
  baseUrl?: string;
  apiKey?: string;
  /** Audio held while connecting or while the network is behind; the oldest goes first. Default 2 s. */
  maxBufferedMs?: number;
  /** Connecting, and the server's goodbye after `endInput()`, must each take less. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Streaming speech-to-text (spec: `providers/stt.ts`) for the imaginary Echo Speech API: a WebSocket at
 * `/v1/listen?sample_rate=16000`; the client sends binary PCM16 frames and `{"type":"finalize"}` /
 * `{"type":"close"}`; the server sends `interim`, `final`, `speech_started`, `speech_ended`, `error`.
 */
export class EchoSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label = 'echo-speech/stt';
  readonly inputSampleRates = [16_000];

  constructor(private readonly options: EchoSTTOptions = {}) {}

  stream(options: STTStreamOptions): STTStream {
    return new EchoSTTStream(this.label, this.options, options);
  }
}

class EchoSTTStream implements STTStream {
  private readonly socket: WebSocket | undefined;
  private readonly closed: Promise<void>;
  private readonly events: STTEvent[] = [];
  /** What waits for the socket to open: audio (with its duration) and control messages, in order. */
  private readonly outbox: { data: Uint8Array | string; ms: number }[] = [];
  private bufferedMs = 0;
  private droppedMs = 0;
  private failure: APIError | undefined;
  private ended = false; // no more events will come: a normal end, close(), an abort or a failure
  private inputEnded = false;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => void this.close();

  constructor(
    private readonly label: string,
    private readonly options: EchoSTTOptions,
    private readonly call: STTStreamOptions,
  ) {
    if (call.signal?.aborted) {
      this.ended = true;
      this.closed = Promise.resolve();
      return;
    }
    const url = new URL('/v1/listen', (options.baseUrl ?? DEFAULT_BASE_URL).replace(/^http/, 'ws'));
    url.searchParams.set('sample_rate', String(call.sampleRate));
    if (call.language) url.searchParams.set('language', call.language);
    const headers: Record<string, string> = options.apiKey
      ? { authorization: `Bearer ${options.apiKey}` }
      : {};
    const socket = new WebSocket(url, { headers });
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    this.arm('could not connect in time');
    socket.on('open', () => {
      clearTimeout(this.timer);
      for (const item of this.outbox.splice(0)) socket.send(item.data);
      this.bufferedMs = 0;
      this.reportDrops();
      if (this.inputEnded) this.arm('the server did not close after endInput()');
    });
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('unexpected-response', (_request, response) => {
      const statusCode = response.statusCode ?? 0;
      this.fail(new APIStatusError(`${this.label}: HTTP ${statusCode} on connect`, { statusCode }));
    });
    socket.on('error', (error) =>
      this.fail(new APIConnectionError(`${this.label}: ${error.message}`, { cause: error })),
    );
    socket.on('close', (code) => {
      // 1000 after endInput(): the server said all it heard. Anything else ends the stream early.
      if (this.inputEnded && code === 1000) this.finish();
      else this.fail(new APIConnectionError(`${this.label}: the connection closed (code ${code})`));
    });
    call.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  pushFrame(frame: AudioFrame): void {
    if (this.ended || this.inputEnded || !this.socket) return;
    const ms = frame.durationMs;
    if (this.socket.readyState === WebSocket.OPEN) {
      const maxBytes = (this.maxBufferedMs * frame.sampleRate * 2) / 1000;
      if (this.socket.bufferedAmount > maxBytes) {
        this.droppedMs += ms; // the network is behind: drop what cannot be sent
      } else {
        this.socket.send(frameToBytes(frame));
        this.reportDrops();
      }
      return;
    }
    // Still connecting: keep a copy (the caller may reuse its buffer); when full, the oldest audio goes.
    this.outbox.push({ data: frameToBytes(frame).slice(), ms });
    this.bufferedMs += ms;
    while (this.bufferedMs > this.maxBufferedMs) {
      const oldest = this.outbox.findIndex((item) => item.ms > 0);
      const { ms: oldestMs } = this.outbox.splice(oldest, 1)[0]!;
      this.bufferedMs -= oldestMs;
      this.droppedMs += oldestMs;
    }
  }

  flush(): void {
    this.sendControl('finalize');
  }

  endInput(): void {
    if (this.inputEnded) return;
    this.sendControl('close');
    this.inputEnded = true;
    if (this.socket?.readyState === WebSocket.OPEN) this.arm('the server did not close after endInput()');
  }

  async close(): Promise<void> {
    this.events.length = 0;
    this.failure = undefined; // closing ends the iteration quietly
    this.finish();
    await this.closed;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    try {
      while (true) {
        const event = this.events.shift();
        if (event) yield event;
        else if (this.failure) throw this.failure;
        else if (this.ended) return;
        else await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      await this.close(); // also when the consumer stops early
    }
  }

  private get maxBufferedMs(): number {
    return this.options.maxBufferedMs ?? 2000;
  }

  private sendControl(type: 'finalize' | 'close'): void {
    if (this.ended || this.inputEnded || !this.socket) return;
    const data = JSON.stringify({ type });
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(data);
    else this.outbox.push({ data, ms: 0 });
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.ended) return;
    const result = parseMessage(this.label, isBinary ? undefined : data.toString(), this.call.language);
    if (result instanceof APIError) this.fail(result);
    else if (result) this.emit(result);
  }

  private emit(event: STTEvent): void {
    this.events.push(event);
    this.wake?.();
  }

  private fail(error: APIError): void {
    if (this.ended) return;
    this.failure = error;
    this.finish();
  }

  /** Ends the stream (idempotent): stops timers, releases the socket, wakes the iteration. */
  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.call.signal?.removeEventListener('abort', this.onAbort);
    this.outbox.length = 0;
    this.reportDrops();
    this.socket?.terminate();
    this.wake?.();
  }

  private arm(reason: string): void {
    clearTimeout(this.timer);
    const ms = this.options.timeoutMs ?? 10_000;
    this.timer = setTimeout(() => this.fail(new APITimeoutError(`${this.label}: ${reason}`)), ms);
  }

  private reportDrops(): void {
    if (this.droppedMs === 0) return;
    const droppedMs = this.droppedMs;
    this.droppedMs = 0;
    this.call.onProblem?.({ type: 'audio_dropped', droppedMs, message: 'the connection fell behind' });
  }
}

/** A server message as an event, a typed error, or `undefined` for message types newer than this code. */
function parseMessage(
  label: string,
  text: string | undefined,
  language?: string,
): STTEvent | APIError | undefined {
  let message: Record<string, unknown> | null = null;
  try {
    message = JSON.parse(text ?? '');
  } catch {}
  const malformed = new APIError(`${label}: malformed message: ${text?.slice(0, 100) ?? '(binary)'}`, {
    retryable: false,
    body: text,
  });
  if (typeof message !== 'object' || message === null) return malformed;
  switch (message.type) {
    case 'speech_started':
      return { type: 'start_of_speech' };
    case 'speech_ended':
      return { type: 'end_of_speech' };
    case 'interim':
    case 'final': {
      const { text, confidence } = message;
      if (typeof text !== 'string' || !['number', 'undefined'].includes(typeof confidence)) return malformed;
      const alternative: SpeechAlternative = { text, confidence: confidence as number | undefined, language };
      const type = message.type === 'final' ? 'final_transcript' : 'interim_transcript';
      return { type, alternatives: [alternative] };
    }
    case 'error': {
      const { code } = message;
      const description = `${label}: ${message.message} (code ${code})`;
      if (typeof code === 'number' && code >= 400 && code < 600) {
        return new APIStatusError(description, { statusCode: code, body: message });
      }
      return new APIError(description, { retryable: false, body: message });
    }
  }
  return undefined;
}
