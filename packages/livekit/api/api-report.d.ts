import { EventEmitter } from 'node:events';
import { AudioFrame, AgentSession, JobContext, Clock, Logger, AgentDefinition, JobTransport, SessionIO, JobNotice, TextOutput } from '@voxwire/agents';
import { RetryPolicy, AudioOutputBase } from '@voxwire/agents/provider-utils';
import { Job } from '@livekit/protocol';
import * as Rtc from '@livekit/rtc-node';

/** What the worker measured across its sessions, as `/worker` reports it. */
interface WorkerMetricsSnapshot {
    sessionsStarted: number;
    turns: number;
    /** From the end of the user's speech to the first frame of the reply, over the last turns. */
    turnLatencyMs: {
        p50: number;
        p95: number;
        p99: number;
        samples: number;
    } | null;
    /** Session `error` events, by source (`stt`, `llm`, `tts`, `audio_output`, ...). */
    errors: Record<string, number>;
}
/** New measurements since the last `drain()`, to carry from a job process to the worker. */
interface MetricsDelta {
    sessionsStarted: number;
    latenciesMs: number[];
    errors: Record<string, number>;
}
/**
 * Counters and a bounded window of turn latencies for every session of the worker (and of its job
 * processes, which send their deltas with each pong).
 */
declare class WorkerMetrics {
    private readonly windowSize;
    private sessions;
    private turnCount;
    private readonly window;
    private readonly errorCounts;
    private pending;
    constructor(windowSize?: number);
    sessionStarted(): void;
    turn(latencyMs: number): void;
    error(source: string): void;
    /** Adds what another process measured. */
    merge(delta: MetricsDelta): void;
    /** What was measured here since the previous call (for a job process to send on). */
    drain(): MetricsDelta;
    snapshot(): WorkerMetricsSnapshot;
}

/** What `/worker` reports: enough for a load balancer, an orchestrator or a person to see the state. */
interface WorkerInfo {
    workerId: string | null;
    agentName: string;
    url: string;
    connected: boolean;
    draining: boolean;
    status: 'available' | 'full';
    load: number;
    jobs: Array<{
        id: string;
        room: string;
    }>;
    metrics: WorkerMetricsSnapshot;
}

/**
 * The part of a LiveKit room that Voxwire uses, as a small interface. The worker and the room I/O talk
 * only to this; `connectRtcRoom` implements it with `@livekit/rtc-node`, and the tests with a fake, so
 * the bridging logic (agent state, transcripts, playback timing, mute) runs without a server.
 */

/** LiveKit's participant kinds: a phone caller through SIP is an ordinary participant of kind `sip`. */
type ParticipantKind = 'standard' | 'sip' | 'agent' | 'ingress' | 'egress' | 'connector' | 'unknown';
interface ParticipantInfo {
    readonly identity: string;
    readonly name: string;
    readonly kind: ParticipantKind;
    readonly metadata: string;
    readonly attributes: Readonly<Record<string, string>>;
}
/** Where a track comes from: only microphones are the user's voice. */
type TrackSource = 'microphone' | 'screen_share_audio' | 'unknown';
type RoomEvent = {
    type: 'participant_connected';
    participant: ParticipantInfo;
} | {
    type: 'participant_disconnected';
    participant: ParticipantInfo;
} | {
    type: 'audio_track_subscribed';
    participant: ParticipantInfo;
    trackSid: string;
    source: TrackSource;
    /** The publisher recorded this microphone before the agent joined and sends that audio as a byte stream. */
    preConnectBuffer?: boolean;
} | {
    type: 'audio_track_unsubscribed';
    participant: ParticipantInfo;
    trackSid: string;
} | {
    type: 'track_muted';
    participant: ParticipantInfo;
    trackSid: string;
} | {
    type: 'track_unmuted';
    participant: ParticipantInfo;
    trackSid: string;
}
/** A keypad digit from a SIP caller. */
 | {
    type: 'dtmf';
    participant: ParticipantInfo;
    code: number;
    digit: string;
}
/** The room connection ended for good (the server closed the room, or the agent was removed). */
 | {
    type: 'disconnected';
    reason: string;
};
/**
 * An audio track the agent publishes, fed frame by frame. `captureFrame` waits while the queue is full
 * (back-pressure); `queuedDurationMs` is what was captured but not yet played out.
 */
