/**
 * The part of a LiveKit room that Voxwire uses, as a small interface. The worker and the room I/O talk
 * only to this; `connectRtcRoom` implements it with `@livekit/rtc-node`, and the tests with a fake, so
 * the bridging logic (agent state, transcripts, playback timing, mute) runs without a server.
 */
import type { AudioFrame } from '@voxwire/agents';

/** LiveKit's participant kinds: a phone caller through SIP is an ordinary participant of kind `sip`. */
export type ParticipantKind = 'standard' | 'sip' | 'agent' | 'ingress' | 'egress' | 'connector' | 'unknown';

export interface ParticipantInfo {
  readonly identity: string;
  readonly name: string;
  readonly kind: ParticipantKind;
  readonly metadata: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Where a track comes from: only microphones are the user's voice. */
export type TrackSource = 'microphone' | 'screen_share_audio' | 'unknown';

export type RoomEvent =
  | { type: 'participant_connected'; participant: ParticipantInfo }
  | { type: 'participant_disconnected'; participant: ParticipantInfo }
  | {
      type: 'audio_track_subscribed';
      participant: ParticipantInfo;
      trackSid: string;
      source: TrackSource;
      /** The publisher recorded this microphone before the agent joined and sends that audio as a byte stream. */
      preConnectBuffer?: boolean;
    }
  | { type: 'audio_track_unsubscribed'; participant: ParticipantInfo; trackSid: string }
  | { type: 'track_muted'; participant: ParticipantInfo; trackSid: string }
  | { type: 'track_unmuted'; participant: ParticipantInfo; trackSid: string }
  /** A keypad digit from a SIP caller. */
  | { type: 'dtmf'; participant: ParticipantInfo; code: number; digit: string }
  /** The room connection ended for good (the server closed the room, or the agent was removed). */
  | { type: 'disconnected'; reason: string };

/**
 * An audio track the agent publishes, fed frame by frame. `captureFrame` waits while the queue is full
 * (back-pressure); `queuedDurationMs` is what was captured but not yet played out.
 */
export interface AudioSink {
  readonly sampleRate: number;
  readonly channels: number;
  readonly queuedDurationMs: number;
  captureFrame(frame: AudioFrame): Promise<void>;
  /** Drops everything queued; a pending `waitForPlayout()` resolves. */
  clearQueue(): void;
  /** Resolves when everything captured so far has played (or was cleared). */
  waitForPlayout(): Promise<void>;
  close(): Promise<void>;
}

export interface PublishedAudio {
  readonly sink: AudioSink;
  /** The track's sid in the room, which transcription segments name. */
  readonly trackSid: string;
}

export interface PublishAudioOptions {
  sampleRate: number;
  channels: number;
  /** How much audio the native source buffers ahead of playback, in ms. */
  queueSizeMs: number;
  trackName: string;
}

/** An incoming audio track as frames at the rate asked for; `close()` ends the iteration. */
export interface AudioTrackStream extends AsyncIterable<AudioFrame> {
  close(): void;
}

export interface TextStreamWriterLike {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

export interface TextStreamOptions {
  topic: string;
  attributes?: Record<string, string>;
  /** Whose words these are: the user's identity for their transcripts. Default: the agent. */
  senderIdentity?: string;
}

/** A remote audio track the agent is subscribed to. */
export interface RemoteAudioTrackInfo {
  readonly trackSid: string;
  readonly source: TrackSource;
  readonly muted: boolean;
  /** The publisher recorded this microphone before the agent joined and sends that audio as a byte stream. */
  readonly preConnectBuffer?: boolean;
}

/** A byte stream another participant sent to the room (or to the agent), read chunk by chunk. */
export interface IncomingByteStream extends AsyncIterable<Uint8Array> {
  readonly topic: string;
  /** As the sender declared it; empty when it declared none. */
  readonly mimeType: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly senderIdentity: string;
  /** Total bytes, when the sender said in advance. */
  readonly totalSize: number | undefined;
  /** Stops receiving (the rest is discarded); safe to call at any time, more than once. */
  cancel(): void;
}

export interface RoomConnection {
  readonly name: string;
  readonly localIdentity: string;
  remoteParticipants(): ParticipantInfo[];
  /** The audio tracks of a participant the agent is subscribed to now (events tell of later ones). */
  remoteAudioTracks(identity: string): RemoteAudioTrackInfo[];
  /** Subscribes to room events; returns an unsubscribe function. */
  onEvent(listener: (event: RoomEvent) => void): () => void;
  /** Frames of a subscribed remote audio track, resampled to the given format. */
  openAudioTrack(trackSid: string, options: { sampleRate: number; channels: number }): AudioTrackStream;
  publishAudio(options: PublishAudioOptions): Promise<PublishedAudio>;
  setLocalAttributes(attributes: Record<string, string>): Promise<void>;
  streamText(options: TextStreamOptions): Promise<TextStreamWriterLike>;
  /** Receives whole text streams on a topic (e.g. `lk.chat`); returns an unregister function. */
  onText(topic: string, handler: (text: string, sender: ParticipantInfo | undefined) => void): () => void;
  /**
   * Receives byte streams on a topic, one handler per topic; returns an unregister function. Streams on
   * the topics a connection listens to from before it joined (`EARLY_BYTE_STREAM_TOPICS`) that arrived
   * before this call are held briefly and handed over here, so nothing sent the moment the agent joined is
   * lost. A handler must read or `cancel()` every stream it is given.
   */
  onByteStream(topic: string, handler: (stream: IncomingByteStream) => void): () => void;
  disconnect(): Promise<void>;
}

/** Opens the room for a job: the server's URL and the job's token from the assignment. */
export type RoomConnector = (url: string, token: string) => Promise<RoomConnection>;
