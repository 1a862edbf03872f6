import type { AudioFrame } from '../../audio/audio-frame.js';
import type { Clock } from '../../time/clock.js';

/** Where the user's audio comes from: any async sequence of frames (a room track, a socket, a file). */
export type AudioInput = AsyncIterable<AudioFrame>;

export interface PlaybackFinished {
  /** How much of the segment was actually heard, in ms. */
  playbackPositionMs: number;
  /** True when the segment was cut short by `clearBuffer()`. */
  interrupted: boolean;
}

/**
 * Where the agent's audio goes. The session sends one segment at a time: frames, then `flush()` (played to
 * the end) or `clearBuffer()` (stop now), and awaits `waitForPlayout()` for that segment.
 * Extend `AudioOutputBase` rather than implementing this directly: it keeps the segment bookkeeping.
 */
export interface AudioOutput {
  /** Frames are resampled to this rate when set. */
  readonly sampleRate: number | undefined;
  /** Whether `pause()` / `resume()` hold playback (false interruptions need it). */
  readonly canPause: boolean;
  /** Queues a frame for playback. May wait (back-pressure) while the sink's buffer is full. */
  captureFrame(frame: AudioFrame): Promise<void>;
  /** Ends the current segment: it plays to the end, then its playout finishes. */
  flush(): void;
  /**
   * Drops whatever of the current segment has not been played yet; its playout finishes as interrupted.
   * It also ends a pause: the next segment starts playing as soon as it arrives.
   */
  clearBuffer(): void;
  pause(): void;
  resume(): void;
  /** Resolves when the last ended segment has finished playing (or was cleared). */
  waitForPlayout(): Promise<PlaybackFinished>;
  /** Subscribes to playback start/finish of segments; returns an unsubscribe function. */
  onPlayback(listener: (event: PlaybackEvent) => void): () => void;
}

export type PlaybackEvent = { type: 'playback_started' } | ({ type: 'playback_finished' } & PlaybackFinished);

/**
 * Segment bookkeeping shared by every output: a sink calls `notifyPlaybackStarted()` when the first
 * frame of a segment is audible and `notifyPlaybackFinished()` when the segment has ended, and
 * `waitForPlayout()` pairs each ended segment with its finish.
 */
export abstract class AudioOutputBase implements AudioOutput {
  abstract readonly sampleRate: number | undefined;
  abstract readonly canPause: boolean;
  private segmentsEnded = 0;
  private segmentsFinished = 0;
  private lastFinished: PlaybackFinished = { playbackPositionMs: 0, interrupted: false };
  private waiters: Array<{ segment: number; resolve: (event: PlaybackFinished) => void }> = [];
  private readonly listeners = new Set<(event: PlaybackEvent) => void>();
  private segmentOpen = false;

  /** Queues a frame in the sink (the base class has already opened the segment). */
  protected abstract onCaptureFrame(frame: AudioFrame): Promise<void>;
  protected abstract onFlush(): void;
  protected abstract onClearBuffer(): void;
  abstract pause(): void;
  abstract resume(): void;

  captureFrame(frame: AudioFrame): Promise<void> {
    this.segmentOpen = true;
    return this.onCaptureFrame(frame);
  }

  flush(): void {
    this.endSegment();
    this.onFlush();
  }

  clearBuffer(): void {
    // Clearing cuts the open segment, or the ended one still playing; it never opens a new one, so
    // the next waitForPlayout() pairs with the segment actually cut.
    if (this.segmentOpen) this.endSegment();
    this.onClearBuffer();
  }

  waitForPlayout(): Promise<PlaybackFinished> {
    const segment = this.segmentsEnded;
    if (this.segmentsFinished >= segment) return Promise.resolve(this.lastFinished);
    return new Promise((resolve) => this.waiters.push({ segment, resolve }));
  }

  onPlayback(listener: (event: PlaybackEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** True between the first frame of a segment and its flush/clear. */
  protected get inSegment(): boolean {
    return this.segmentOpen;
  }

  /** True when an ended segment has not reported its finish yet. */
  protected get finishPending(): boolean {
    return this.segmentsFinished < this.segmentsEnded;
  }

  protected notifyPlaybackStarted(): void {
    for (const listener of [...this.listeners]) listener({ type: 'playback_started' });
  }

  /** Call once per ended segment, when its last audible sample has played (or it was cleared). */
  protected notifyPlaybackFinished(event: PlaybackFinished): void {
    if (this.segmentsFinished >= this.segmentsEnded) return;
    this.segmentsFinished++;
    this.lastFinished = event;
    const ready = this.waiters.filter((w) => w.segment <= this.segmentsFinished);
    this.waiters = this.waiters.filter((w) => w.segment > this.segmentsFinished);
    for (const w of ready) w.resolve(event);
    for (const listener of [...this.listeners]) listener({ type: 'playback_finished', ...event });
  }

  private endSegment(): void {
    this.segmentOpen = false;
    this.segmentsEnded++;
  }
}

/**
 * Receives the agent's transcript in step with the audio actually played, and the user's transcripts.
 */
export interface TextOutput {
  /** A piece of the agent's transcript that has just become audible. */
  captureText(text: string): void;
  /** The current agent message is complete (or was interrupted). */
  flush(): void;
}

/**
 * An output that plays into nothing at real speed on the given clock: useful for text-only sessions and
 * tests. Playback of a segment takes as long as its audio.
 */
export class NullAudioOutput extends AudioOutputBase {
  readonly sampleRate: number | undefined = undefined;
  readonly canPause = true;
  private queuedMs = 0;
  private playedMs = 0;
  private playing = false;
  private paused = false;
  private startedAt = 0;
  private finishTimer: { cancel(): void } | undefined;

  constructor(private readonly clock: Clock) {
    super();
  }

  protected async onCaptureFrame(frame: AudioFrame): Promise<void> {
    if (!this.playing) {
      this.queuedMs = 0;
      this.playedMs = 0;
      this.playing = true;
      this.startedAt = this.clock.now();
      this.notifyPlaybackStarted();
    }
    this.queuedMs += frame.durationMs;
  }

  protected onFlush(): void {
    this.scheduleFinish();
  }

  protected onClearBuffer(): void {
    if (!this.playing && !this.finishPending) return;
    this.finish({ playbackPositionMs: this.heardMs(), interrupted: true });
  }

  pause(): void {
    if (this.paused) return;
    this.playedMs = this.heardMs();
    this.paused = true;
    this.finishTimer?.cancel();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.startedAt = this.clock.now();
    if (!this.inSegment && this.playing) this.scheduleFinish();
  }

  private heardMs(): number {
    if (!this.playing) return 0;
    const live = this.paused ? 0 : this.clock.now() - this.startedAt;
    return Math.min(this.queuedMs, this.playedMs + live);
  }

  private scheduleFinish(): void {
    if (!this.playing) {
      this.finish({ playbackPositionMs: 0, interrupted: false });
      return;
    }
    if (this.paused) return;
    this.finishTimer?.cancel();
    const remaining = Math.max(0, this.queuedMs - this.heardMs());
    this.finishTimer = this.clock.setTimer(remaining, () =>
      this.finish({ playbackPositionMs: this.queuedMs, interrupted: false }),
    );
  }

  private finish(event: PlaybackFinished): void {
    this.finishTimer?.cancel();
    this.finishTimer = undefined;
    this.playing = false;
    this.paused = false;
    this.notifyPlaybackFinished(event);
  }
}
