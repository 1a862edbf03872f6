import type { AudioFrame, Clock, Logger, TimerHandle } from '@voxwire/agents';
import { AudioOutputBase } from '@voxwire/agents/provider-utils';
import type { AudioSink } from './room-connection.js';

interface Segment {
  /** Audio captured into the sink for this segment, ms. */
  capturedMs: number;
  ended: boolean;
  finished: boolean;
  finishTimer: TimerHandle | undefined;
}

/**
 * The agent's voice as a published room track. Frames go into the sink (an rtc-node `AudioSource`,
 * which paces them and holds back the caller while its queue is full). A flushed segment finishes when
 * the sink has played everything out; a cleared one finishes at once, heard up to what was captured
 * minus what was still queued, so the played-text history is cut where the user stopped hearing it.
 */
export class RoomAudioOutput extends AudioOutputBase {
  readonly canPause = false;
  private sink: AudioSink | undefined;
  private readonly sinkReady: Promise<AudioSink | undefined>;
  private segment: Segment | undefined;
  /** Segments flushed and still playing out, oldest first. */
  private draining: Segment[] = [];
  private closed = false;

  constructor(
    sink: Promise<AudioSink>,
    readonly sampleRate: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    super();
    this.sinkReady = sink.then(
      (s) => {
        // Published after the room closed: nothing will play on it.
        if (this.closed) void s.close().catch(() => {});
        this.sink = s;
        return s;
      },
      (error) => {
        this.logger.error({ error: String(error) }, 'could not publish the agent audio track');
        return undefined;
      },
    );
  }

  protected async onCaptureFrame(frame: AudioFrame): Promise<void> {
    if (this.closed) return;
    if (!this.segment) {
      this.segment = { capturedMs: 0, ended: false, finished: false, finishTimer: undefined };
      this.notifyPlaybackStarted();
    }
    const segment = this.segment;
    const sink = this.sink ?? (await this.sinkReady);
    if (!sink || this.closed || segment.ended) return;
    try {
      await sink.captureFrame(frame);
      segment.capturedMs += frame.durationMs;
    } catch (error) {
      this.logger.warn({ error: String(error) }, 'the agent audio track refused a frame');
    }
  }

  protected onFlush(): void {
    const segment = this.segment;
    this.segment = undefined;
    if (!segment || this.closed) {
      this.notifyPlaybackFinished({ playbackPositionMs: segment?.capturedMs ?? 0, interrupted: this.closed });
      return;
    }
    segment.ended = true;
    this.draining.push(segment);
    // The sink's queue says when the last captured sample will have played; the next segment's frames
    // may already follow it, so the sink's own waitForPlayout() would wait for those too.
    const remainingMs = this.sink?.queuedDurationMs ?? 0;
    segment.finishTimer = this.clock.setTimer(remainingMs, () =>
      this.finish(segment, { playbackPositionMs: segment.capturedMs, interrupted: false }),
    );
  }

  protected onClearBuffer(): void {
    const queuedMs = this.sink?.queuedDurationMs ?? 0;
    this.sink?.clearQueue();
    const segments = [...this.draining];
    if (this.segment) {
      // clearBuffer() of the base class has already counted the open segment as ended.
      this.segment.ended = true;
      segments.push(this.segment);
      this.segment = undefined;
    }
    // What was still queued is the tail of the latest segments; the older ones were heard whole.
    let unheardMs = queuedMs;
    for (let i = segments.length - 1; i >= 0; i--) {
      const s = segments[i]!;
      const cut = Math.min(unheardMs, s.capturedMs);
      unheardMs -= cut;
      this.finish(s, {
        playbackPositionMs: s.capturedMs - cut,
        interrupted: cut > 0 || i === segments.length - 1,
      });
    }
  }

  pause(): void {}

  resume(): void {}

  /** The room is gone: what was playing ends here. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.onClearBuffer();
    this.closed = true;
    await this.sink?.close().catch(() => {});
  }

  /** How long until the sink has played what it holds, ms (for tests and diagnostics). */
  get queuedDurationMs(): number {
    return this.sink?.queuedDurationMs ?? 0;
  }

  private finish(segment: Segment, event: { playbackPositionMs: number; interrupted: boolean }): void {
    if (segment.finished) return;
    const index = this.draining.indexOf(segment);
    // Segments play in order: finishing one finishes the ones queued before it.
    const before = index >= 0 ? this.draining.splice(0, index + 1) : [segment];
    for (const s of before) {
      if (s.finished) continue;
      s.finished = true;
      s.finishTimer?.cancel();
      if (this.finishPending) {
        this.notifyPlaybackFinished(
          s === segment ? event : { playbackPositionMs: s.capturedMs, interrupted: false },
        );
      }
    }
  }
}
