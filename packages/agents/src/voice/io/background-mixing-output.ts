import { AudioFrame } from '../../audio/audio-frame.js';
import { roundToInt16 } from '../../audio/pcm-math.js';
import type { AudioOutput } from '../../providers/audio-io.js';
import { AudioOutputBase } from './audio-output-base.js';

/** What the output asks of the background: sound to add, and a word when speech begins. */
export interface BackgroundMixer {
  /** True when rendering would add anything. */
  readonly audible: boolean;
  /** Adds the background into `mix` (int16 units, interleaved); false when it added nothing. */
  render(mix: Float32Array, channels: number, sampleRate: number, frames: number): boolean;
  /** The first frame of a speech segment is on its way to the sink. */
  onSpeechStarted(): void;
  /** A speech segment has finished playing (or was cut). */
  onSpeechFinished(): void;
}

/**
 * The session's audio output with a background under it. Speech frames pass straight through to the
 * sink (the background added into them, never a frame held back or reordered), with the sink's own
 * back-pressure and playout reports. Between speech segments, when the sink is idle, `fillGap()` (driven
 * by the clock) sends one frame of background at a time as a segment of its own, which the next speech
 * frame clears at once: speech never waits behind background audio, and at most one background frame is
 * queued in this object.
 */
export class BackgroundMixingOutput extends AudioOutputBase {
  readonly sampleRate: number | undefined;
  readonly canPause: boolean;
  /** A speech segment receiving frames. */
  private speechOpen = false;
  /** Speech segments ended but not finished in the sink. */
  private speechDraining = 0;
  /** The sink's current segment is background. */
  private backgroundOpen = false;
  private backgroundInFlight = false;
  private speechStartOwed = false;
  private sinkPaused = false;
  private closed = false;
  private gapFramesSent = 0;
  private gapFramesSkipped = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly sink: AudioOutput,
    private readonly mixer: BackgroundMixer,
    /** Rate of background frames when the sink announces none. */
    private readonly fallbackRate: number,
  ) {
    super();
    this.sampleRate = sink.sampleRate;
    this.canPause = sink.canPause;
    this.unsubscribe = sink.onPlayback((event) => {
      // The sink's segments are speech and background mixed; only the speech ones are the session's.
      if (event.type === 'playback_started' && this.speechStartOwed) {
        this.speechStartOwed = false;
        this.notifyPlaybackStarted();
      }
    });
  }

  /** Background frames sent into silence, and ticks skipped because the sink had not taken the last one. */
  get gapStats(): { sent: number; skipped: number } {
    return { sent: this.gapFramesSent, skipped: this.gapFramesSkipped };
  }

  protected onCaptureFrame(frame: AudioFrame): Promise<void> {
    if (!this.speechOpen) {
      this.speechOpen = true;
      this.speechStartOwed = true;
      if (this.backgroundOpen) {
        // Cut the background at once rather than let speech queue behind it.
        this.backgroundOpen = false;
        this.sink.clearBuffer();
      }
      this.mixer.onSpeechStarted();
    }
    return this.sink.captureFrame(this.mixUnder(frame));
  }

  protected onFlush(): void {
    if (!this.speechOpen) {
      // An empty segment: nothing reached the sink, so it has finished already.
      this.notifyPlaybackFinished({ playbackPositionMs: 0, interrupted: false });
      return;
    }
    this.endSpeech(() => this.sink.flush());
  }

  protected onClearBuffer(): void {
    const paused = this.sinkPaused;
    this.sinkPaused = false;
    if (this.speechOpen) this.endSpeech(() => this.sink.clearBuffer());
    else if (this.speechDraining > 0) this.sink.clearBuffer();
    else if (paused) {
      // Nothing of the session's to cut, but a clear also ends a pause (the AudioOutput contract).
      this.backgroundOpen = false;
      this.sink.clearBuffer();
    }
  }

  pause(): void {
    this.sinkPaused = true;
    this.sink.pause();
  }

  resume(): void {
    this.sinkPaused = false;
    this.sink.resume();
  }

  /**
   * One clock tick: sends `frameMs` of background when no speech holds the sink. A tick whose previous
   * frame the sink has not accepted yet is skipped, not queued.
   */
  fillGap(frameMs: number): void {
    if (this.closed || this.sinkPaused || this.speechOpen || this.speechDraining > 0) return;
    if (!this.mixer.audible) {
      this.endBackground();
      return;
    }
    if (this.backgroundInFlight) {
      this.gapFramesSkipped++;
      return;
    }
    const rate = this.sink.sampleRate ?? this.fallbackRate;
    const frames = Math.max(1, Math.round((rate * frameMs) / 1000));
    const mix = new Float32Array(frames);
    this.mixer.render(mix, 1, rate, frames);
    const data = new Int16Array(frames);
    for (let i = 0; i < frames; i++) data[i] = roundToInt16(mix[i]!);
    this.backgroundOpen = true;
    this.backgroundInFlight = true;
    this.gapFramesSent++;
    void this.sink
      .captureFrame(new AudioFrame(data, rate, 1, frames))
      .catch(() => {})
      .finally(() => {
        this.backgroundInFlight = false;
      });
  }

  /** Stops the background (speech segments still playing finish normally) and lets go of the sink. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.endBackground();
    this.unsubscribe();
  }

  private endBackground(): void {
    if (!this.backgroundOpen) return;
    this.backgroundOpen = false;
    this.sink.clearBuffer();
  }

  private endSpeech(end: () => void): void {
    this.speechOpen = false;
    this.speechStartOwed = false;
    this.speechDraining++;
    end();
    // Called right after ending it, the sink's waitForPlayout() pairs with this speech segment.
    void this.sink.waitForPlayout().then((finished) => {
      this.speechDraining--;
      if (this.speechDraining === 0 && !this.speechOpen) this.mixer.onSpeechFinished();
      this.notifyPlaybackFinished(finished);
    });
  }

  private mixUnder(frame: AudioFrame): AudioFrame {
    if (this.closed || !this.mixer.audible) return frame;
    const mix = new Float32Array(frame.data.length);
    for (let i = 0; i < mix.length; i++) mix[i] = frame.data[i]!;
    if (!this.mixer.render(mix, frame.channels, frame.sampleRate, frame.samplesPerChannel)) return frame;
    const data = new Int16Array(mix.length);
    for (let i = 0; i < mix.length; i++) data[i] = roundToInt16(mix[i]!);
    return new AudioFrame(data, frame.sampleRate, frame.channels, frame.samplesPerChannel);
  }
}