interface AudioSink {
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
interface PublishedAudio {
    readonly sink: AudioSink;
    /** The track's sid in the room, which transcription segments name. */
    readonly trackSid: string;
}
interface PublishAudioOptions {
    sampleRate: number;
    channels: number;
    /** How much audio the native source buffers ahead of playback, in ms. */
    queueSizeMs: number;
    trackName: string;
}
/** An incoming audio track as frames at the rate asked for; `close()` ends the iteration. */
interface AudioTrackStream extends AsyncIterable<AudioFrame> {
    close(): void;
}
interface TextStreamWriterLike {
    write(text: string): Promise<void>;
    close(): Promise<void>;
}
interface TextStreamOptions {
    topic: string;
    attributes?: Record<string, string>;
    /** Whose words these are: the user's identity for their transcripts. Default: the agent. */
    senderIdentity?: string;
}
/** A remote audio track the agent is subscribed to. */
interface RemoteAudioTrackInfo {
    readonly trackSid: string;
    readonly source: TrackSource;
    readonly muted: boolean;
    /** The publisher recorded this microphone before the agent joined and sends that audio as a byte stream. */
    readonly preConnectBuffer?: boolean;
}
/** A byte stream another participant sent to the room (or to the agent), read chunk by chunk. */
interface IncomingByteStream extends AsyncIterable<Uint8Array> {
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
interface RoomConnection {
    readonly name: string;
    readonly localIdentity: string;
    remoteParticipants(): ParticipantInfo[];
    /** The audio tracks of a participant the agent is subscribed to now (events tell of later ones). */
    remoteAudioTracks(identity: string): RemoteAudioTrackInfo[];
    /** Subscribes to room events; returns an unsubscribe function. */
    onEvent(listener: (event: RoomEvent) => void): () => void;
    /** Frames of a subscribed remote audio track, resampled to the given format. */
    openAudioTrack(trackSid: string, options: {
        sampleRate: number;
        channels: number;
    }): AudioTrackStream;
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
type RoomConnector = (url: string, token: string) => Promise<RoomConnection>;

/**
 * LiveKit's pre-connect audio buffer, as its client SDKs send it: a frontend records the microphone
 * while the agent is still being dispatched, and once an agent is active in the room sends that audio
 * to it as one byte stream on `lk.agent.pre-connect-audio-buffer`. The stream's attributes name the
 * microphone track it belongs to (`trackId`) and the recording's `sampleRate` and `channels`; the
 * track's publication carries the `TF_PRECONNECT_BUFFER` audio feature.
 *
 * What the SDKs send, read in their sources: the Swift (and other native) SDKs record raw 16-bit
 * little-endian PCM (24 kHz mono) and declare no MIME type; the web SDK records with `MediaRecorder`,
 * `audio/webm;codecs=opus`, or `video/mp4` (AAC) where WebM is not supported (Safari). Raw PCM and
 * Opus (in WebM or Ogg, mono or stereo) are decoded; anything else (AAC in MP4) is refused with a
 * `PreConnectAudioError` of reason `unsupported_format`.
 */

declare const PRE_CONNECT_AUDIO_TOPIC = "lk.agent.pre-connect-audio-buffer";
type PreConnectAudioErrorReason = 
/** Neither raw PCM nor Opus (e.g. Safari's AAC in MP4), or Opus in a layout no microphone produces. */
'unsupported_format'
/** The container or the Opus packets could not be decoded (a corrupt or truncated recording). */
 | 'decode_failed'
/** `trackId`, `sampleRate` or `channels` is missing or not a usable number, or the bytes are not whole samples. */
 | 'invalid_stream'
/** The stream did not finish within `preConnectAudioTimeoutMs` of the track being linked. */
 | 'timeout'
/** Reading the stream failed (the sender went away, the room was left). */
 | 'read_failed';
/** Why a pre-connect audio buffer was not used, or was used only in part. */
declare class PreConnectAudioError extends Error {
    readonly reason: PreConnectAudioErrorReason;
    readonly details: {
        trackSid?: string | undefined;
        participantIdentity?: string | undefined;
        mimeType?: string | undefined;
    };
    readonly name = "PreConnectAudioError";
    constructor(reason: PreConnectAudioErrorReason, message: string, details?: {
        trackSid?: string | undefined;
        participantIdentity?: string | undefined;
        mimeType?: string | undefined;
    });
}

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

/** What became of a pre-connect buffer: used (perhaps in part), or refused. */
type PreConnectAudioEvent = {
    type: 'used';
    trackSid: string;
    participantIdentity: string;
    /** Audio played into the session ahead of the live track. */
    durationMs: number;
    /** The oldest audio dropped beyond `preConnectAudioMaxDurationMs`. */
    droppedMs: number;
    /** The stream had not finished within the timeout, or broke off: what had arrived was used. */
    partial: boolean;
} | {
    type: 'refused';
    error: PreConnectAudioError;
};

/** A keypad digit a SIP caller pressed. */
interface DtmfEvent {
    digit: string;
    code: number;
    participant: ParticipantInfo;
}
interface RoomIOOptions {
    /**
     * The participant the agent talks to. Default: the job's participant (publisher jobs), else the first
     * participant of an accepted kind already in the room or joining it.
     */
    participantIdentity?: string;
    /** Kinds the agent links to. Default `['standard', 'sip']` (SIP callers are ordinary users). */
    participantKinds?: ParticipantKind[];
    /** The user's audio as the session receives it. Default 24000 Hz. */
    inputSampleRate?: number;
    /** Default 1. */
    inputChannels?: number;
    /** The agent's published track. Default 24000 Hz. */
    outputSampleRate?: number;
    /** Default 1. */
    outputChannels?: number;
    /** Audio the native source buffers ahead of playback: what an interruption throws away. Default 400 ms. */
    outputQueueSizeMs?: number;
    /** Publish transcripts on the `lk.transcription` text stream topic. Default true. */
    transcription?: boolean;
    /** Turn text received on `lk.chat` into user turns. Default true. */
    textInput?: boolean;
    /** End the job when the linked participant leaves. Default true. */
    closeOnParticipantLeave?: boolean;
    /** Longest wait for a participant to link to before the job ends. Default Infinity. */
    participantWaitTimeoutMs?: number;
    /**
     * Play the audio a frontend recorded before the agent joined (LiveKit's pre-connect audio buffer, on
     * the `lk.agent.pre-connect-audio-buffer` byte stream) into the session ahead of the microphone's live
     * frames, so the user's first words are heard. Raw PCM only (LiveKit's native SDKs); the web SDK's
     * Opus recording is refused (`onPreConnectAudio` tells). Default true.
     */
    preConnectAudio?: boolean;
    /**
     * Longest the linked microphone waits for its pre-connect buffer to arrive and finish (its live frames
     * queue meanwhile); then what has arrived is played. Default 3000 ms.
     */
    preConnectAudioTimeoutMs?: number;
    /** Most pre-connect audio kept per track: the most recent is kept. Default 10000 ms. */
    preConnectAudioMaxDurationMs?: number;
    /** What became of each pre-connect buffer: played (how much) or refused (a `PreConnectAudioError`). */
    onPreConnectAudio?: (event: PreConnectAudioEvent) => void;
    /**
     * Receives the linked participant's keypad digits (SIP callers), with the session when one is
     * connected. They also reach the session as its `dtmf_received` event (`session.on('dtmf_received')`),
     * which is the way to listen from an agent's `entry`, in job processes too; this hook sees them first.
     */
    onDtmf?: (event: DtmfEvent, session: AgentSession<any> | undefined) => void;
}
declare const ROOM_IO_DEFAULTS: Readonly<{
    participantKinds: readonly ParticipantKind[];
    inputSampleRate: 24000;
    inputChannels: 1;
    outputSampleRate: 24000;
    outputChannels: 1;
    outputQueueSizeMs: 400;
    transcription: true;
    textInput: true;
    closeOnParticipantLeave: true;
    participantWaitTimeoutMs: number;
    preConnectAudio: true;
    preConnectAudioTimeoutMs: 3000;
    preConnectAudioMaxDurationMs: 10000;
}>;

/** LiveKit's participant attribute naming the agent that joined (its frontends read it). */
declare const AGENT_NAME_ATTRIBUTE = "lk.agent.name";
/** How the agent joins the room when it accepts a job. */
interface JobAcceptOptions {
    /** The agent participant's identity. Default `agent-<job id>`. */
    identity?: string;
    /** Its display name. Default: the worker's agent name, or `agent`. */
    name?: string;
    metadata?: string;
    attributes?: Record<string, string>;
}
interface JobRejectOptions {
    /** Also asks the server to end the job instead of offering it to another worker. */
    terminate?: boolean;
}
/** The answer a `requestFn` gave; `undefined` until it called `accept` or `reject`. */
type JobAnswer = {
    accepted: true;
    identity: string;
    name: string;
    metadata: string;
    attributes: Record<string, string>;
} | {
    accepted: false;
    terminate: boolean;
};
/**
 * A job the server offers (an `AvailabilityRequest`): the worker's `requestFn` looks at the room, the
 * participant and the dispatch metadata, and calls `accept()` or `reject()` once. It must answer fast:
 * the server gives up on the worker after about 10 s and offers the job to another one.
 */
declare class JobRequest {
    /** The job as the server described it (`@livekit/protocol`'s `Job`). */
    readonly job: Job;
    /** True when the server is re-offering a job that ran on a worker whose connection was lost. */
    readonly resuming: boolean;
    private readonly agentName;
    private answerGiven;
    constructor(
    /** The job as the server described it (`@livekit/protocol`'s `Job`). */
    job: Job, 
    /** True when the server is re-offering a job that ran on a worker whose connection was lost. */
    resuming: boolean, agentName: string);
    get id(): string;
    get roomName(): string;
    /** The participant a publisher/participant job is for, if any. */
    get participantIdentity(): string | undefined;
    /** Dispatch metadata (e.g. from `AgentDispatchService.CreateDispatch`). */
    get metadata(): string;
    get answered(): boolean;
    get answer(): JobAnswer | undefined;
    accept(options?: JobAcceptOptions): void;
    reject(options?: JobRejectOptions): void;
    private once;
}

declare const LIVEKIT_CONTEXT: unique symbol;
/** A job's context on the LiveKit worker: the core's `JobContext` plus the room. */
interface LiveKitJobContext<Prewarmed = unknown> extends JobContext<Prewarmed> {
    readonly [LIVEKIT_CONTEXT]: true;
    /** The room, already joined as the agent participant. */
    readonly room: RoomConnection;
    /** The job as the server described it (room, participant, dispatch metadata). */
    readonly job: Job;
    /** Resolves with the participant the agent is linked to (or the one named), once it is in the room. */
    waitForParticipant(identity?: string): Promise<ParticipantInfo>;
}
/** The LiveKit parts of a job's context, or `undefined` when the job runs on another transport. */
declare function livekitJobContext<Prewarmed>(ctx: JobContext<Prewarmed>): LiveKitJobContext<Prewarmed> | undefined;
type JobOutcome = {
    status: 'success';
} | {
    status: 'failed';
    error: string;
};
/** A job as the worker holds it, in this process or in a job process. */
interface JobHandle {
    readonly id: string;
    readonly roomName: string;
    readonly done: Promise<JobOutcome>;
    end(reason: string): Promise<JobOutcome>;
}

/** Jobs in a pool of child processes, so a job that hangs its event loop or exits takes only its process down. */
interface JobProcessOptions {
    /** The agent file each process loads and prewarms (the worker's `agent` is then not run in-process). */
    agentFile: string;
    /** How many processes, each holding several jobs. Default 2. */
    processes?: number;
    /** Node flags of the processes, e.g. `['--import', 'tsx']` for a TypeScript agent file. Default: the worker's. */
    execArgv?: string[];
    /** Extra environment of the processes. */
    env?: Record<string, string>;
    /** How often each process is pinged. Default 2500 ms. */
    pingIntervalMs?: number;
    /** A process that has not answered a ping for this long is killed and its jobs fail. Default 15000 ms. */
    pingTimeoutMs?: number;
    /** Log a warning when a process uses more memory (RSS). Default 1000 MB. */
    memoryWarnMb?: number;
    /** Kill a process above this RSS; 0 (default) never. */
    memoryLimitMb?: number;
    /** Longest a process may take to load and prewarm the agent. Default 30000 ms. */
    startTimeoutMs?: number;
    /** A module exporting `connectRoom(url, token)`, used instead of rtc-node (tests). */
    roomConnectorModule?: string;
    /** The process entry; default the one next to this module. */
    entry?: string;
}
interface PoolContext {
    clock: Clock;
    logger: Logger;
    roomIO: RoomIOOptions;
    jobShutdownTimeoutMs: number;
    /** Receives what the processes measured, with each pong. */
    metrics?: Pick<WorkerMetrics, 'merge'>;
}
/**
 * A few pre-warmed processes, each running several jobs: a job goes to the live process with the
 * fewest jobs. A process that dies (crash, `process.exit`, killed for hanging or memory) fails only its
 * own jobs and is replaced.
 */
declare class JobProcessPool {
    private readonly options;
    private readonly context;
    private readonly processes;
    private closing;
    constructor(options: JobProcessOptions, context: PoolContext);
    /** Starts the processes; resolves once each has loaded the agent (or failed to). */
    start(): Promise<void>;
    /** The processes ready for jobs. */
    get processIds(): number[];
    run(info: Job, url: string, token: string): JobHandle;
    close(timeoutMs?: number): Promise<void>;
    private spawn;
}

/** What a `loadFn` may base the worker's load on. */
interface WorkerLoadInfo {
    /** Jobs running in this process. */
    activeJobs: number;
    /** Jobs accepted and waiting for their assignment (a slot is held for each). */
    pendingJobs: number;
    /** Moving average of the machine's CPU use, 0..1. */
    cpuLoad: number;
    /** `sessionCapacity` from the options, when set. */
    sessionCapacity: number | undefined;
}
/**
 * The load a worker reports by default. LiveKit assumes one process per job and reports CPU alone;
 * a Voxwire process holds many sessions, so when `sessionCapacity` (sessions per process at which it
 * is full, measured for your agent) is set, the load is whichever is higher: CPU, or sessions held
 * against that capacity.
 */
declare function defaultLoad(info: WorkerLoadInfo): number;
type CpuTimes = {
    busy: number;
    total: number;
};
/** Samples the machine's CPU use on the clock and keeps a moving average of the last samples. */
declare class CpuLoadMonitor {
    private readonly clock;
    private readonly sampleIntervalMs;
    private readonly window;
    private readonly read;
    private readonly samples;
    private last;
    private timer;
    constructor(clock: Clock, sampleIntervalMs?: number, window?: number, read?: () => CpuTimes);
    start(): void;
    stop(): void;
    /** The average of the recent samples, 0..1 (0 before the first sample). */
    get load(): number;
    private sample;
}

/**
 * The agent protocol's wire format: binary protobuf `livekit.WorkerMessage` (worker to server) and
 * `livekit.ServerMessage` (server to worker), as generated in `@livekit/protocol`. Kept in one place so
 * the worker and the test server decode alike, and a frame that does not decode is an error value
 * rather than a throw (LiveKit's own JS worker crashes on one).
 */

/** Which jobs a worker takes: one per room, or one per publishing participant. */
type WorkerJobType = 'room' | 'publisher' | 'participant';

/** What the agent participant may do in the room (sent with the registration). */
interface WorkerPermissions {
    canPublish?: boolean;
    canSubscribe?: boolean;
    canPublishData?: boolean;
    canUpdateMetadata?: boolean;
    /** Hidden participants are not shown to others. */
    hidden?: boolean;
}
interface AgentWorkerOptions<Prewarmed = unknown> {
    /** The agent file's definition: `prewarm` runs once per process, `entry` once per job. */
    agent: AgentDefinition<Prewarmed>;
    /** The LiveKit server, `wss://…` or `https://…`. Default `LIVEKIT_URL`. */
    url?: string;
    /** Default `LIVEKIT_API_KEY`. */
    apiKey?: string;
    /** Default `LIVEKIT_API_SECRET`. Never logged. */
    apiSecret?: string;
    /**
     * Registers for explicit dispatch under this name (`AgentDispatchService.CreateDispatch`, or a
     * `RoomAgentDispatch` in a participant's token). Empty (the default): every new room is dispatched.
     */
    agentName?: string;
    /** One job per room (default) or per publishing participant. */
    jobType?: WorkerJobType;
    /** Default: publish, subscribe, publish data, update metadata; not hidden. */
    permissions?: WorkerPermissions;
    /** Reported to the server at registration. Default: this package's version. */
    version?: string;
    namespace?: string;
    /** Groups workers of one deployment (≤ 64 bytes, no `_`, no whitespace). */
    deployment?: string;
    /**
     * Decides whether to take an offered job, and as whom the agent joins: call `request.accept({...})`
     * or `request.reject()`. Default: accept every job. An answer that does not come within
     * `availabilityTimeoutMs`, or a throwing function, rejects the job.
     */
    requestFn?: (request: JobRequest) => void | Promise<void>;
    /** The load to report, 0..1. Default: `defaultLoad` (CPU, or sessions against `sessionCapacity`). */
    loadFn?: (info: WorkerLoadInfo) => number;
    /** At this load or above the worker reports itself full. Default 0.7 (LiveKit's production value). */
    loadThreshold?: number;
    /** Sessions this process holds at full load, as measured for your agent; unset: CPU only. */
    sessionCapacity?: number;
    /** How often status and load are reported. Default 2500 ms. */
    statusIntervalMs?: number;
    /** How often the worker pings the server. Default 10000 ms. */
    pingIntervalMs?: number;
    /** A connection that has sent nothing (not even a pong) for this long is dropped and re-made. Default 30000 ms. */
    pingTimeoutMs?: number;
    /** Longest wait for the server's answer to the registration. Default 10000 ms. */
    registerTimeoutMs?: number;
    /** Longest `requestFn` may take before the job is rejected. Default 5000 ms. */
    availabilityTimeoutMs?: number;
    /** Longest wait for the assignment of an accepted job before its slot is released. Default 7500 ms. */
    assignmentTimeoutMs?: number;
    /** On drain (SIGTERM), how long running jobs may go on before they are ended. Default 1800000 ms. */
    drainTimeoutMs?: number;
    /** Longest the end of one job may take (session close, shutdown callbacks, leaving the room). Default 10000 ms. */
    jobShutdownTimeoutMs?: number;
    /** Backoff between reconnection attempts. Default: 16 retries, 500 ms doubling up to 10000 ms. */
    reconnectPolicy?: Partial<RetryPolicy>;
    /** Lifetime of each connection's token. Default 600000 ms. */
    tokenTtlMs?: number;
    /**
     * Serves `GET /` (health) and `GET /worker` (state as JSON) on this port; 0 picks a free one
     * (`worker.healthPort` says which). Default: no HTTP server.
     */
    healthPort?: number;
    /** Address of the health server. Default `0.0.0.0`, so an orchestrator can probe it. */
    healthHost?: string;
    /**
     * Logs a warning when the event loop was blocked this long (a synchronous model call, a busy
     * tool): every session of the process stalls with it. Measured on the host's own event loop.
     * Default 500 ms; 0 turns the watchdog off.
     */
    eventLoopStallWarnMs?: number;
    /**
     * Runs jobs in a pool of pre-warmed child processes (each holding several) instead of this one, so a
     * job that hangs its event loop or exits fails alone. Needs the agent's file path; `connectRoom` and
     * `roomIO.onDtmf` then do not apply. Default: jobs run in this process.
     */
    jobProcesses?: JobProcessOptions;
    /** How the job's room is joined. Default: `@livekit/rtc-node`. */
    connectRoom?: RoomConnector;
    /** How jobs use their room: linked participant, audio formats, transcription, chat. */
    roomIO?: RoomIOOptions;
    clock?: Clock;
    logger?: Logger;
    /** Source of reconnection jitter, [0, 1). */
    random?: () => number;
}
declare const DEFAULT_RECONNECT_POLICY: Readonly<Partial<RetryPolicy>>;
/** Reads the connection settings from the options, else from `LIVEKIT_URL/_API_KEY/_API_SECRET`. */
declare function resolveCredentials(options: Pick<AgentWorkerOptions, 'url' | 'apiKey' | 'apiSecret'>, env?: Record<string, string | undefined>): {
    url: string;
    apiKey: string;
    apiSecret: string;
};

interface AgentWorkerEvents {
    registered: [{
        workerId: string;
        reconnect: boolean;
    }];
    disconnected: [{
        error: unknown;
    }];
    job_started: [{
        jobId: string;
        room: string;
    }];
    job_ended: [{
        jobId: string;
        outcome: JobOutcome;
    }];
    status: [{
        status: 'available' | 'full';
        load: number;
        jobCount: number;
    }];
}
/**
 * A LiveKit agent worker: registers with the server's `/agent` endpoint, answers job offers through
 * `requestFn`, runs each assigned job in this process (many per process), reports status and load, and
 * survives lost connections: it reconnects with backoff, registers again and reports the jobs still
 * running (`MigrateJobRequest`). `drain()` (SIGTERM under `run()`) stops taking jobs, lets the running
 * ones finish within `drainTimeoutMs`, then closes.
 */
declare class AgentWorker<Prewarmed = unknown> extends EventEmitter<AgentWorkerEvents> {
    private readonly options;
    private readonly clock;
    private readonly logger;
    private readonly credentials;
    private readonly policy;
    private readonly connectRoom;
    private readonly cpu;
    private readonly jobs;
    /** Sessions, turn latencies and errors of every job, in this process and the job processes. */
    readonly metrics: WorkerMetrics;
    private pool;
    /** Job ends until the server has read them, across connections. */
    private readonly ends;
    private readonly pending;
    private readonly stop;
    private connection;
    private currentWorkerId;
    private prewarmed;
    private running;
    private drainPromise;
    private closePromise;
    private isDraining;
    /** The connection loop gave up and is closing the worker itself (so close() must not wait on it). */
    private serveFailed;
    private lastStatus;
    private health;
    private boundHealthPort;
    private watchdog;
    constructor(options: AgentWorkerOptions<Prewarmed>);
    /** The id the server gave this connection (a new one after each reconnect). */
    get workerId(): string | undefined;
    get activeJobIds(): string[];
    get draining(): boolean;
    /** The job processes ready for jobs (with `jobProcesses`), by pid. */
    get jobProcessIds(): number[];
    /** The port of the health server, once listening. */
    get healthPort(): number | undefined;
    /** What the health server's `/worker` reports. */
    info(): WorkerInfo;
    /** The load as last computed, 0..1. */
    get load(): number;
    /**
     * Prewarms the agent, connects and serves jobs until `drain()` or `close()` completes. Rejects when
     * the server cannot be reached after the reconnection policy's retries, or refuses the credentials.
     */
    start(): Promise<void>;
    /**
     * Stops taking jobs (reports full), waits for the running jobs to end by themselves up to `timeoutMs`,
     * ends the rest, then closes. Later calls return the same promise.
     */
    drain(timeoutMs?: number): Promise<void>;
    /** Ends every job now and disconnects. */
    close(reason?: string): Promise<void>;
    private serve;
    /** One connection: handshake, register, then messages until it drops (throws) or is closed by us. */
    private runConnection;
    private onAvailability;
    private onAssignment;
    private releasePendingOnDisconnect;
    private computeLoad;
    private sendStatus;
    private send;
    private doDrain;
    private doClose;
}

interface RunWorkerOptions<Prewarmed> extends AgentWorkerOptions<Prewarmed> {
    /**
     * SIGTERM and SIGINT drain the worker (a second one closes it at once). Default true; turn off when
     * the application handles signals itself and calls `drain()`.
     */
    handleSignals?: boolean;
    /** Where signals come from; `process` by default. */
    signalSource?: Pick<NodeJS.Process, 'on' | 'off'>;
    /** Called with the worker once it is created (to read its state or close it). */
    onWorker?(worker: AgentWorker<Prewarmed>): void;
}
/**
 * Runs a worker until it is drained or closed: what `voxwire start` does. SIGTERM (a deploy, a scale
 * down) makes it report full, let its jobs finish within `drainTimeoutMs` and exit; at the end the
 * rtc-node runtime is released so the process can exit.
 */
declare function runWorker<Prewarmed>(options: RunWorkerOptions<Prewarmed>): Promise<void>;

/**
 * The bearer token a worker presents on `/agent`: signed with the API secret (HS256), carrying the
 * agent grant, short-lived because a new one is made for every connection attempt.
 */
declare function createWorkerToken(apiKey: string, apiSecret: string, ttlMs?: number): Promise<string>;
/** `wss://host/agent` from `https://host`, `wss://host/` or `ws://127.0.0.1:7880/base`. */
declare function agentEndpoint(url: string): URL;

interface RoomAudioInputOptions {
    sampleRate: number;
    channels: number;
    clock: Clock;
    signal: AbortSignal;
    /**
     * How long silence is played after the microphone goes quiet (muted, unpublished): enough for any
     * VAD to hear the user stop. After that the input waits without sending anything, so a cloud STT is
     * not fed (and billed for) silence while nobody talks. Default 3000 ms.
     */
    silenceAfterInputLossMs?: number;
    /**
     * Audio to play ahead of a track's live frames, asked once per track when it is first read (the
     * pre-connect buffer). The track's live frames wait in its native stream meanwhile, so none are lost.
     * `signal` aborts when the track is replaced or the input closes.
     */
    beforeTrack?: (trackSid: string, signal: AbortSignal) => Promise<AudioFrame[]>;
}
/**
 * The linked participant's microphone as the session's audio input. The track may come, go, be muted
 * and unmuted over a call; the input lasts the whole job. When a live track goes quiet it plays
 * silence at real time for a while, so the VAD hears the user stop (`userState` goes back to
 * `listening`) instead of waiting on frames that will never come. It pulls from the native stream, so
 * nothing piles up.
 */
declare class RoomAudioInput implements AsyncIterable<AudioFrame> {
    private readonly room;
    private readonly options;
    private trackSid;
    private muted;
    private stream;
    private changed;
    private framesIn;
    private silenceOut;
    private framesBefore;
    private readonly prefixed;
    constructor(room: RoomConnection, options: RoomAudioInputOptions);
    /**
     * Frames received from the room, silence frames generated in their absence, and frames played ahead
     * of a track (`beforeTrack`: the pre-connect audio).
     */
    get stats(): {
        frames: number;
        silenceFrames: number;
        preConnectFrames: number;
    };
    get currentTrackSid(): string | undefined;
    get isMuted(): boolean;
    /** The linked participant's microphone track (or none). */
    setTrack(trackSid: string | undefined): void;
    setMuted(muted: boolean): void;
    close(): void;
    [Symbol.asyncIterator](): AsyncIterator<AudioFrame>;
    /** Waits for `beforeTrack`, giving up (nothing to play) when the track changes or the input closes. */
    private audioBeforeTrack;
    /**
     * A promise for the next change, for the one wait in progress. Each wait replaces the previous one's
     * (never chains onto it), so a long stretch without changes holds nothing: the loop re-reads the
     * state before each wait, so a change between waits is not lost.
     */
    private whenChanged;
    private wake;
    private trackEnded;
    /**
     * Sleeps `ms`: `'timer'` when it passed, `'change'` when woken early by a change of track or mute (or
     * the job ending), `'frame'` when `frame` (a pending read) settled first.
     */
    private sleepOrChange;
}

/**
 * The agent's voice as a published room track. Frames go into the sink (an rtc-node `AudioSource`,
 * which paces them and holds back the caller while its queue is full). A flushed segment finishes when
 * the sink has played everything out; a cleared one finishes at once, heard up to what was captured
 * minus what was still queued, so the played-text history is cut where the user stopped hearing it.
 */
declare class RoomAudioOutput extends AudioOutputBase {
    readonly sampleRate: number;
    private readonly clock;
    private readonly logger;
    readonly canPause = false;
    private sink;
    private readonly sinkReady;
    private segment;
    /** Segments flushed and still playing out, oldest first. */
    private draining;
    private closed;
    constructor(sink: Promise<AudioSink>, sampleRate: number, clock: Clock, logger: Logger);
    protected onCaptureFrame(frame: AudioFrame): Promise<void>;
    protected onFlush(): void;
    protected onClearBuffer(): void;
    pause(): void;
    resume(): void;
    /** The room is gone: what was playing ends here. */
    close(): Promise<void>;
    /** How long until the sink has played what it holds, ms (for tests and diagnostics). */
    get queuedDurationMs(): number;
    private finish;
}

type AnySession = AgentSession<any>;
interface RoomIOInit {
    clock: Clock;
    logger: Logger;
    options?: RoomIOOptions;
    /** The participant named by the job (publisher jobs), linked unless the options name another. */
    jobParticipantIdentity?: string | undefined;
    /** Asks the job to end (the linked participant left, the room closed). */
    endJob(reason: string): void;
    /** Where the session's turn latencies and errors are counted (the worker's metrics). */
    metrics?: Pick<WorkerMetrics, 'sessionStarted' | 'turn' | 'error'>;
}
/**
 * A session's I/O in a LiveKit room, following LiveKit's conventions so its frontends and SIP work
 * unchanged. It links to one participant: their microphone is the session's audio input (silence
 * while it is muted or absent), the agent's voice is a published track, the agent's state is the
 * `lk.agent.state` attribute, transcripts of both sides go out on `lk.transcription`, and text on
 * `lk.chat` becomes a user turn. When the linked participant leaves, the job ends (configurable).
 */
declare class RoomIO implements JobTransport {
    private readonly room;
    private readonly init;
    readonly name = "livekit";
    private readonly options;
    private readonly preConnect;
    /** Who owns each microphone the input was given, and whether it announced a pre-connect buffer. */
    private readonly trackOwners;
    private readonly controller;
    private readonly input;
    private readonly output;
    private readonly transcription;
    private readonly userTranscripts;
    private readonly unsubscribers;
    private readonly participantWaiters;
    private published;
    private agentTrackSid;
    private linked;
    private linkedTrackSid;
    private session;
    private stateToWrite;
    private stateWriter;
    private waitTimer;
    private started;
    private closed;
    constructor(room: RoomConnection, init: RoomIOInit);
    private resolveSink;
    private rejectSink;
    /** The participant the session talks to, once linked. */
    get linkedParticipant(): ParticipantInfo | undefined;
    get audioInput(): RoomAudioInput;
    get audioOutput(): RoomAudioOutput;
    /** Starts following the room: publishes the agent track, links a participant, listens to `lk.chat`. */
    start(): void;
    /** Resolves when the named participant (default: the linked one) is in the room. */
    waitForParticipant(identity?: string, signal?: AbortSignal): Promise<ParticipantInfo>;
    io(): SessionIO;
    onSessionConnected(session: AnySession): void;
    notify(notice: JobNotice): void;
    onJobEnded(): void;
    /** Stops following the room and releases the tracks; bounded, never throws. */
    close(): Promise<void>;
    private onRoomEvent;
    /**
     * The key press as the session's `dtmf_received` event (a session that is not connected yet misses
     * it). The digit is what counts: a code that disagrees with it is left out, a missing digit is taken
     * from the code, and an event with neither is dropped with a warning.
     */
    private deliverDtmf;
    private considerParticipant;
    private resolveWaiter;
    private onChat;
    /** Keeps the attribute at the latest state, with one write in flight at a time (older states are skipped). */
    private writeAgentState;
}

/**
 * Hands a room's incoming byte streams to their topic's handler. A frontend may send a stream the
 * moment the agent joins (the pre-connect audio buffer is sent as soon as an agent is active), before
 * the job has built its room I/O. A room registers the early topics before it joins and routes them
 * here: streams with no handler yet are held, bounded in number and time, and handed to the handler that
 * registers later. Both the rtc-node room and the test fake use this one router, so they agree.
 */

/** The topics a room listens to from before it joins. */
declare const EARLY_BYTE_STREAM_TOPICS: readonly string[];
interface ByteStreamRouterOptions {
    clock: Clock;
    /** Topics whose streams are held while no handler is registered; others are cancelled. */
    heldTopics?: readonly string[];
    /** Longest a stream is held for a handler. Default 10000 ms (the web SDK's own recording limit). */
    holdMs?: number;
    /** Most streams held at once; the oldest is cancelled beyond it. Default 8. */
    maxHeld?: number;
}
declare class ByteStreamRouter {
    private readonly options;
    private readonly handlers;
    private readonly held;
    private readonly heldTopics;
    private readonly holdMs;
    private readonly maxHeld;
    private closed;
    constructor(options: ByteStreamRouterOptions);
    /** How many streams wait for a handler. */
    get heldCount(): number;
    isHeldTopic(topic: string): boolean;
    register(topic: string, handler: (stream: IncomingByteStream) => void): () => void;
    /** A stream arrived from the room. */
    deliver(stream: IncomingByteStream): void;
    /** Cancels what is held and refuses what comes later (the room is left). */
    close(): void;
    private release;
    private hand;
}

/**
 * `RoomConnection` over `@livekit/rtc-node`. rtc-node is loaded on first use, so importing this package
 * (or running its worker against a fake) needs no native library until a real room is joined.
 */

type RtcModule = typeof Rtc;
/**
 * Releases rtc-node's native runtime, which otherwise keeps the process alive. Call once, at the very
 * end (the worker's `runWorker` does); a process that never joined a room has nothing to release.
 */
declare function disposeRtcNode(): Promise<void>;
/**
 * Joins a room with rtc-node (auto-subscribing), for the worker's jobs. The early byte stream topics
 * (the pre-connect audio buffer) are listened to from before joining, so a stream a frontend sends the
 * moment the agent appears waits for the job's room I/O instead of being dropped by rtc-node.
 */
declare function connectRtcRoom(url: string, token: string): Promise<RoomConnection>;
/** rtc-node's `AudioSource` as an `AudioSink`: the same operations, frames converted. */
declare class RtcAudioSink implements AudioSink {
    private readonly rtc;
    readonly source: Rtc.AudioSource;
    constructor(rtc: RtcModule, source: Rtc.AudioSource);
    get sampleRate(): number;
    get channels(): number;
    get queuedDurationMs(): number;
    captureFrame(frame: AudioFrame): Promise<void>;
    clearQueue(): void;
    waitForPlayout(): Promise<void>;
    close(): Promise<void>;
}

/** LiveKit's room conventions, read by its frontends (components, agents playground) and SIP. */
declare const TOPIC_TRANSCRIPTION = "lk.transcription";
declare const TOPIC_CHAT = "lk.chat";
declare const ATTRIBUTE_SEGMENT_ID = "lk.segment_id";
declare const ATTRIBUTE_TRANSCRIBED_TRACK_ID = "lk.transcribed_track_id";
declare const ATTRIBUTE_TRANSCRIPTION_FINAL = "lk.transcription_final";
declare const ATTRIBUTE_AGENT_STATE = "lk.agent.state";
/**
 * The agent's words as they become audible, one text stream per message on `lk.transcription`: opened
 * on the first words, written piece by piece, closed when the message ends or is interrupted. Writes
 * are serialized; a failing stream is logged and the next message starts a new one.
 */
declare class AgentTranscriptionOutput implements TextOutput {
    private readonly room;
    private readonly trackSid;
    private readonly logger;
    private writer;
    private chain;
    private segmentId;
    constructor(room: RoomConnection, trackSid: () => string | undefined, logger: Logger);
    /** The segment being written, if a message is in progress. */
    get currentSegmentId(): string | undefined;
    captureText(text: string): void;
    flush(): void;
    /** Resolves once every write so far has gone out (or failed). */
    settled(): Promise<void>;
    private enqueue;
}
/**
 * The user's transcripts, as LiveKit publishes them: each interim result is a short stream holding the
 * whole text so far with `lk.transcription_final: false`, the final one says `true`, and all of one
 * utterance share a segment id. Sent on behalf of the user, naming their microphone track.
 */
declare class UserTranscriptionPublisher {
    private readonly room;
    private readonly logger;
    /** Interim results waiting beyond this many are skipped (the next one carries the whole text). */
    private readonly maxQueued;
    private segmentId;
    private chain;
    private queued;
    constructor(room: RoomConnection, logger: Logger, 
    /** Interim results waiting beyond this many are skipped (the next one carries the whole text). */
    maxQueued?: number);
    publish(text: string, isFinal: boolean, sender: {
        identity: string;
        trackSid: string | undefined;
    }): void;
    settled(): Promise<void>;
}

/** This package's version, reported to the LiveKit server at registration (bundled from package.json). */
declare const VERSION: string;

export { AGENT_NAME_ATTRIBUTE, ATTRIBUTE_AGENT_STATE, ATTRIBUTE_SEGMENT_ID, ATTRIBUTE_TRANSCRIBED_TRACK_ID, ATTRIBUTE_TRANSCRIPTION_FINAL, AgentTranscriptionOutput, AgentWorker, type AgentWorkerEvents, type AgentWorkerOptions, type AudioSink, type AudioTrackStream, ByteStreamRouter, type ByteStreamRouterOptions, CpuLoadMonitor, DEFAULT_RECONNECT_POLICY, type DtmfEvent, EARLY_BYTE_STREAM_TOPICS, type IncomingByteStream, type JobAcceptOptions, type JobAnswer, type JobHandle, type JobOutcome, type JobProcessOptions, JobProcessPool, type JobRejectOptions, JobRequest, type LiveKitJobContext, type MetricsDelta, PRE_CONNECT_AUDIO_TOPIC, type ParticipantInfo, type ParticipantKind, PreConnectAudioError, type PreConnectAudioErrorReason, type PreConnectAudioEvent, type PublishAudioOptions, type PublishedAudio, ROOM_IO_DEFAULTS, type RemoteAudioTrackInfo, RoomAudioInput, type RoomAudioInputOptions, RoomAudioOutput, type RoomConnection, type RoomConnector, type RoomEvent, RoomIO, type RoomIOInit, type RoomIOOptions, RtcAudioSink, type RunWorkerOptions, TOPIC_CHAT, TOPIC_TRANSCRIPTION, type TextStreamOptions, type TextStreamWriterLike, type TrackSource, UserTranscriptionPublisher, VERSION, type WorkerInfo, type WorkerJobType, type WorkerLoadInfo, WorkerMetrics, type WorkerMetricsSnapshot, type WorkerPermissions, agentEndpoint, connectRtcRoom, createWorkerToken, defaultLoad, disposeRtcNode, livekitJobContext, resolveCredentials, runWorker };
