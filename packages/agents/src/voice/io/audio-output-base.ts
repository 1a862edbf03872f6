import type { AudioFrame } from '../../audio/audio-frame.js';
import type { AudioOutput, PlaybackEvent, PlaybackFinished } from '../../providers/audio-io.js';
import { abortReason } from '../../time/clock.js';

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

  waitForPlayout(options: { signal?: AbortSignal } = {}): Promise<PlaybackFinished> {
    const segment = this.segmentsEnded;
    if (this.segmentsFinished >= segment) return Promise.resolve(this.lastFinished);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const waiter = {
        segment,
        resolve: (event: PlaybackFinished) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(event);
        },
      };
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Calls of `waitForPlayout()` still waiting for their segment's finish (diagnostics and tests). */
  protected get pendingPlayoutWaits(): number {
    return this.waiters.length;
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
