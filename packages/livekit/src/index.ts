/**
 * `@voxwire/livekit`: Voxwire on LiveKit. `AgentWorker` / `runWorker` register with a LiveKit server
 * (self-hosted or Cloud) and run the jobs it dispatches, many sessions per process; `RoomIO` is a
 * session's audio and text in a LiveKit room, following LiveKit's room conventions.
 */
export { AgentWorker, type AgentWorkerEvents } from './worker/agent-worker.js';
export {
  AGENT_NAME_ATTRIBUTE,
  type JobAcceptOptions,
  type JobAnswer,
  JobRequest,
  type JobRejectOptions,
} from './worker/job-request.js';
export type { WorkerInfo } from './worker/health-server.js';
export { CpuLoadMonitor, defaultLoad, type WorkerLoadInfo } from './worker/load.js';
export { type MetricsDelta, WorkerMetrics, type WorkerMetricsSnapshot } from './worker/metrics.js';
export {
  type AgentWorkerOptions,
  DEFAULT_RECONNECT_POLICY,
  resolveCredentials,
  type WorkerPermissions,
} from './worker/options.js';
export type { WorkerJobType } from './worker/protocol.js';
export { type JobProcessOptions, JobProcessPool } from './worker/process-pool.js';
export {
  type JobHandle,
  type JobOutcome,
  type LiveKitJobContext,
  livekitJobContext,
} from './worker/running-job.js';
export { runWorker, type RunWorkerOptions } from './worker/run-worker.js';
export { agentEndpoint, createWorkerToken } from './worker/token.js';
export { RoomAudioInput, type RoomAudioInputOptions } from './room/room-audio-input.js';
export { RoomAudioOutput } from './room/room-audio-output.js';
export type {
  AudioSink,
  AudioTrackStream,
  IncomingByteStream,
  ParticipantInfo,
  ParticipantKind,
  PublishAudioOptions,
  PublishedAudio,
  RemoteAudioTrackInfo,
  RoomConnection,
  RoomConnector,
  RoomEvent,
  TextStreamOptions,
  TextStreamWriterLike,
  TrackSource,
} from './room/room-connection.js';
export { RoomIO, type RoomIOInit } from './room/room-io.js';
export {
  ByteStreamRouter,
  type ByteStreamRouterOptions,
  EARLY_BYTE_STREAM_TOPICS,
} from './room/byte-stream-router.js';
export type { PreConnectAudioEvent } from './room/pre-connect-audio.js';
export {
  PRE_CONNECT_AUDIO_TOPIC,
  PreConnectAudioError,
  type PreConnectAudioErrorReason,
} from './room/pre-connect-format.js';
export { type DtmfEvent, ROOM_IO_DEFAULTS, type RoomIOOptions } from './room/room-io-options.js';
export { connectRtcRoom, disposeRtcNode, RtcAudioSink } from './room/rtc-room.js';
export {
  ATTRIBUTE_AGENT_STATE,
  ATTRIBUTE_SEGMENT_ID,
  ATTRIBUTE_TRANSCRIBED_TRACK_ID,
  ATTRIBUTE_TRANSCRIPTION_FINAL,
  AgentTranscriptionOutput,
  TOPIC_CHAT,
  TOPIC_TRANSCRIPTION,
  UserTranscriptionPublisher,
} from './room/transcription.js';
export { VERSION } from './version.js';
