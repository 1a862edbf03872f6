import { randomUUID } from 'node:crypto';
import { APIConnectionError, APIError, APITimeoutError } from '@voxwire/agents';
import {
  type AudioFrame,
  Channel,
  delayBeforeRetryMs,
  FrameChunker,
  isRetryableError,
  type LinkedController,
  linkedController,
  type ProviderCallOptions,
  resolveRetryPolicy,
  retryAfterFromError,
  type SynthesizedAudio,
  type TimerHandle,
  type TTSStream,
} from '@voxwire/agents/provider-utils';
import { type KeyScrubber, serverError } from './errors.js';
import type { CartesiaTTSMetrics } from './metrics.js';
import type { ResolvedOptions } from './options.js';
import { decodeBase64, PcmConverter } from './pcm.js';
import type { WordTimestamp } from './protocol.js';
import type { CartesiaSocket, ContextListener, ContextMessage, SocketPool } from './socket-pool.js';
import { type FeedStep, TextFeeder } from './text-feeder.js';

/**
 * A chunk of a Cartesia speech. `words` carries the word timestamps that arrived since the previous
 * chunk (when `wordTimestamps` is on), timed from the start of the speech's audio: the spec's
 * `SynthesizedAudio.words`, which the session's transcript follows.
 */
export interface CartesiaSynthesizedAudio extends SynthesizedAudio {
  words?: readonly WordTimestamp[];
}

/** One speech of a `CartesiaTTS`: the spec's `TTSStream`, with what Cartesia adds. */
export interface CartesiaTTSStream extends TTSStream {
  [Symbol.asyncIterator](): AsyncIterator<CartesiaSynthesizedAudio>;
  /** Every word timestamp received for this speech, in order (also those after the last chunk). */
  readonly words: readonly WordTimestamp[];
  /** The Cartesia context id of the current attempt; undefined before the speech starts. */
  readonly contextId: string | undefined;
}

export interface ContextStreamDeps {
  label: string;
  options: ResolvedOptions;
  pool: SocketPool;
  scrubber: KeyScrubber;
  /** The generation fields every message of a context repeats. */
  request: Record<string, unknown>;
}

type State = 'idle' | 'connecting' | 'live' | 'waiting' | 'finished' | 'failed' | 'cancelled';

/**
 * One speech: one Cartesia context on the TTS's shared socket. Text goes out as it is pushed
 * (`continue: true`), with a flush after every sentence end and `continue: false` at the end; audio
 * comes back as 16-bit frames of `frameSizeMs`.
 *
 * Until its first audio a speech survives a dropped socket, a retryable server error or a stall: it
 * starts over in a new context (a fresh id, all its text sent again), each retry reported as
 * `retrying`. After audio it fails instead, since starting over would repeat words already heard.
 * Cancelling (abort, `close()`, stopping the iteration) sends `cancel` for the context and stops
 * listening to it at once: audio still in flight is dropped, audio queued here is discarded.
 */
export class ContextStream implements CartesiaTTSStream {
  readonly words: WordTimestamp[] = [];
  private readonly deps: ContextStreamDeps;
  private readonly call: ProviderCallOptions;
  private readonly controller: LinkedController;
  private readonly feeder: TextFeeder;
  /** Every message of the context so far, without its id: sent again when the speech starts over. */
  private history: Array<Record<string, unknown>> = [];
  private readonly output: Channel<CartesiaSynthesizedAudio>;
  private readonly chunker: FrameChunker;
  private readonly converter: PcmConverter;
  private state: State = 'idle';
  private socket: CartesiaSocket | undefined;
  private context: string | undefined;
  private retries = 0;
  private receivedAudio = false;
  /** When the current context last sent audio. */
  private lastAudioAt: number | undefined;
  /** 16-bit bytes received over all contexts of the speech: where a new context's timestamps start. */
  private receivedBytes = 0;
  private wordOffsetMs = 0;
  private sentCharacters = 0;
  /** Text sent on the current context since its last flush: Cartesia may not have spoken it yet. */
  private sinceFlush = '';
  private inputEnded = false;
  private owedFlushes = 0;
  private owedDone = false;
  private stallTimer: TimerHandle | undefined;
  private pendingWords: WordTimestamp[] = [];
  private queuedMs = 0;
  private startedAt: number | undefined;
  private firstAudioAt: number | undefined;
  private audioMs = 0;
  private reported = false;

