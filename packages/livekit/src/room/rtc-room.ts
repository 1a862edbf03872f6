/**
 * `RoomConnection` over `@livekit/rtc-node`. rtc-node is loaded on first use, so importing this package
 * (or running its worker against a fake) needs no native library until a real room is joined.
 */
import type * as Rtc from '@livekit/rtc-node';
import { AudioFrame, realClock } from '@voxwire/agents';
import { ByteStreamRouter, EARLY_BYTE_STREAM_TOPICS } from './byte-stream-router.js';
import type {
  AudioSink,
  AudioTrackStream,
  IncomingByteStream,
  ParticipantInfo,
  ParticipantKind,
  PublishAudioOptions,
  PublishedAudio,
  RemoteAudioTrackInfo,
  RoomConnection,
  RoomEvent,
  TextStreamOptions,
  TextStreamWriterLike,
  TrackSource,
} from './room-connection.js';

type RtcModule = typeof Rtc;
let rtcModule: Promise<RtcModule> | undefined;

/** The rtc-node module, imported once. */
export function loadRtcNode(): Promise<RtcModule> {
  rtcModule ??= import('@livekit/rtc-node');
  return rtcModule;
}

/**
 * Releases rtc-node's native runtime, which otherwise keeps the process alive. Call once, at the very
 * end (the worker's `runWorker` does); a process that never joined a room has nothing to release.
 */
export async function disposeRtcNode(): Promise<void> {
  if (!rtcModule) return;
  const rtc = await rtcModule;
  await rtc.dispose();
}

/**
 * Joins a room with rtc-node (auto-subscribing), for the worker's jobs. The early byte stream topics
 * (the pre-connect audio buffer) are listened to from before joining, so a stream a frontend sends the
 * moment the agent appears waits for the job's room I/O instead of being dropped by rtc-node.
 */
export async function connectRtcRoom(url: string, token: string): Promise<RoomConnection> {
  const rtc = await loadRtcNode();
  const room = new rtc.Room();
  const byteStreams = new ByteStreamRouter({ clock: realClock(), heldTopics: EARLY_BYTE_STREAM_TOPICS });
  for (const topic of EARLY_BYTE_STREAM_TOPICS) {
    room.registerByteStreamHandler(topic, (reader, from) =>
      byteStreams.deliver(incomingByteStream(reader, from.identity)),
    );
  }
  try {
    await room.connect(url, token, { autoSubscribe: true, dynacast: false });
  } catch (error) {
    byteStreams.close();
    throw error;
  }
  return new RtcRoomConnection(rtc, room, byteStreams);
}

/** rtc-node's reader as an `IncomingByteStream`. */
export function incomingByteStream(reader: Rtc.ByteStreamReader, senderIdentity: string): IncomingByteStream {
  const info = reader.info;
  let cancelled = false;
  return {
    topic: info.topic,
    mimeType: info.mimeType ?? '',
    attributes: { ...(info.attributes ?? {}) },
    senderIdentity,
    totalSize: info.totalSize,
    cancel: () => {
      if (cancelled) return;
      cancelled = true;
      // Unsubscribes the reader from the native stream (a reader never read would otherwise live on).
      void reader.close().catch(() => {});
    },
    async *[Symbol.asyncIterator]() {
      for await (const chunk of reader) {
        if (cancelled) return;
        yield chunk;
      }
    },
  };
}

/** Whether a publication announces a pre-connect buffer (`TF_PRECONNECT_BUFFER`, audio feature 6). */
function hasPreConnectBuffer(publication: Rtc.TrackPublication): boolean {
  // The feature list is on rtc-node's publication info (typed, marked internal); 6 is the protocol's value.
  const features = publication.info?.audioFeatures as readonly number[] | undefined;
  return features?.includes(TF_PRECONNECT_BUFFER) === true;
}

const TF_PRECONNECT_BUFFER = 6;

export function participantKindOf(rtc: RtcModule, kind: number | undefined): ParticipantKind {
  switch (kind) {
    case rtc.ParticipantKind.STANDARD:
      return 'standard';
    case rtc.ParticipantKind.SIP:
      return 'sip';
    case rtc.ParticipantKind.AGENT:
      return 'agent';
    case rtc.ParticipantKind.INGRESS:
      return 'ingress';
    case rtc.ParticipantKind.EGRESS:
      return 'egress';
    case rtc.ParticipantKind.CONNECTOR:
      return 'connector';
    default:
      return 'unknown';
  }
}

