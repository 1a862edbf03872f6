// Signal generators and measurements shared by the audio tests. Not exported from the package root.
import { AudioFrame, type AudioFrameLike } from './audio-frame.js';

export interface ToneSpec {
  sampleRate: number;
  durationMs: number;
  /** One frequency per channel; the channel count is the length of this list. */
  frequenciesHz: readonly number[];
  /** Peak amplitude in Int16 units. */
  amplitude: number;
}

export function toneFrame(spec: ToneSpec): AudioFrame {
  const channels = spec.frequenciesHz.length;
  const samples = Math.round((spec.sampleRate * spec.durationMs) / 1000);
  const data = new Int16Array(samples * channels);
  for (let index = 0; index < samples; index++) {
    for (let channel = 0; channel < channels; channel++) {
      const angle = (2 * Math.PI * spec.frequenciesHz[channel]! * index) / spec.sampleRate;
      data[index * channels + channel] = Math.round(spec.amplitude * Math.sin(angle));
    }
  }
  return new AudioFrame(data, spec.sampleRate, channels, samples);
}

export interface MeasureWindow {
  channel?: number;
  /** Skip this much at both ends, where a tone switched on from silence has broadband transients. */
  marginMs?: number;
}

/**
 * Amplitude (peak, Int16 units) of the component at exactly `frequencyHz`: a Hann-windowed Goertzel
 * evaluated at the exact frequency, so no bin rounding or scalloping loss.
 */
export function toneAmplitude(
  frame: AudioFrameLike,
  frequencyHz: number,
  window: MeasureWindow = {},
): number {
  const { start, end } = measuredRange(frame, window);
  const channel = window.channel ?? 0;
  const length = end - start;
  const coefficient = 2 * Math.cos((2 * Math.PI * frequencyHz) / frame.sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  let windowSum = 0;
  for (let index = 0; index < length; index++) {
    const hann = 0.5 - 0.5 * Math.cos((2 * Math.PI * index) / (length - 1));
    windowSum += hann;
    const sample = frame.data[(start + index) * frame.channels + channel]! * hann;
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power =
    previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return (2 * Math.sqrt(Math.max(power, 0))) / windowSum;
}

/** RMS (Int16 units) of one channel over the measured range. */
export function channelRms(frame: AudioFrameLike, window: MeasureWindow = {}): number {
  const { start, end } = measuredRange(frame, window);
  const channel = window.channel ?? 0;
  let sumOfSquares = 0;
  for (let index = start; index < end; index++) {
    const sample = frame.data[index * frame.channels + channel]!;
    sumOfSquares += sample * sample;
  }
  return Math.sqrt(sumOfSquares / (end - start));
}

/**
 * Signal-to-error ratio in dB of one channel against the ideal sine sin(2 pi f t) * amplitude sampled
 * at the frame's rate. Checks frequency, amplitude and timing at once: the resampler has no delay.
 */
export function snrAgainstSineDb(
  frame: AudioFrameLike,
  frequencyHz: number,
  amplitude: number,
  window: MeasureWindow = {},
): number {
  const { start, end } = measuredRange(frame, window);
  const channel = window.channel ?? 0;
  let signalEnergy = 0;
  let errorEnergy = 0;
  for (let index = start; index < end; index++) {
    const ideal = amplitude * Math.sin((2 * Math.PI * frequencyHz * index) / frame.sampleRate);
    const error = frame.data[index * frame.channels + channel]! - ideal;
    signalEnergy += ideal * ideal;
    errorEnergy += error * error;
  }
  return 10 * Math.log10(signalEnergy / errorEnergy);
}

export function decibels(ratio: number): number {
  return 20 * Math.log10(ratio);
}

/** Index of the first differing sample, or -1; cheaper to report than a typed-array diff. */
export function firstDifference(a: Int16Array, b: Int16Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return index;
  return -1;
}

function measuredRange(frame: AudioFrameLike, window: MeasureWindow): { start: number; end: number } {
  const margin = Math.round(((window.marginMs ?? 0) * frame.sampleRate) / 1000);
  return { start: margin, end: frame.samplesPerChannel - margin };
}