  constructor(deps: ContextStreamDeps, call: ProviderCallOptions = {}) {
    this.deps = deps;
    this.call = call;
    const { options } = deps;
    this.feeder = new TextFeeder(options.tokenizer);
    this.chunker = new FrameChunker({ sampleRate: options.sampleRate, durationMs: options.frameSizeMs });
    this.converter = new PcmConverter(options.encoding);
    this.output = new Channel({
      // The audio limit is checked in ms first; this only keeps the channel itself bounded.
      capacity: Math.ceil(options.maxBufferedAudioMs / options.frameSizeMs) + 16,
      overflow: 'drop-newest',
      name: `${deps.label} audio`,
    });
    this.controller = linkedController(call.signal);
    if (this.controller.signal.aborted) this.cancel();
    else this.controller.signal.addEventListener('abort', () => this.cancel(), { once: true });
  }

  get contextId(): string | undefined {
    return this.context;
  }

  pushText(text: string): void {
    if (this.inputEnded || this.isOver()) return;
    this.enqueue(this.feeder.push(text));
  }

  flush(): void {
    if (this.inputEnded || this.isOver()) return;
    this.enqueue(this.feeder.flush());
  }

  endInput(): void {
    if (this.inputEnded || this.isOver()) return;
    this.inputEnded = true;
    this.enqueue(this.feeder.end());
    if (this.state === 'idle') {
      // Nothing to say: no context is opened at all.
      this.state = 'finished';
      this.output.close();
      this.controller.dispose();
      return;
    }
    // All its audio came and the context has expired since: ending it would only draw an error.
    if (this.state === 'live' && this.contextMayHaveExpired() && this.sinceFlush === '') {
      this.finish();
      return;
    }
    this.send({ ...this.textMessage(''), continue: false });
  }

  async close(): Promise<void> {
    this.cancel();
  }

  [Symbol.asyncIterator](): AsyncIterator<CartesiaSynthesizedAudio> {
    return {
      next: async () => {
        const next = await this.output.receive();
        if (!next.done) this.queuedMs -= next.value.frame.durationMs;
        return next;
      },
      return: async () => {
        this.cancel();
        return { value: undefined, done: true };
      },
    };
  }

  private isOver(): boolean {
    return this.state === 'finished' || this.state === 'failed' || this.state === 'cancelled';
  }

  private enqueue(steps: FeedStep[]): void {
    for (const step of steps) {
      if (step.type === 'text') this.send(this.textMessage(step.text));
      else this.send({ ...this.textMessage(''), flush: true });
    }
  }

  /** Every message of a context carries the same fields but its transcript, `continue` and `flush`. */
  private textMessage(text: string): Record<string, unknown> {
    const { options } = this.deps;
    const message: Record<string, unknown> = { ...this.deps.request, transcript: text, continue: true };
    if (options.wordTimestamps) message.add_timestamps = true;
    if (options.maxBufferDelayMs !== undefined) message.max_buffer_delay_ms = options.maxBufferDelayMs;
    return message;
  }

  /** Records the message for a restart and sends it now when the context is live. */
  private send(message: Record<string, unknown>): void {
    if (this.state === 'live' && this.contextMayHaveExpired()) {
      if (!this.rotateContext()) return;
      // A new context with nothing to speak yet: a flush there would ask for nothing.
      if (message.flush === true && this.history.length === 0) return;
    }
    this.history.push(message);
    if (typeof message.transcript === 'string') {
      this.sentCharacters += message.transcript.length;
      this.sinceFlush += message.transcript;
    }
    if (message.flush === true) {
      this.owedFlushes++;
      this.sinceFlush = '';
    }
    if (message.continue === false) this.owedDone = true;
    if (this.state === 'idle') {
      this.startedAt = this.deps.options.clock.now();
      void this.start();
      return;
    }
    if (this.state !== 'live') return; // sent with the rest once connected
    try {
      this.socket!.send({ ...message, context_id: this.context });
    } catch (error) {
      this.retryOrFail(asAPIError(this.deps.label, error));
      return;
    }
    // Sending more text is no sign of life from the server: a running timer keeps running.
    if (this.stallTimer === undefined) this.armStallTimer();
  }

  /**
   * Cartesia expires a context one second after its last audio: after a pause of the LLM that long,
   * more text on it would be refused. Nothing owed and silent for `contextIdleLimitMs` (leaving room
   * for the network both ways) means the rest of the speech needs a new context.
   */
  private contextMayHaveExpired(): boolean {
    if (this.lastAudioAt === undefined || this.owedFlushes > 0 || this.owedDone) return false;
    return this.deps.options.clock.now() - this.lastAudioAt >= this.deps.options.contextIdleLimitMs;
  }

