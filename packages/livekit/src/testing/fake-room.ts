/**
 * An in-memory `RoomConnection` for tests: participants, tracks and text streams are driven by the
 * test, and the agent's published audio plays into a sink paced by the clock, whose queue behaves like
 * rtc-node's `AudioSource` (captured audio plays out at real speed; a full queue holds the caller).
 */
import { type AudioFrame, type Clock, dtmfCode } from '@voxwire/agents';
import { Channel } from '@voxwire/agents/provider-utils';
import { ByteStreamRouter } from '../room/byte-stream-router.js';
import type {
  AudioSink,
  AudioTrackStream,
  IncomingByteStream,
  ParticipantInfo,
  PublishAudioOptions,
  PublishedAudio,
  RemoteAudioTrackInfo,
  RoomConnection,
  RoomEvent,
  TextStreamOptions,
  TextStreamWriterLike,
} from '../room/room-connection.js';

export function participant(identity: string, kind: ParticipantInfo['kind'] = 'standard'): ParticipantInfo {
  return { identity, name: identity, kind, metadata: '', attributes: {} };
}

/** A sink whose queue drains with the clock, like an `AudioSource` feeding a WebRTC track. */
export class FakeAudioSink implements AudioSink {
  readonly frames: AudioFrame[] = [];
  capturedMs = 0;
  clears = 0;
  closed = false;
  private queueEndsAt = 0;

  constructor(
    private readonly clock: Clock,
    readonly sampleRate: number,
    readonly channels: number,
    private readonly queueSizeMs: number,
  ) {}

  get queuedDurationMs(): number {
    return Math.max(0, this.queueEndsAt - this.clock.now());
  }

  async captureFrame(frame: AudioFrame): Promise<void> {
    if (this.closed) throw new Error('the sink is closed');
    const start = Math.max(this.queueEndsAt, this.clock.now());
    this.queueEndsAt = start + frame.durationMs;
    this.frames.push(frame);
    this.capturedMs += frame.durationMs;
    const over = this.queuedDurationMs - this.queueSizeMs;
    if (over > 0) await this.clock.sleep(over);
  }

  clearQueue(): void {
    this.clears++;
    this.queueEndsAt = this.clock.now();
  }

