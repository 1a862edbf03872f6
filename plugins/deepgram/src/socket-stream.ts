import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  type AudioFrame,
  type Clock,
  frameToBytes,
  InvalidAudioError,
  isAbortError,
  type ProviderProblem,
  ReconnectingSocket,
  type RetryPolicy,
  type STTEvent,
  type STTStream,
  type TimerHandle,
  type WebSocketData,
} from '@voxwire/agents/provider-utils';
import { openDeepgramSocket } from './handshake.js';
import { type DeepgramMetricsListener, emitMetrics } from './metrics.js';
import { PushTimeline } from './push-timeline.js';
import type { SecretScrubber } from './secrets.js';

/** A message from the server, with the stream position its clock's 0 stands for. */
export interface Incoming {
  data: string | Uint8Array;
  /** Where this connection's timestamps start, in ms of the whole stream (replay restarts them). */
  offsetMs: number;
  requestId: string | undefined;
}

export interface SocketStreamConfig {
  label: string;
  clock: Clock;
  apiKey: string;
  scrubber: SecretScrubber;
  url: URL;
  sampleRate: number;
  retry: Partial<RetryPolicy>;
  connectTimeoutMs: number;
  endInputTimeoutMs: number;
  replayCapacityMs: number;
  /** Sent while no audio flows; undefined for protocols without one. */
  keepAlive: { message: string; intervalMs: number } | undefined;
  /** What `flush()` sends: Deepgram's `Finalize`, Flux's `ForceEndTurn`. */
  flushMessage: string;
  signal: AbortSignal | undefined;
  onProblem: ((problem: ProviderProblem) => void) | undefined;
  onMetrics: DeepgramMetricsListener | undefined;
}

const CLOSE_STREAM = JSON.stringify({ type: 'CloseStream' });
/**
 * `CloseStream` weighs a sliver of audio so that no acknowledgement (which never passes the audio's
 * end) can drop it: after a reconnect during `endInput()` it must be sent again, or the server would
 * never close.
 */
const CLOSE_STREAM_SIZE_MS = 0.01;
/** Entries kept for replay; frames of 10 ms fill the default 10 s with 1_000. */
const MAX_REPLAY_MESSAGES = 4_000;

/**
 * What Deepgram's live protocols share (`/v1/listen`, Flux's `/v2/listen`): PCM16 up, JSON down,
 * reconnect with backoff and replay of the audio the server has not finalized yet, a keep-alive while
 * no audio flows, a bounded wait after `endInput()`, metrics. Subclasses map messages to events.
 */
export abstract class DeepgramSocketStream implements STTStream {
  protected readonly config: SocketStreamConfig;
  private readonly socket: ReconnectingSocket<WebSocketData, Incoming>;
  private readonly timeline = new PushTimeline();
  private readonly startedAtMs: number;
  private readonly requestIds: string[] = [];
  private keepAliveTimer: TimerHandle | undefined;
  private endTimer: TimerHandle | undefined;
  private audioSinceTick = false;
  private audioSentMs = 0;
  private processedMs = 0;
  private inputEnded = false;
  private closed = false;
  private iterating = false;
  private finished = false;
  private failure: APIError | undefined;
  private readonly onAbort = (): void => this.stopTimers();

  constructor(config: SocketStreamConfig) {
    this.config = config;
    this.startedAtMs = config.clock.now();
    const onProblem = config.onProblem;
    // As much audio as the replay buffer keeps, and never less than a second of it.
    const maxBufferedBytes = (Math.max(config.replayCapacityMs, 1_000) * config.sampleRate * 2) / 1000;
    this.socket = new ReconnectingSocket<WebSocketData, Incoming>({
      label: config.label,
      clock: config.clock,
      ...(config.signal ? { signal: config.signal } : {}),
      policy: config.retry,
      connectTimeoutMs: config.connectTimeoutMs,
      replay: { mode: 'acknowledged', capacity: config.replayCapacityMs, maxMessages: MAX_REPLAY_MESSAGES },
      ...(onProblem ? { onProblem: (problem) => onProblem(this.scrubProblem(problem)) } : {}),
      connect: async (_attempt, signal, info) => {
        const opened = await openDeepgramSocket(config.url, config.apiKey, { signal, label: config.label });
        const { connection, requestId } = opened;
        this.requestIds.push(requestId ?? '');
        const messages = (async function* () {
          for await (const data of connection.messages) yield { data, offsetMs: info.resumeFrom, requestId };
        })();
        const send = (data: WebSocketData): void => {
          // A connection that stopped draining would hold audio without a bound: replace it instead.
          // What it held is still in the replay buffer and goes out again on the next connection.
          if (opened.bufferedAmount() > maxBufferedBytes) {
            throw new APIConnectionError(
              `${config.label}: the connection stopped draining (${opened.bufferedAmount()} bytes waiting to be sent)`,
            );
          }
          connection.send(data);
        };
        return { send, close: connection.close, messages };
      },
    });
    if (config.signal?.aborted) {
      this.closed = true;
      return;
    }
    config.signal?.addEventListener('abort', this.onAbort, { once: true });
    const keepAlive = config.keepAlive;
    if (keepAlive) {
      this.keepAliveTimer = config.clock.setRepeatingTimer(keepAlive.intervalMs, () => {
        // Only on the live connection: a keep-alive is never worth replaying.
        if (!this.audioSinceTick && !this.inputEnded) this.socket.send(keepAlive.message, { replay: false });
        this.audioSinceTick = false;
      });
    }
  }