  /**
   * The speech goes on in a fresh context on the same socket; its timestamps continue where its audio
   * is. Text the old context had not been asked to speak yet is sent again on the new one, and the old
   * one is cancelled so that it cannot speak it too.
   */
  private rotateContext(): boolean {
    const socket = this.socket!;
    this.stopListening(true);
    const carried = this.sinceFlush;
    const context = randomUUID();
    this.socket = socket;
    this.context = context;
    this.history = [];
    this.sinceFlush = '';
    this.lastAudioAt = undefined;
    this.wordOffsetMs = (this.receivedBytes / 2 / this.deps.options.sampleRate) * 1000;
    try {
      socket.attach(context, this.listenerFor(context));
    } catch (error) {
      this.retryOrFail(asAPIError(this.deps.label, error));
      return false;
    }
    if (carried !== '') {
      this.sentCharacters -= carried.length;
      this.send(this.textMessage(carried));
    }
    return !this.isOver();
  }

  /** Opens a context on the shared socket and sends everything said so far. */
  private async start(): Promise<void> {
    this.state = 'connecting';
    let socket: CartesiaSocket;
    try {
      socket = await this.deps.pool.acquire(this.controller.signal);
    } catch (error) {
      if (this.isOver()) return;
      this.retryOrFail(asAPIError(this.deps.label, error));
      return;
    }
    if (this.isOver()) return;
    const context = randomUUID();
    this.socket = socket;
    this.context = context;
    try {
      socket.attach(context, this.listenerFor(context));
      for (const message of this.history) socket.send({ ...message, context_id: context });
    } catch (error) {
      this.retryOrFail(asAPIError(this.deps.label, error));
      return;
    }
    this.state = 'live';
    this.armStallTimer();
  }

  private listenerFor(context: string): ContextListener {
    // A listener outliving its attempt (a restart) must not touch the next attempt.
    const current = (): boolean => this.context === context && this.state === 'live';
    return {
      message: (message) => {
        if (current()) this.onMessage(message);
      },
      lost: (error) => {
        if (!current()) return;
        this.socket = undefined;
        this.retryOrFail(error);
      },
    };
  }

  private onMessage(message: ContextMessage): void {
    switch (message.type) {
      case 'chunk': {
        const bytes = this.converter.push(decodeBase64(message.data));
        if (bytes.length > 0) {
          this.receivedAudio = true;
          this.lastAudioAt = this.deps.options.clock.now();
          this.firstAudioAt ??= this.lastAudioAt;
          this.receivedBytes += bytes.length;
          // Audio nobody asked for yet: Cartesia spoke the unflushed text on its own (its buffer delay).
          if (this.owedFlushes === 0 && !this.owedDone) this.sinceFlush = '';
        }
        for (const frame of this.chunker.pushBytes(bytes)) {
          if (!this.deliver(frame)) return;
        }
        break;
      }
      case 'timestamps': {
        const offset = this.wordOffsetMs;
        const words =
          offset === 0
            ? message.words
            : message.words.map((w) => ({ ...w, startMs: w.startMs + offset, endMs: w.endMs + offset }));
        this.words.push(...words);
        this.pendingWords.push(...words);
        break;
      }
      case 'flush_done':
        this.owedFlushes = Math.max(0, this.owedFlushes - 1);
        break;
      case 'done':
        this.finish();
        return;
      case 'error': {
        const error = this.deps.scrubber.error(serverError(this.deps.label, message.fields, message.body));
        this.retryOrFail(error);
        return;
      }
    }
    this.armStallTimer();
  }

  /** False when the speech failed because the session fell too far behind. */
  private deliver(frame: AudioFrame): boolean {
    this.audioMs += frame.durationMs;
    this.queuedMs += frame.durationMs;
    const limit = this.deps.options.maxBufferedAudioMs;
    const item: CartesiaSynthesizedAudio =
      this.pendingWords.length > 0 ? { frame, words: this.pendingWords } : { frame };
    if (this.queuedMs > limit || !this.output.trySend(item)) {
      this.fail(
        new APIError(
          `${this.deps.label}: more than ${limit} ms of audio were waiting to be read; the speech was stopped`,
          { retryable: false },
        ),
      );
      return false;
    }
    this.pendingWords = [];
    return true;
  }

  private finish(): void {
    this.stopListening(false);
    for (const frame of this.chunker.flush()) {
      if (!this.deliver(frame)) return;
    }
    this.state = 'finished';
    this.output.close();
    this.report(undefined, false);
    this.controller.dispose();
  }