function trackSourceOf(rtc: RtcModule, source: number | undefined): TrackSource {
  if (source === rtc.TrackSource.SOURCE_MICROPHONE) return 'microphone';
  if (source === rtc.TrackSource.SOURCE_SCREENSHARE_AUDIO) return 'screen_share_audio';
  return 'unknown';
}

/** rtc-node's `AudioSource` as an `AudioSink`: the same operations, frames converted. */
export class RtcAudioSink implements AudioSink {
  constructor(
    private readonly rtc: RtcModule,
    readonly source: Rtc.AudioSource,
  ) {}

  get sampleRate(): number {
    return this.source.sampleRate;
  }

  get channels(): number {
    return this.source.numChannels;
  }

  get queuedDurationMs(): number {
    return this.source.queuedDuration;
  }

  captureFrame(frame: AudioFrame): Promise<void> {
    return this.source.captureFrame(
      new this.rtc.AudioFrame(frame.data, frame.sampleRate, frame.channels, frame.samplesPerChannel),
    );
  }

  clearQueue(): void {
    this.source.clearQueue();
  }

  waitForPlayout(): Promise<void> {
    return this.source.waitForPlayout();
  }

  close(): Promise<void> {
    return this.source.close();
  }
}

class RtcRoomConnection implements RoomConnection {
  private readonly listeners = new Set<(event: RoomEvent) => void>();
  private readonly tracks = new Map<string, Rtc.RemoteTrack>();

  constructor(
    private readonly rtc: RtcModule,
    private readonly room: Rtc.Room,
    private readonly byteStreams: ByteStreamRouter,
  ) {
    const E = rtc.RoomEvent;
    room
      .on(E.ParticipantConnected, (p) =>
        this.emit({ type: 'participant_connected', participant: this.info(p) }),
      )
      .on(E.ParticipantDisconnected, (p) =>
        this.emit({ type: 'participant_disconnected', participant: this.info(p) }),
      )
      .on(E.TrackSubscribed, (track, publication, p) => {
        if (track.kind !== rtc.TrackKind.KIND_AUDIO || !publication.sid) return;
        this.tracks.set(publication.sid, track);
        this.emit({
          type: 'audio_track_subscribed',
          participant: this.info(p),
          trackSid: publication.sid,
          source: trackSourceOf(rtc, publication.source),
          preConnectBuffer: hasPreConnectBuffer(publication),
        });
      })
      .on(E.TrackUnsubscribed, (track, publication, p) => {
        if (track.kind !== rtc.TrackKind.KIND_AUDIO || !publication.sid) return;
        this.tracks.delete(publication.sid);
        this.emit({ type: 'audio_track_unsubscribed', participant: this.info(p), trackSid: publication.sid });
      })
      .on(E.TrackMuted, (publication, p) => {
        if (publication.sid)
          this.emit({ type: 'track_muted', participant: this.info(p), trackSid: publication.sid });
      })
      .on(E.TrackUnmuted, (publication, p) => {
        if (publication.sid)
          this.emit({ type: 'track_unmuted', participant: this.info(p), trackSid: publication.sid });
      })
      .on(E.DtmfReceived, (code, digit, p) =>
        this.emit({ type: 'dtmf', participant: this.info(p), code, digit }),
      )
      .on(E.Disconnected, (reason) => this.emit({ type: 'disconnected', reason: String(reason) }));
    // Tracks already subscribed before we listened.
    for (const p of room.remoteParticipants.values()) {
      for (const publication of p.trackPublications.values()) {
        const track = publication.track;
        if (track && track.kind === rtc.TrackKind.KIND_AUDIO && publication.sid) {
          this.tracks.set(publication.sid, track);
        }
      }
    }
  }

  get name(): string {
    return this.room.name ?? '';
  }

  get localIdentity(): string {
    return this.room.localParticipant?.identity ?? '';
  }

  remoteParticipants(): ParticipantInfo[] {
    return [...this.room.remoteParticipants.values()].map((p) => this.info(p));
  }

