/**
 * Receives pre-connect audio buffers (see `pre-connect-format.ts`) and keeps each one, decoded to the
 * session's format, for the microphone track it belongs to, until the room I/O links that track and
 * plays the buffer into the session ahead of the track's live frames: the user's first words, spoken
 * while the agent was still joining, are heard.
 *
 * Everything is bounded: a buffer keeps at most `maxDurationMs` of audio (the most recent, so it joins
 * the live audio without a gap), a track waits at most `timeoutMs` for its buffer, a buffer nobody
 * claims is dropped, and only a few are kept at once.
 */
import type { AudioFrame, Clock, Logger, TimerHandle } from '@voxwire/agents';
import type { IncomingByteStream, RoomConnection } from './room-connection.js';
import { OpusFormatError } from './opus-head.js';
import { OpusToSessionFormat, warmOpusDecoder } from './opus-to-session-format.js';
import {
  PcmToSessionFormat,
  PRE_CONNECT_AUDIO_TOPIC,
  PreConnectAudioError,
  type PreConnectDecoder,
  type PreConnectStreamFormat,
  preConnectStreamFormat,
} from './pre-connect-format.js';

/** What became of a pre-connect buffer: used (perhaps in part), or refused. */
export type PreConnectAudioEvent =
  | {
      type: 'used';
      trackSid: string;
      participantIdentity: string;
      /** Audio played into the session ahead of the live track. */
      durationMs: number;
      /** The oldest audio dropped beyond `preConnectAudioMaxDurationMs`. */
      droppedMs: number;
      /** The stream had not finished within the timeout, or broke off: what had arrived was used. */
      partial: boolean;
    }
  | { type: 'refused'; error: PreConnectAudioError };

export interface PreConnectAudioReceiverOptions {
  clock: Clock;
  logger: Logger;
  /** The session's input format. */
  sampleRate: number;
  channels: number;
  timeoutMs: number;
  maxDurationMs: number;
  onEvent?: ((event: PreConnectAudioEvent) => void) | undefined;
}

interface Buffer {
  readonly trackSid: string;
  readonly senderIdentity: string;
  readonly stream: IncomingByteStream;
  frames: AudioFrame[];
  durationMs: number;
  droppedMs: number;
  done: boolean;
  /** Handed to the input: nothing more is added. */
  taken: boolean;
  error: PreConnectAudioError | undefined;
  /** Wakes a `take()` waiting for more. */
  notify: (() => void) | undefined;
  expiry: TimerHandle | undefined;
}

/** Buffers kept at once (one per microphone track; a room has a handful of users at most). */
const MAX_BUFFERS = 4;