  /**
   * Starts the speech over in a new context if nothing was heard yet and the error allows it, after
   * the policy's backoff; otherwise the speech fails with the error.
   */
  private retryOrFail(error: APIError): void {
    if (this.isOver()) return;
    // The old context is abandoned: the server is told, so it does not keep generating for nobody.
    this.stopListening(true);
    const policy = resolveRetryPolicy(this.deps.options.retry);
    const delayMs =
      !this.receivedAudio && isRetryableError(error) && this.retries < policy.maxRetries
        ? delayBeforeRetryMs(policy, this.retries + 1, retryAfterFromError(error))
        : undefined;
    if (delayMs === undefined) {
      this.fail(this.receivedAudio ? afterAudio(this.deps.label, error, this.audioMs) : error);
      return;
    }
    this.retries++;
    try {
      this.call.onProblem?.({ type: 'retrying', attempt: this.retries, delayMs, error });
    } catch {
      // A listener's failure is not the speech's.
    }
    this.state = 'waiting';
    this.deps.options.clock.sleep(delayMs, this.controller.signal).then(
      () => {
        if (this.state === 'waiting') void this.start();
      },
      () => {
        // Aborted during the backoff: cancel() already ended the speech.
      },
    );
  }

  private fail(error: APIError): void {
    if (this.isOver()) return;
    this.stopListening(true);
    this.state = 'failed';
    const clean = this.deps.scrubber.error(error);
    this.output.fail(clean);
    this.report(clean, false);
    this.controller.dispose();
  }

  /** Interrupted, aborted or closed: nothing more of this speech reaches the consumer. */
  private cancel(): void {
    if (this.isOver()) {
      this.output.dispose();
      return;
    }
    const started = this.state !== 'idle';
    this.stopListening(true);
    this.state = 'cancelled';
    this.output.dispose();
    this.controller.abort();
    if (started) this.report(undefined, true);
    this.controller.dispose();
  }

  /** Detaches from the context, telling Cartesia to stop it when `cancel` and it may still be running. */
  private stopListening(cancel: boolean): void {
    this.stallTimer?.cancel();
    this.stallTimer = undefined;
    const { socket, context } = this;
    if (socket && context) {
      socket.detach(context);
      if (cancel && !socket.closed) {
        try {
          socket.send({ context_id: context, cancel: true });
        } catch {
          // The socket is going down: the context dies with it.
        }
      }
    }
    this.socket = undefined;
  }

  /** Runs while Cartesia owes audio (a flush or the end not yet answered), restarted by every message. */
  private armStallTimer(): void {
    this.stallTimer?.cancel();
    this.stallTimer = undefined;
    if (this.state !== 'live' || (this.owedFlushes === 0 && !this.owedDone)) return;
    const { clock, idleTimeoutMs } = this.deps.options;
    const socket = this.socket;
    this.stallTimer = clock.setTimer(idleTimeoutMs, () => {
      this.stallTimer = undefined;
      this.retryOrFail(
        new APITimeoutError(`${this.deps.label}: no audio from Cartesia for ${idleTimeoutMs} ms`),
      );
      // A socket silent for every speech is dead (a half-open connection): the next attempt needs another.
      if (socket && socket.silentForMs(clock.now()) >= idleTimeoutMs) socket.close();
    });
  }

  private report(error: APIError | undefined, cancelled: boolean): void {
    if (this.reported || !this.deps.options.onMetrics) return;
    this.reported = true;
    const now = this.deps.options.clock.now();
    const startedAt = this.startedAt ?? now;
    const metrics: CartesiaTTSMetrics = {
      label: this.deps.label,
      model: this.deps.options.model,
      endpoint: 'websocket',
      contextId: this.context,
      ttfbMs: this.firstAudioAt === undefined ? undefined : this.firstAudioAt - startedAt,
      characters: this.sentCharacters,
      audioDurationMs: this.audioMs,
      durationMs: now - startedAt,
      attempts: this.retries + 1,
      cancelled,
      error,
    };
    try {
      this.deps.options.onMetrics(metrics);
    } catch {
      // Metrics must never break a speech.
    }
  }
}

function asAPIError(label: string, error: unknown): APIError {
  if (error instanceof APIError) return error;
  return new APIConnectionError(`${label}: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

/** After audio went out a retry would repeat it: the error says so, and how much was received. */
function afterAudio(label: string, error: APIError, audioMs: number): APIError {
  if (!(error instanceof APIConnectionError) || error instanceof APITimeoutError) return error;
  return new APIConnectionError(
    `${label}: the connection to Cartesia broke after ${Math.round(audioMs)} ms of audio (${error.message})`,
    { cause: error },
  );
}