  async waitForPlayout(): Promise<void> {
    const wait = this.queuedDurationMs;
    if (wait > 0) await this.clock.sleep(wait);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A byte stream the test sends into the room: push chunks, then end (or fail) it. */
export class FakeByteStream implements IncomingByteStream {
  readonly attributes: Readonly<Record<string, string>>;
  readonly mimeType: string;
  readonly totalSize: number | undefined = undefined;
  cancelled = false;
  private readonly chunks: Channel<Uint8Array>;
  private failure: Error | undefined;

  constructor(
    readonly topic: string,
    readonly senderIdentity: string,
    options: { mimeType?: string; attributes?: Record<string, string> } = {},
  ) {
    this.mimeType = options.mimeType ?? '';
    this.attributes = { ...options.attributes };
    this.chunks = new Channel<Uint8Array>({ capacity: 100_000, overflow: 'drop-oldest', name: topic });
  }

  async push(chunk: Uint8Array): Promise<void> {
    if (!this.cancelled) await this.chunks.send(chunk);
  }

  end(): void {
    this.chunks.close();
  }

  /** The sender went away mid-stream: the reader's iteration throws. */
  fail(error = new Error('the sender disconnected')): void {
    this.failure = error;
    this.chunks.close();
  }

  cancel(): void {
    this.cancelled = true;
    this.chunks.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for await (const chunk of this.chunks) {
      if (this.cancelled) return;
      yield chunk;
    }
    if (this.failure && !this.cancelled) throw this.failure;
  }
}

export interface SentText {
  topic: string;
  attributes: Record<string, string>;
  senderIdentity: string | undefined;
  text: string;
  closed: boolean;
}

export class FakeRoom implements RoomConnection {
  readonly participants = new Map<string, ParticipantInfo>();
  readonly attributes: Record<string, string> = {};
  /** Every value `lk.agent.state` was set to, in order. */
  readonly attributeHistory: Array<Record<string, string>> = [];
  readonly texts: SentText[] = [];
  readonly openedTracks: string[] = [];
  sink: FakeAudioSink | undefined;
  disconnected = false;
  private readonly listeners = new Set<(event: RoomEvent) => void>();
  private readonly textHandlers = new Map<
    string,
    (text: string, sender: ParticipantInfo | undefined) => void
  >();
  private readonly tracks = new Map<string, Channel<AudioFrame>>();
  private readonly trackInfo = new Map<string, { identity: string; info: RemoteAudioTrackInfo }>();
  /** The same router as the rtc-node room: early topics are held until a handler registers. */
  readonly byteStreams: ByteStreamRouter;

  constructor(
    private readonly clock: Clock,
    readonly name = 'fake-room',
    readonly localIdentity = 'agent-1',
  ) {
    this.byteStreams = new ByteStreamRouter({ clock });
  }

  // The test's side: what happens in the room.
  join(p: ParticipantInfo): void {
    this.participants.set(p.identity, p);
    this.emit({ type: 'participant_connected', participant: p });
  }

  leave(identity: string): void {
    const p = this.participants.get(identity);
    if (!p) return;
    this.participants.delete(identity);
    this.emit({ type: 'participant_disconnected', participant: p });
  }

  /**
   * Publishes a microphone track for a participant; returns the channel to push its frames into.
   * `preConnectBuffer`: the track announces a pre-connect audio buffer (sent with `sendByteStream`).
   */
  publishMicrophone(
    identity: string,
    trackSid = `TR_${identity}`,
    options: { preConnectBuffer?: boolean } = {},
  ): Channel<AudioFrame> {
    const channel = new Channel<AudioFrame>({ capacity: 1000, overflow: 'drop-oldest', name: trackSid });
    const preConnectBuffer = options.preConnectBuffer === true;
    this.tracks.set(trackSid, channel);
    this.trackInfo.set(trackSid, {
      identity,
      info: { trackSid, source: 'microphone', muted: false, preConnectBuffer },
    });
    this.emit({
      type: 'audio_track_subscribed',
      participant: this.participants.get(identity)!,
      trackSid,
      source: 'microphone',
      preConnectBuffer,
    });
    return channel;
  }

  /** A participant opens a byte stream to the agent; push its chunks and end it through the result. */
  sendByteStream(
    from: string,
    topic: string,
    options: { mimeType?: string; attributes?: Record<string, string> } = {},
  ): FakeByteStream {
    const stream = new FakeByteStream(topic, from, options);
    this.byteStreams.deliver(stream);
    return stream;
  }

  mute(identity: string, trackSid = `TR_${identity}`, muted = true): void {
    const track = this.trackInfo.get(trackSid);
    if (track) track.info = { ...track.info, muted };
    this.emit({
      type: muted ? 'track_muted' : 'track_unmuted',
      participant: this.participants.get(identity)!,
      trackSid,
    });
  }

  chat(text: string, from: string): void {
    this.textHandlers.get('lk.chat')?.(text, this.participants.get(from));
  }

  /** A keypad press as LiveKit's SIP bridge reports it: the RFC 4733 code with the digit, unless given. */
  dtmf(identity: string, digit: string, code = dtmfCode(digit) ?? 0): void {
    this.emit({
      type: 'dtmf',
      participant: this.participants.get(identity)!,
      code,
      digit,
    });
  }

  closeRoom(reason = 'ROOM_DELETED'): void {
    this.emit({ type: 'disconnected', reason });
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  // RoomConnection.
  remoteParticipants(): ParticipantInfo[] {
    return [...this.participants.values()];
  }

  remoteAudioTracks(identity: string): RemoteAudioTrackInfo[] {
    return [...this.trackInfo.values()].filter((t) => t.identity === identity).map((t) => t.info);
  }

  onEvent(listener: (event: RoomEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  openAudioTrack(trackSid: string): AudioTrackStream {
    this.openedTracks.push(trackSid);
    const channel = this.tracks.get(trackSid);
    let closed = false;
    return {
      close: () => {
        closed = true;
      },
      async *[Symbol.asyncIterator]() {
        if (!channel) return;
        for await (const frame of channel) {
          if (closed) return;
          yield frame;
        }
      },
    };
  }

  async publishAudio(options: PublishAudioOptions): Promise<PublishedAudio> {
    this.sink = new FakeAudioSink(this.clock, options.sampleRate, options.channels, options.queueSizeMs);
    return { sink: this.sink, trackSid: 'TR_agent' };
  }

  async setLocalAttributes(attributes: Record<string, string>): Promise<void> {
    Object.assign(this.attributes, attributes);
    this.attributeHistory.push({ ...attributes });
  }

  async streamText(options: TextStreamOptions): Promise<TextStreamWriterLike> {
    const sent: SentText = {
      topic: options.topic,
      attributes: { ...options.attributes },
      senderIdentity: options.senderIdentity,
      text: '',
      closed: false,
    };
    this.texts.push(sent);
    return {
      write: async (text) => {
        if (sent.closed) throw new Error('the stream is closed');
        sent.text += text;
      },
      close: async () => {
        sent.closed = true;
      },
    };
  }

  onText(topic: string, handler: (text: string, sender: ParticipantInfo | undefined) => void): () => void {
    this.textHandlers.set(topic, handler);
    return () => this.textHandlers.delete(topic);
  }

  onByteStream(topic: string, handler: (stream: IncomingByteStream) => void): () => void {
    return this.byteStreams.register(topic, handler);
  }

  async disconnect(): Promise<void> {
    this.disconnected = true;
    this.byteStreams.close();
    for (const channel of this.tracks.values()) channel.close();
  }

  private emit(event: RoomEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}
