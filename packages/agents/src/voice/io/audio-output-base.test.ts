import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import type { PlaybackFinished } from '../../providers/audio-io.js';
import { AudioOutputBase } from './audio-output-base.js';

/** Reports playback finished only when told to. */
class ManualSink extends AudioOutputBase {
  readonly sampleRate = 16_000;
  readonly canPause = false;
  get waiting(): number {
    return this.pendingPlayoutWaits;
  }
  finish(event: PlaybackFinished): void {
    this.notifyPlaybackFinished(event);
  }
  protected async onCaptureFrame(): Promise<void> {}
  protected onFlush(): void {}
  protected onClearBuffer(): void {}
  pause(): void {}
  resume(): void {}
}

const frame = (): AudioFrame => AudioFrame.silence(16_000, 1, 320);

describe('AudioOutputBase.waitForPlayout', () => {
  it('forgets a wait whose signal aborts, and rejects it with the reason', async () => {
    const sink = new ManualSink();
    await sink.captureFrame(frame());
    sink.flush();
    const giveUp = new AbortController();
    const waiting = sink.waitForPlayout({ signal: giveUp.signal });
    const kept = sink.waitForPlayout();
    expect(sink.waiting).toBe(2);
    giveUp.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(sink.waiting).toBe(1);
    sink.finish({ playbackPositionMs: 20, interrupted: false });
    await expect(kept).resolves.toEqual({ playbackPositionMs: 20, interrupted: false });
    expect(sink.waiting).toBe(0);
  });

  it('an already aborted signal rejects at once and leaves nothing behind', async () => {
    const sink = new ManualSink();
    await sink.captureFrame(frame());
    sink.flush();
    const giveUp = new AbortController();
    giveUp.abort();
    await expect(sink.waitForPlayout({ signal: giveUp.signal })).rejects.toThrow();
    expect(sink.waiting).toBe(0);
  });

  it('aborting after the finish changes nothing', async () => {
    const sink = new ManualSink();
    await sink.captureFrame(frame());
    sink.flush();
    const giveUp = new AbortController();
    const waiting = sink.waitForPlayout({ signal: giveUp.signal });
    sink.finish({ playbackPositionMs: 20, interrupted: false });
    giveUp.abort();
    await expect(waiting).resolves.toEqual({ playbackPositionMs: 20, interrupted: false });
  });
});
