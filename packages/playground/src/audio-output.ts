import type { AudioFrame, Clock } from '@voxwire/agents';
import { AudioOutputBase, type PlaybackFinished } from '@voxwire/agents/provider-utils';
import type { ServerMessage } from './protocol.js';

/** How the sink reaches the page. */
export interface PageLink {
  send(message: ServerMessage): void;
  /** Sends one frame of a segment; returns false when it was dropped because the socket is backed up. */
  sendAudio(segment: number, samples: Int16Array): boolean;
}

export interface PageAudioOutputOptions {
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

interface Segment {
  id: number;
  sentMs: number;
  /** What the page last reported as played. */
  reportedMs: number;
  startedAt: number;
  pausedMs: number;
  ended: boolean;
  finishTimer: { cancel(): void } | undefined;
}

/**
 * The agent's voice on the page. Frames go out at real speed, a little ahead of what the page has played
 * (the page's progress reports pace it; the clock takes over when they stop, so a stalled page never
 * stalls the session). `clearBuffer()` tells the page to stop at once, and every segment ends with the
 * position the page actually reached.
 */
export class PageAudioOutput extends AudioOutputBase {
  readonly sampleRate: number;
  readonly canPause = true;
  private readonly leadMs: number;
  private readonly maxReportLagMs: number;
  private readonly finishSlackMs: number;
  private readonly clearReplyTimeoutMs: number;
  private nextSegmentId = 1;
  /** Segments not finished yet, oldest first: the last may still be receiving frames. */
  private segments: Segment[] = [];
  private pausedAt: number | undefined;
  private wake: (() => void) | undefined;
  private closed = false;
  private droppedFrames = 0;
  private heardBeforeClose = 0;

  constructor(
    private readonly link: PageLink,
    private readonly clock: Clock,
    options: PageAudioOutputOptions,
  ) {
    super();
    this.sampleRate = options.sampleRate;
    this.leadMs = options.leadMs ?? 240;
    this.maxReportLagMs = options.maxReportLagMs ?? 400;
    this.finishSlackMs = options.finishSlackMs ?? 1500;
    this.clearReplyTimeoutMs = options.clearReplyTimeoutMs ?? 400;
  }

  /** Frames not sent because the socket was backed up. */
  get outputFramesDropped(): number {
    return this.droppedFrames;
  }

  protected async onCaptureFrame(frame: AudioFrame): Promise<void> {
    if (this.closed) return;
    let segment = this.current;
    if (!segment) {
      // A new segment may start while the previous one still drains on the page: the page queues it.
      segment = {
        id: this.nextSegmentId++,
        sentMs: 0,
        reportedMs: 0,
        startedAt: this.clock.now(),
        pausedMs: 0,
        ended: false,
        finishTimer: undefined,
      };
      this.segments.push(segment);
      this.notifyPlaybackStarted();
    }
    if (!this.link.sendAudio(segment.id, frame.data)) this.droppedFrames++;
    segment.sentMs += frame.durationMs;
    await this.pace(segment);
  }

  /** The segment receiving frames, if one is open. */
  private get current(): Segment | undefined {
    const last = this.segments[this.segments.length - 1];
    return last && !last.ended ? last : undefined;
  }

  protected onFlush(): void {
    if (this.closed) {
      // The page left while this segment was being sent: it was heard up to where the page was then.
      this.notifyPlaybackFinished({ playbackPositionMs: this.heardBeforeClose, interrupted: true });
      this.heardBeforeClose = 0;
      return;
    }
    const segment = this.current;
    if (!segment) {
      // Nothing was sent since the last segment: an empty segment has finished at once.
      this.notifyPlaybackFinished({ playbackPositionMs: 0, interrupted: false });
      return;
    }
    segment.ended = true;
    this.link.send({ type: 'segment_end', segment: segment.id });
    this.armFinishWatchdog(segment);
  }

  protected onClearBuffer(): void {
    this.resumeLocally();
    // Clearing stops everything the page still holds, the open segment and any draining before it.
    for (const segment of this.segments) {
      segment.ended = true;
      this.link.send({ type: 'clear', segment: segment.id });
      // The page answers with the position it reached; without an answer, the clock's estimate of
      // where it stopped (now) stands.
      const estimate = this.estimateMs(segment);
      segment.finishTimer?.cancel();
      segment.finishTimer = this.clock.setTimer(this.clearReplyTimeoutMs, () =>
        this.finish(segment, { playbackPositionMs: estimate, interrupted: true }),
      );
    }
    this.wakePacer();
  }