  onEvent(listener: (event: RoomEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  remoteAudioTracks(identity: string): RemoteAudioTrackInfo[] {
    const p = this.room.remoteParticipants.get(identity);
    if (!p) return [];
    const tracks: RemoteAudioTrackInfo[] = [];
    for (const publication of p.trackPublications.values()) {
      if (publication.sid && this.tracks.has(publication.sid)) {
        tracks.push({
          trackSid: publication.sid,
          source: trackSourceOf(this.rtc, publication.source),
          muted: publication.muted === true,
          preConnectBuffer: hasPreConnectBuffer(publication),
        });
      }
    }
    return tracks;
  }

  openAudioTrack(trackSid: string, options: { sampleRate: number; channels: number }): AudioTrackStream {
    const track = this.tracks.get(trackSid);
    if (!track) return emptyTrackStream();
    const stream = new this.rtc.AudioStream(track, {
      sampleRate: options.sampleRate,
      numChannels: options.channels,
    });
    const reader = stream.getReader();
    let closed = false;
    return {
      close: () => {
        if (closed) return;
        closed = true;
        void reader.cancel().catch(() => {});
      },
      async *[Symbol.asyncIterator]() {
        while (!closed) {
          const { done, value } = await reader.read();
          if (done || !value) return;
          yield new AudioFrame(value.data, value.sampleRate, value.channels, value.samplesPerChannel);
        }
      },
    };
  }

  async publishAudio(options: PublishAudioOptions): Promise<PublishedAudio> {
    const rtc = this.rtc;
    const source = new rtc.AudioSource(options.sampleRate, options.channels, options.queueSizeMs);
    const track = rtc.LocalAudioTrack.createAudioTrack(options.trackName, source);
    const publishOptions = new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE });
    const publication = await this.local().publishTrack(track, publishOptions);
    return { sink: new RtcAudioSink(rtc, source), trackSid: publication.sid ?? '' };
  }

  async setLocalAttributes(attributes: Record<string, string>): Promise<void> {
    await this.local().setAttributes(attributes);
  }

  async streamText(options: TextStreamOptions): Promise<TextStreamWriterLike> {
    const writer = await this.local().streamText({
      topic: options.topic,
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(options.senderIdentity ? { senderIdentity: options.senderIdentity } : {}),
    });
    return { write: (text) => writer.write(text), close: () => writer.close() };
  }

  onText(topic: string, handler: (text: string, sender: ParticipantInfo | undefined) => void): () => void {
    this.room.registerTextStreamHandler(topic, (reader, from) => {
      void reader.readAll().then(
        (text) => {
          const p = this.room.remoteParticipants.get(from.identity);
          handler(text, p ? this.info(p) : undefined);
        },
        () => {},
      );
    });
    return () => this.room.unregisterTextStreamHandler(topic);
  }

  onByteStream(topic: string, handler: (stream: IncomingByteStream) => void): () => void {
    // Early topics are registered with rtc-node since before joining; others are registered now.
    const early = this.byteStreams.isHeldTopic(topic);
    const unregister = this.byteStreams.register(topic, handler);
    if (!early) {
      this.room.registerByteStreamHandler(topic, (reader, from) =>
        this.byteStreams.deliver(incomingByteStream(reader, from.identity)),
      );
    }
    return () => {
      unregister();
      if (!early) this.room.unregisterByteStreamHandler(topic);
    };
  }

  async disconnect(): Promise<void> {
    this.byteStreams.close();
    for (const topic of EARLY_BYTE_STREAM_TOPICS) this.room.unregisterByteStreamHandler(topic);
    for (const track of this.tracks.keys()) this.tracks.delete(track);
    await this.room.disconnect();
  }

  private local(): Rtc.LocalParticipant {
    const local = this.room.localParticipant;
    if (!local) throw new Error('the room is not connected');
    return local;
  }

  private info(p: Rtc.Participant): ParticipantInfo {
    return {
      identity: p.identity ?? '',
      name: p.name ?? '',
      kind: participantKindOf(this.rtc, p.kind),
      metadata: p.metadata ?? '',
      attributes: { ...(p.attributes ?? {}) },
    };
  }

  private emit(event: RoomEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}

function emptyTrackStream(): AudioTrackStream {
  return {
    close() {},
    async *[Symbol.asyncIterator]() {},
  };
}