export class PreConnectAudioReceiver {
  private readonly buffers = new Map<string, Buffer>();
  private unregister: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly room: RoomConnection,
    private readonly options: PreConnectAudioReceiverOptions,
  ) {}

  /** Listens on the topic; the room hands over what arrived before (it holds the topic from before it joined). */
  start(): void {
    if (this.unregister || this.closed) return;
    this.unregister = this.room.onByteStream(PRE_CONNECT_AUDIO_TOPIC, (stream) => this.receive(stream));
    // The web SDK's recordings are Opus: have the decoder ready before the first one arrives.
    void warmOpusDecoder();
  }

  /** The tracks of the buffers received or being received. */
  get trackSids(): string[] {
    return [...this.buffers.values()].map((b) => b.trackSid);
  }

  /**
   * The buffer of `trackSid`, sent by `participantIdentity`, in the session's format, once: later calls
   * for the same track get nothing. When the buffer is announced (`expected`: the track carries the
   * pre-connect feature) or already arriving, waits for it to finish, up to `timeoutMs`, then uses what
   * has arrived. Never throws; resolves `[]` when there is nothing to play or `signal` aborts.
   */
  async take(
    trackSid: string,
    participantIdentity: string,
    options: { expected: boolean; signal: AbortSignal },
  ): Promise<AudioFrame[]> {
    const { clock, timeoutMs } = this.options;
    const deadline = clock.now() + timeoutMs;
    // Keyed by sender too: a buffer someone else sent for this track is never played as its owner's.
    const key = bufferKey(participantIdentity, trackSid);
    let buffer = this.buffers.get(key);
    if (!buffer && !options.expected) return [];
    // Wait for the stream to open (expected) and then to finish, whichever the deadline allows.
    while (!options.signal.aborted && !this.closed && !buffer?.done) {
      const left = deadline - clock.now();
      if (left <= 0) break;
      await this.waitForChange(buffer, left, options.signal);
      buffer = this.buffers.get(key);
    }
    if (!buffer) {
      if (options.expected && !options.signal.aborted && !this.closed) {
        this.report({
          type: 'refused',
          error: new PreConnectAudioError(
            'timeout',
            `the pre-connect audio of track ${trackSid} did not arrive within ${timeoutMs} ms`,
            { trackSid, participantIdentity },
          ),
        });
      }
      return [];
    }
    this.drop(buffer);
    buffer.taken = true;
    if (options.signal.aborted || this.closed) return [];
    // Still arriving after the timeout, or cut off: what did arrive is the user's voice all the same.
    const partial = !buffer.done || buffer.error !== undefined;
    if (!buffer.done) buffer.stream.cancel();
    if (buffer.frames.length === 0) {
      if (buffer.error) this.report({ type: 'refused', error: buffer.error });
      return [];
    }
    if (partial) {
      this.options.logger.warn(
        { trackSid, error: buffer.error?.message, durationMs: Math.round(buffer.durationMs) },
        'pre-connect audio incomplete; playing what arrived',
      );
    } else {
      this.options.logger.info(
        { trackSid, participant: participantIdentity, durationMs: Math.round(buffer.durationMs) },
        'playing the pre-connect audio ahead of the live track',
      );
    }
    this.report({
      type: 'used',
      trackSid,
      participantIdentity,
      durationMs: buffer.durationMs,
      droppedMs: buffer.droppedMs,
      partial,
    });
    return buffer.frames.slice();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unregister?.();
    for (const buffer of [...this.buffers.values()]) {
      this.drop(buffer);
      buffer.stream.cancel();
    }
  }

  private receive(stream: IncomingByteStream): void {
    if (this.closed) {
      stream.cancel();
      return;
    }
    let format: ReturnType<typeof preConnectStreamFormat>;
    try {
      format = preConnectStreamFormat(stream.mimeType, stream.attributes, stream.senderIdentity);
    } catch (error) {
      stream.cancel();
      if (error instanceof PreConnectAudioError) {
        this.options.logger.warn({ error: error.message, ...error.details }, 'pre-connect audio refused');
        this.report({ type: 'refused', error });
        // A refused buffer still answers the track's wait: there will be nothing to play.
        const trackSid = error.details.trackSid;
        if (trackSid) this.store(trackSid, stream, { done: true });
      }
      return;
    }
    const buffer = this.store(format.trackSid, stream, { done: false });
    void this.read(buffer, format);
  }

  private store(trackSid: string, stream: IncomingByteStream, state: { done: boolean }): Buffer {
    const key = bufferKey(stream.senderIdentity, trackSid);
    const previous = this.buffers.get(key);
    if (previous) {
      // A new buffer for the same track replaces the old one (the SDK re-sent it).
      this.drop(previous);
      previous.stream.cancel();
    }
    const buffer: Buffer = {
      trackSid,
      senderIdentity: stream.senderIdentity,
      stream,
      frames: [],
      durationMs: 0,
      droppedMs: 0,
      done: state.done,
      taken: false,
      error: undefined,
      notify: undefined,
      expiry: undefined,
    };
    this.buffers.set(key, buffer);
    while (this.buffers.size > MAX_BUFFERS) {
      const oldest = this.buffers.values().next().value!;
      this.drop(oldest);
      oldest.stream.cancel();
    }
    if (state.done) this.expireLater(buffer);
    this.wakeWaiters();
    return buffer;
  }

  private async read(buffer: Buffer, format: PreConnectStreamFormat): Promise<void> {
    const target = { sampleRate: this.options.sampleRate, channels: this.options.channels };
    const decoder: PreConnectDecoder =
      format.encoding === 'pcm' ? new PcmToSessionFormat(format, target) : new OpusToSessionFormat(target);
    const details = {
      trackSid: buffer.trackSid,
      participantIdentity: buffer.senderIdentity,
      mimeType: buffer.stream.mimeType,
    };
    try {
      for await (const chunk of buffer.stream) {
        this.append(buffer, await decoder.push(chunk));
        buffer.notify?.();
      }
      this.append(buffer, await decoder.flush());
    } catch (error) {
      buffer.stream.cancel();
      buffer.error =
        error instanceof OpusFormatError
          ? new PreConnectAudioError(
              error.unsupported ? 'unsupported_format' : 'decode_failed',
              `the pre-connect audio of track ${buffer.trackSid} cannot be decoded: ${error.message}`,
              details,
            )
          : new PreConnectAudioError(
              'read_failed',
              `reading the pre-connect audio of track ${buffer.trackSid} failed: ${describe(error)}`,
              details,
            );
    } finally {
      decoder.close();
    }
    buffer.done = true;
    this.options.logger.debug(
      { trackSid: buffer.trackSid, durationMs: Math.round(buffer.durationMs), droppedMs: buffer.droppedMs },
      'pre-connect audio received',
    );
    if (this.buffers.get(bufferKey(buffer.senderIdentity, buffer.trackSid)) === buffer) {
      this.expireLater(buffer);
    }
    buffer.notify?.();
  }

  /** Keeps the most recent `maxDurationMs`: the oldest frames go first. */
  private append(buffer: Buffer, frames: AudioFrame[]): void {
    if (buffer.taken) return;
    for (const frame of frames) {
      buffer.frames.push(frame);
      buffer.durationMs += frame.durationMs;
    }
    while (buffer.durationMs > this.options.maxDurationMs && buffer.frames.length > 0) {
      const oldest = buffer.frames.shift()!;
      buffer.durationMs -= oldest.durationMs;
      buffer.droppedMs += oldest.durationMs;
    }
  }

  /** A finished buffer nobody claims within the timeout belongs to no linked track: free it. */
  private expireLater(buffer: Buffer): void {
    buffer.expiry?.cancel();
    buffer.expiry = this.options.clock.setTimer(Math.max(this.options.timeoutMs, 10_000), () => {
      this.drop(buffer);
    });
  }

  private drop(buffer: Buffer): void {
    buffer.expiry?.cancel();
    const key = bufferKey(buffer.senderIdentity, buffer.trackSid);
    if (this.buffers.get(key) === buffer) this.buffers.delete(key);
  }

  private readonly waiters = new Set<() => void>();

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Sleeps until the buffer grows or finishes, a buffer arrives, `ms` pass, or `signal` aborts. */
  private async waitForChange(buffer: Buffer | undefined, ms: number, signal: AbortSignal): Promise<void> {
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.waiters.add(wake);
    if (buffer) buffer.notify = wake;
    try {
      await Promise.race([woken, this.options.clock.sleep(ms, timer.signal).catch(() => {})]);
    } finally {
      this.waiters.delete(wake);
      if (buffer && buffer.notify === wake) buffer.notify = undefined;
      signal.removeEventListener('abort', onAbort);
      timer.abort();
    }
  }

  private report(event: PreConnectAudioEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      this.options.logger.warn({ error: describe(error) }, 'onPreConnectAudio failed');
    }
  }
}

function bufferKey(senderIdentity: string, trackSid: string): string {
  return `${senderIdentity}\u0000${trackSid}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