  pause(): void {
    if (this.pausedAt !== undefined || this.closed) return;
    this.pausedAt = this.clock.now();
    this.link.send({ type: 'pause' });
    for (const segment of this.segments) segment.finishTimer?.cancel();
  }

  resume(): void {
    if (this.pausedAt === undefined) return;
    this.resumeLocally();
    this.link.send({ type: 'resume' });
    for (const segment of this.segments) if (segment.ended) this.armFinishWatchdog(segment);
  }

  /** Handles the page's playback reports. */
  onPlaybackReport(segmentId: number, playedMs: number, finished?: { interrupted: boolean }): void {
    const segment = this.segments.find((s) => s.id === segmentId);
    if (!segment) return;
    segment.reportedMs = Math.max(segment.reportedMs, Math.min(playedMs, segment.sentMs));
    if (finished && (segment.ended || finished.interrupted)) {
      this.finish(segment, {
        playbackPositionMs: Math.min(playedMs, segment.sentMs),
        interrupted: finished.interrupted,
      });
    } else {
      this.wakePacer();
    }
  }

  /** The page is gone: whatever was playing ends where the clock says it got to. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const open = this.current;
    if (open) this.heardBeforeClose = this.estimateMs(open);
    for (const segment of [...this.segments]) {
      this.finish(segment, { playbackPositionMs: this.estimateMs(segment), interrupted: true });
    }
    this.wakePacer();
  }

  private resumeLocally(): void {
    if (this.pausedAt === undefined) return;
    const pausedFor = this.clock.now() - this.pausedAt;
    for (const segment of this.segments) segment.pausedMs += pausedFor;
    this.pausedAt = undefined;
    this.wakePacer();
  }

  /** Where the page probably is: its own report, or the clock when the reports lag too far behind. */
  private estimateMs(segment: Segment): number {
    const pausedNow = this.pausedAt !== undefined ? this.clock.now() - this.pausedAt : 0;
    const elapsed = this.clock.now() - segment.startedAt - segment.pausedMs - pausedNow;
    return Math.min(segment.sentMs, Math.max(segment.reportedMs, elapsed - this.maxReportLagMs));
  }

  /** Holds the caller until the page is at most `leadMs` behind, or the segment is cut, or the page left. */
  private async pace(segment: Segment): Promise<void> {
    while (!this.closed && !segment.ended) {
      const ahead = segment.sentMs - this.estimateMs(segment);
      if (ahead <= this.leadMs && this.pausedAt === undefined) return;
      const waitMs = this.pausedAt !== undefined ? 1000 : Math.min(ahead - this.leadMs, 100);
      const woken = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      const controller = new AbortController();
      await Promise.race([woken, this.clock.sleep(waitMs, controller.signal).catch(() => {})]);
      controller.abort();
    }
  }

  private wakePacer(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private armFinishWatchdog(segment: Segment): void {
    if (this.pausedAt !== undefined) return;
    segment.finishTimer?.cancel();
    const remaining = segment.sentMs - this.estimateMs(segment);
    // The page normally reports the end itself; this only covers a page that went quiet.
    segment.finishTimer = this.clock.setTimer(remaining + this.maxReportLagMs + this.finishSlackMs, () =>
      this.finish(segment, { playbackPositionMs: this.estimateMs(segment), interrupted: false }),
    );
  }

  private finish(segment: Segment, event: PlaybackFinished): void {
    const index = this.segments.indexOf(segment);
    if (index < 0) return;
    // The page plays segments in order, so the ones before this one are over too.
    for (const s of this.segments.splice(0, index + 1)) {
      s.finishTimer?.cancel();
      s.finishTimer = undefined;
      const owed = s.ended;
      s.ended = true;
      // Only segments the session has ended (flushed or cleared) are owed a finish.
      if (owed && this.finishPending) {
        this.notifyPlaybackFinished(
          s === segment ? event : { playbackPositionMs: s.sentMs, interrupted: false },
        );
      }
    }
    this.wakePacer();
  }
}
