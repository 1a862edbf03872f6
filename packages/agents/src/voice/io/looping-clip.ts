import type { AudioFrameLike } from '../../audio/audio-frame.js';
import { toMono } from '../../audio/frame-utils.js';
import { resampleFrame } from '../../audio/resampler.js';

/**
 * One looping clip with a volume and a fade envelope, added into mix buffers sample by sample. The
 * envelope moves per sample (not per timer tick), so a fade sounds the same whether the samples come
 * from a tick of silence or from a burst of speech frames.
 */
export class LoopingClip {
  private volumeValue: number;
  /** 0..1: where the fade is now, and where it is going. */
  private level = 0;
  private target = 0;
  private fadeMs = 0;
  /** Position in the loop, as a fraction, so it survives a change of sample rate. */
  private phase = 0;
  private readonly source: AudioFrameLike;
  private readonly byRate = new Map<number, Int16Array>();

  constructor(clip: AudioFrameLike, volume: number) {
    if (clip.samplesPerChannel === 0) throw new RangeError('a background clip needs at least one sample');
    this.source = toMono(clip);
    this.volumeValue = checkVolume(volume);
  }

  get volume(): number {
    return this.volumeValue;
  }

  set volume(volume: number) {
    this.volumeValue = checkVolume(volume);
  }

  /** True when the clip is fading out (or out already). */
  get fadingOut(): boolean {
    return this.target === 0;
  }

  /** True while the clip adds anything (or is fading towards it). */
  get audible(): boolean {
    return this.volumeValue > 0 && (this.level > 0 || this.target > 0);
  }

  /** Current envelope level, 0..1 (before the volume). */
  get envelope(): number {
    return this.level;
  }

  /** Fades in (to 1) or out (to 0) over `fadeMs`; 0 jumps. */
  fadeTo(target: 0 | 1, fadeMs: number): void {
    this.target = target;
    this.fadeMs = Math.max(0, fadeMs);
  }

  /** Stops at once, without a fade. */
  cut(): void {
    this.level = 0;
    this.target = 0;
  }

  /** Starts the loop from its beginning (a thinking sound restarts each time it is called for). */
  rewind(): void {
    this.phase = 0;
  }

  /**
   * Adds `frames` sample frames of the clip into `mix` (interleaved, `channels` wide, int16 units)
   * at `sampleRate`, advancing the loop and the envelope.
   */
  mixInto(mix: Float32Array, channels: number, sampleRate: number, frames: number): void {
    if (!this.audible) return;
    const samples = this.at(sampleRate);
    const length = samples.length;
    const step = this.fadeMs > 0 ? 1000 / (this.fadeMs * sampleRate) : 1;
    let index = Math.floor(this.phase * length) % length;
    let level = this.level;
    const target = this.target;
    const volume = this.volumeValue;
    for (let frame = 0, base = 0; frame < frames; frame++, base += channels) {
      if (level < target) level = Math.min(target, level + step);
      else if (level > target) level = Math.max(target, level - step);
      const value = samples[index]! * level * volume;
      for (let channel = 0; channel < channels; channel++) mix[base + channel]! += value;
      index = index + 1 === length ? 0 : index + 1;
    }
    this.level = level;
    this.phase = index / length;
  }

  /** The clip at a rate, resampled once per rate and kept (sessions use one or two rates). */
  private at(sampleRate: number): Int16Array {
    let samples = this.byRate.get(sampleRate);
    if (!samples) {
      const frame = resampleFrame(this.source, sampleRate);
      samples = frame.samplesPerChannel > 0 ? frame.data : new Int16Array(1);
      this.byRate.set(sampleRate, samples);
    }
    return samples;
  }
}

function checkVolume(volume: number): number {
  if (!Number.isFinite(volume) || volume < 0 || volume > 1) {
    throw new RangeError(`volume must be between 0 and 1, got ${volume}`);
  }
  return volume;
}
