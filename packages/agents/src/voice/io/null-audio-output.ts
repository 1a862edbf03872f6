import type { AudioFrame } from '../../audio/audio-frame.js';
import type { PlaybackFinished } from '../../providers/audio-io.js';
import type { Clock } from '../../time/clock.js';
import { AudioOutputBase } from './audio-output-base.js';

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
    // Clearing always ends a pause, even with nothing left to cut (the contract of AudioOutput).
    this.paused = false;
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