  pushFrame(frame: AudioFrame): void {
    if (this.closed || this.inputEnded || this.finished) return;
    if (frame.sampleRate !== this.config.sampleRate || frame.channels !== 1) {
      throw new InvalidAudioError(
        `${this.config.label}: frames must be mono at ${this.config.sampleRate} Hz, got ${frame.channels} channel(s) at ${frame.sampleRate} Hz`,
      );
    }
    if (frame.samplesPerChannel === 0) return;
    this.audioSinceTick = true;
    const position = this.socket.send(frameToBytes(frame), { size: frame.durationMs });
    this.audioSentMs = position;
    this.timeline.pushed(position, this.config.clock.now());
  }

  flush(): void {
    if (this.closed || this.inputEnded || this.finished) return;
    // Replayed like audio: after a reconnect the server must still be asked to finalize.
    this.socket.send(this.config.flushMessage);
    this.flushed(this.config.clock.now());
  }

  endInput(): void {
    if (this.closed || this.inputEnded || this.finished) return;
    this.inputEnded = true;
    this.socket.end(CLOSE_STREAM, { size: CLOSE_STREAM_SIZE_MS });
    this.endTimer = this.config.clock.setTimer(this.config.endInputTimeoutMs, () => {
      this.failure = new APITimeoutError(
        `${this.config.label}: the last words and the close did not arrive within ${this.config.endInputTimeoutMs} ms of endInput()`,
      );
      void this.socket.close();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopTimers();
    await this.socket.close();
    this.finish(undefined);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    if (this.iterating) throw new Error(`${this.config.label}: a stream has one consumer`);
    this.iterating = true;
    let error: APIError | undefined;
    try {
      for await (const incoming of this.socket) {
        if (this.closed) break;
        yield* this.receive(incoming);
      }
      if (this.failure && !this.closed) throw this.failure;
      if (!this.closed) yield* this.ended();
    } catch (caught) {
      if (this.closed || this.config.signal?.aborted || isAbortError(caught)) return;
      error = this.config.scrubber.error(toAPIError(caught, this.config.label));
      throw error;
    } finally {
      this.stopTimers();
      await this.socket.close();
      this.finish(error);
    }
  }

  /** Events for one parsed message; `offsetMs` turns connection times into stream times. */
  protected abstract handle(
    message: Record<string, unknown>,
    offsetMs: number,
    requestId: string | undefined,
  ): STTEvent[];

  /** The stream ended normally (after `endInput()`): what is still owed, e.g. Flux's last Update. */
  protected ended(): STTEvent[] {
    return [];
  }

  /** `flush()` was called at `atMs`. */
  protected flushed(_atMs: number): void {}

  /**
   * The server finalized the stream up to `positionMs` (stream time): that audio is not replayed, and
   * counts as processed.
   */
  protected acknowledge(positionMs: number): void {
    const position = Math.min(positionMs, this.audioSentMs);
    if (!(position > this.processedMs)) return;
    this.processedMs = position;
    this.socket.acknowledge(position);
    this.timeline.forgetBefore(position);
  }

  /** Audio the server finalized so far. */
  protected get audioProcessedMs(): number {
    return this.processedMs;
  }

  /** Clock time the audio at `positionMs` was pushed, if still known. */
  protected pushedAt(positionMs: number): number | undefined {
    return this.timeline.at(positionMs);
  }

  protected now(): number {
    return this.config.clock.now();
  }

  protected warn(message: string): void {
    this.config.onProblem?.({ type: 'warning', message: this.config.scrubber.text(message) });
  }

  protected metrics(): DeepgramMetricsListener | undefined {
    return this.config.onMetrics;
  }

  private *receive(incoming: Incoming): Generator<STTEvent> {
    if (typeof incoming.data !== 'string') {
      this.warn(`${this.config.label}: ignored a binary message from the server`);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(incoming.data);
    } catch {
      // One garbled frame must not cost the user's turn: report it and keep listening.
      this.warn(`${this.config.label}: ignored a malformed message: ${incoming.data.slice(0, 120)}`);
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.warn(
        `${this.config.label}: ignored a message that is not a JSON object: ${incoming.data.slice(0, 120)}`,
      );
      return;
    }
    yield* this.handle(message as Record<string, unknown>, incoming.offsetMs, incoming.requestId);
  }

  private scrubProblem(problem: ProviderProblem): ProviderProblem {
    if ('error' in problem && problem.error) this.config.scrubber.error(problem.error);
    if ('message' in problem) return { ...problem, message: this.config.scrubber.text(problem.message) };
    return problem;
  }

  private stopTimers(): void {
    this.keepAliveTimer?.cancel();
    this.keepAliveTimer = undefined;
    this.endTimer?.cancel();
    this.endTimer = undefined;
  }

  private finish(error: Error | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.config.signal?.removeEventListener('abort', this.onAbort);
    emitMetrics(this.config.onMetrics, {
      type: 'stream_ended',
      label: this.config.label,
      requestIds: this.requestIds.filter((id) => id !== ''),
      audioSentMs: this.audioSentMs,
      audioProcessedMs: this.processedMs,
      connections: this.requestIds.length,
      durationMs: this.config.clock.now() - this.startedAtMs,
      error,
    });
  }
}

function toAPIError(error: unknown, label: string): APIError {
  if (error instanceof APIError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new APIConnectionError(`${label}: ${message}`, { cause: error });
}
