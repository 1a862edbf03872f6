import { Clock, AudioFrame, AgentDefinition, Logger } from '@voxwire/agents';
import { AudioOutputBase } from '@voxwire/agents/provider-utils';

/**
 * What the page and the server say to each other over the socket. Text messages are JSON objects with a
 * `type`; binary messages carry audio:
 * - page -> server: little-endian Int16 mono PCM at the rate announced in `hello`;
 * - server -> page: a 4-byte little-endian segment number, then Int16 mono PCM at `outputSampleRate`.
 * The page's script (public/app.js) mirrors these types.
 */
declare const PROTOCOL_VERSION = 1;
type ClientMessage = {
    type: 'hello';
    protocol: number;
    sampleRate: number;
}
/** The first sample of a segment became audible. */
 | {
    type: 'playback_started';
    segment: number;
} | {
    type: 'playback_progress';
    segment: number;
    playedMs: number;
}
/** The segment played to its end, or was cleared (`interrupted`). */
 | {
    type: 'playback_finished';
    segment: number;
    playedMs: number;
    interrupted: boolean;
}
/** Text typed on the page instead of spoken. */
 | {
    type: 'user_text';
    text: string;
};
type ServerMessage = {
    type: 'ready';
    jobId: string;
    outputSampleRate: number;
    title: string;
} | {
    type: 'notice';
    level: 'info' | 'warn' | 'error';
    message: string;
} | {
    type: 'user_state';
    state: string;
} | {
    type: 'agent_state';
    state: string;
} | {
    type: 'user_transcript';
    text: string;
    final: boolean;
}
/** A piece of the agent's transcript that just became audible. */
 | {
    type: 'agent_text';
    text: string;
} | {
    type: 'agent_text_end';
} | {
    type: 'message';
    role: string;
    text: string;
    interrupted: boolean;
} | {
    type: 'tool_call';
    callId: string;
    name: string;
    arguments: string;
} | {
    type: 'tool_output';
    callId: string;
    name: string;
    output: string;
    isError: boolean;
} | {
    type: 'metrics';
    metrics: Record<string, unknown>;
} | {
    type: 'false_interruption';
    resumed: boolean;
} | {
    type: 'error';
    source: string;
    message: string;
    recoverable: boolean;
}
/** No more audio for this segment: play what is buffered, then report `playback_finished`. */
 | {
    type: 'segment_end';
    segment: number;
}
/** Stop this segment now and report how much of it was heard. */
 | {
    type: 'clear';
    segment: number;
} | {
    type: 'pause';
} | {
    type: 'resume';
}
/** Counters of what was dropped because one side was too slow. */
 | {
    type: 'stats';
    inputFramesDropped: number;
    outputFramesDropped: number;
}
/** The job is over; `reconnect` asks the page to start a new session at once (e.g. after a reload). */
 | {
    type: 'ended';
    reason: string;
    reconnect: boolean;
};

/** How the sink reaches the page. */
interface PageLink {
    send(message: ServerMessage): void;
    /** Sends one frame of a segment; returns false when it was dropped because the socket is backed up. */
    sendAudio(segment: number, samples: Int16Array): boolean;
}
interface PageAudioOutputOptions {
    /** The page's playback rate; the session resamples frames to it. */
    sampleRate: number;
    /** Audio sent ahead of what the page has played: enough to ride out jitter, little to throw away on a cut. */
    leadMs?: number;
    /** How far the page's reports may lag the clock before the clock paces playback instead. */
    maxReportLagMs?: number;
    /** Slack after a segment's expected end before it is finished without the page's word. */
    finishSlackMs?: number;
    /** How long a cleared segment waits for the page to say how much was heard. */
    clearReplyTimeoutMs?: number;
}
/**
 * The agent's voice on the page. Frames go out at real speed, a little ahead of what the page has played
 * (the page's progress reports pace it; the clock takes over when they stop, so a stalled page never
 * stalls the session). `clearBuffer()` tells the page to stop at once, and every segment ends with the
 * position the page actually reached.
 */
