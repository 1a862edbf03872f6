/**
 * Hands a room's incoming byte streams to their topic's handler. A frontend may send a stream the
 * moment the agent joins (the pre-connect audio buffer is sent as soon as an agent is active), before
 * the job has built its room I/O. A room registers the early topics before it joins and routes them
 * here: streams with no handler yet are held, bounded in number and time, and handed to the handler that
 * registers later. Both the rtc-node room and the test fake use this one router, so they agree.
 */
import type { Clock, TimerHandle } from '@voxwire/agents';
import type { IncomingByteStream } from './room-connection.js';
import { PRE_CONNECT_AUDIO_TOPIC } from './pre-connect-format.js';

/** The topics a room listens to from before it joins. */
export const EARLY_BYTE_STREAM_TOPICS: readonly string[] = Object.freeze([PRE_CONNECT_AUDIO_TOPIC]);

export interface ByteStreamRouterOptions {
  clock: Clock;
  /** Topics whose streams are held while no handler is registered; others are cancelled. */
  heldTopics?: readonly string[];
  /** Longest a stream is held for a handler. Default 10000 ms (the web SDK's own recording limit). */
  holdMs?: number;
  /** Most streams held at once; the oldest is cancelled beyond it. Default 8. */
  maxHeld?: number;
}

interface Held {
  stream: IncomingByteStream;
  timer: TimerHandle;
}

export class ByteStreamRouter {
  private readonly handlers = new Map<string, (stream: IncomingByteStream) => void>();
  private readonly held: Held[] = [];
  private readonly heldTopics: ReadonlySet<string>;
  private readonly holdMs: number;
  private readonly maxHeld: number;
  private closed = false;

  constructor(private readonly options: ByteStreamRouterOptions) {
    this.heldTopics = new Set(options.heldTopics ?? EARLY_BYTE_STREAM_TOPICS);
    this.holdMs = options.holdMs ?? 10_000;
    this.maxHeld = options.maxHeld ?? 8;
  }

  /** How many streams wait for a handler. */
  get heldCount(): number {
    return this.held.length;
  }

  isHeldTopic(topic: string): boolean {
    return this.heldTopics.has(topic);
  }

  register(topic: string, handler: (stream: IncomingByteStream) => void): () => void {
    if (this.handlers.has(topic)) throw new Error(`a byte stream handler for "${topic}" is already set`);
    this.handlers.set(topic, handler);
    for (const entry of this.held.filter((h) => h.stream.topic === topic)) {
      this.release(entry);
      this.hand(handler, entry.stream);
    }
    return () => {
      if (this.handlers.get(topic) === handler) this.handlers.delete(topic);
    };
  }

  /** A stream arrived from the room. */
  deliver(stream: IncomingByteStream): void {
    const handler = this.handlers.get(stream.topic);
    if (handler) {
      this.hand(handler, stream);
      return;
    }
    if (this.closed || !this.heldTopics.has(stream.topic)) {
      stream.cancel();
      return;
    }
    const entry: Held = {
      stream,
      timer: this.options.clock.setTimer(this.holdMs, () => {
        this.release(entry);
        stream.cancel();
      }),
    };
    this.held.push(entry);
    while (this.held.length > this.maxHeld) {
      const oldest = this.held[0]!;
      this.release(oldest);
      oldest.stream.cancel();
    }
  }

  /** Cancels what is held and refuses what comes later (the room is left). */
  close(): void {
    this.closed = true;
    this.handlers.clear();
    for (const entry of [...this.held]) {
      this.release(entry);
      entry.stream.cancel();
    }
  }

  private release(entry: Held): void {
    const i = this.held.indexOf(entry);
    if (i >= 0) this.held.splice(i, 1);
    entry.timer.cancel();
  }

  private hand(handler: (stream: IncomingByteStream) => void, stream: IncomingByteStream): void {
    try {
      handler(stream);
    } catch {
      // A handler that throws has not taken the stream: release it rather than leak its subscription.
      stream.cancel();
    }
  }
}