declare class PageAudioOutput extends AudioOutputBase {
    private readonly link;
    private readonly clock;
    readonly sampleRate: number;
    readonly canPause = true;
    private readonly leadMs;
    private readonly maxReportLagMs;
    private readonly finishSlackMs;
    private readonly clearReplyTimeoutMs;
    private nextSegmentId;
    /** Segments not finished yet, oldest first: the last may still be receiving frames. */
    private segments;
    private pausedAt;
    private wake;
    private closed;
    private droppedFrames;
    private heardBeforeClose;
    constructor(link: PageLink, clock: Clock, options: PageAudioOutputOptions);
    /** Frames not sent because the socket was backed up. */
    get outputFramesDropped(): number;
    protected onCaptureFrame(frame: AudioFrame): Promise<void>;
    /** The segment receiving frames, if one is open. */
    private get current();
    protected onFlush(): void;
    protected onClearBuffer(): void;
    pause(): void;
    resume(): void;
    /** Handles the page's playback reports. */
    onPlaybackReport(segmentId: number, playedMs: number, finished?: {
        interrupted: boolean;
    }): void;
    /** The page is gone: whatever was playing ends where the clock says it got to. */
    close(): void;
    private resumeLocally;
    /** Where the page probably is: its own report, or the clock when the reports lag too far behind. */
    private estimateMs;
    /** Holds the caller until the page is at most `leadMs` behind, or the segment is cut, or the page left. */
    private pace;
    private wakePacer;
    private armFinishWatchdog;
    private finish;
}

interface PlaygroundOptions {
    /** The agent every tab talks to (an agent file's default export). */
    agent: AgentDefinition;
    /**
     * Address to listen on. Default `127.0.0.1`: only this machine can reach the page and the agent. On
     * another address (`0.0.0.0`) the `Host` header may also be an IP literal or one of `allowedHosts`,
     * and the secret is what keeps other machines out.
     */
    host?: string;
    /**
     * The secret every socket and the page need (`?token=` in `url`, then a cookie). Default: 32 random
     * bytes, new for each server. Pass one to keep it across restarts (at least 16 characters).
     */
    token?: string;
    /** Host names accepted in `Host` besides loopback and IP literals, when not bound to loopback. */
    allowedHosts?: readonly string[];
    /** Port; `0` picks a free one. Default 0. */
    port?: number;
    /** Shown at the top of the page, e.g. the agent file's name. */
    title?: string;
    /** The result of `agent.prewarm()` when already run; otherwise the playground runs it before listening. */
    prewarmed?: unknown;
    logger?: Logger;
    clock?: Clock;
    /** Tabs served at once; more are told to close one. Default 8. */
    maxSessions?: number;
    /** Microphone frames queued for a slow session before the oldest are dropped. Default 150 (about 3 s). */
    inputQueueFrames?: number;
    /** Unsent bytes a socket may hold before agent audio is dropped. Default 1 MiB (about 10 s at 48 kHz). */
    maxSocketBufferBytes?: number;
    /**
     * How long a new socket may stay silent before its `hello`; then it is closed and its tab slot freed.
     * Timed on `clock`. Default 5000 ms.
     */
    helloTimeoutMs?: number;
    /** Typed messages per tab whose replies may be pending at once; more are refused with a notice. Default 3. */
    maxQueuedTexts?: number;
}
interface Playground {
    /** `http://host:port/?token=…`, to open in a browser: it carries the secret, so show it only to the user. */
    readonly url: string;
    /** `http://host:port`, without the secret. */
    readonly origin: string;
    /** The secret the page and every socket need. */
    readonly token: string;
    /** False when bound to an address other machines can reach. */
    readonly loopbackOnly: boolean;
    readonly port: number;
    readonly host: string;
    /** Tabs with a live session. */
    readonly activeSessions: number;
    /**
     * Ends every session and stops listening. `reconnect: true` tells the pages to reconnect at once (a new
     * server is about to take over, e.g. after the agent file changed).
     */
    close(options?: {
        reason?: string;
        reconnect?: boolean;
    }): Promise<void>;
}
/**
 * Serves the playground: the page on `/`, its socket on `/ws`. Each socket (one browser tab) runs one job
 * of the agent definition, so several tabs hold separate conversations at once.
 */
declare function startPlayground(options: PlaygroundOptions): Promise<Playground>;

export { type ClientMessage, PROTOCOL_VERSION, PageAudioOutput, type PageAudioOutputOptions, type PageLink, type Playground, type PlaygroundOptions, type ServerMessage, startPlayground };
