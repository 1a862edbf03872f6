import { InvalidAudioError } from '../errors.js';
import { AudioFrame, type AudioFrameLike } from './audio-frame.js';
import { concatenateFrames } from './frame-utils.js';
import { roundToInt16 } from './pcm-math.js';

export type ResamplerQuality = 'low' | 'medium' | 'high';

export interface AudioResamplerOptions {
  /** Interleaved channels per frame. Defaults to 1. */
  channels?: number;
  /**
   * Filter length versus fidelity. Every level starts its stopband at the lower Nyquist frequency, so
   * none aliases; they differ in stopband depth and in how close to Nyquist the passband reaches:
   * - `low`: 60 dB stopband, flat to ~63% of the lower Nyquist, shortest filter.
   * - `medium` (default): 80 dB, flat to ~73% (5.8 kHz when one side is 16 kHz).
   * - `high`: 100 dB, flat to ~87%, about three times the work of `medium`.
   */
  quality?: ResamplerQuality;
}

/** Highest rate accepted; beyond it filter lengths for large ratios stop being reasonable. */
export const MAX_RESAMPLER_SAMPLE_RATE = 768_000;

interface FilterDesign {
  /** Sinc zero crossings on each side of the centre tap: the filter length. */
  zeroCrossings: number;
  stopbandAttenuationDb: number;
}

const FILTER_DESIGNS: Record<ResamplerQuality, FilterDesign> = {
  low: { zeroCrossings: 8, stopbandAttenuationDb: 60 },
  medium: { zeroCrossings: 16, stopbandAttenuationDb: 80 },
  high: { zeroCrossings: 48, stopbandAttenuationDb: 100 },
};

// Above this many phases an exact table gets large (e.g. 44100 -> 47999 Hz has 47999 phases), so the
// table is sampled at a fixed resolution and neighbouring rows are interpolated linearly. The error of
// that interpolation is far below Int16 resolution at this density.
const MAX_EXACT_PHASES = 1024;
const INTERPOLATED_PHASES = 512;

interface PolyphaseFilter {
  /** `rows` rows of `tapsPerPhase` coefficients; row r is the filter for a fractional delay of r/phases. */
  readonly taps: Float32Array;
  readonly tapsPerPhase: number;
  /** Taps on each side of the output instant; also the input look-ahead a push must wait for. */
  readonly halfTaps: number;
  /** True when rows sample the phase range at INTERPOLATED_PHASES instead of one row per phase. */
  readonly interpolated: boolean;
}

/**
 * Streaming sample-rate converter for Int16 PCM: a rational (up/down) polyphase windowed-sinc filter.
 * Output sample k sits exactly at input time k * inputRate / outputRate, so the output is aligned with
 * the input and has no group delay; in exchange `push` holds back a few ms of input (half the filter
 * length) until the samples after it arrive, and `flush` releases them.
 *
 * Filter state is kept across pushes, so the chunking of the input never changes the output: pushing a
 * signal in any pieces yields exactly the samples `resampleFrame` gives for the whole signal.
 */
export class AudioResampler {
  readonly inputRate: number;
  readonly outputRate: number;
  readonly channels: number;
  readonly quality: ResamplerQuality;

  /** Output samples are produced at input positions k * down / up (rates divided by their gcd). */
  private readonly up: number;
  private readonly down: number;
  private readonly filter: PolyphaseFilter | null;
  /** Interleaved input history; index 0 is the first tap of the next output sample. */
  private history: Float32Array;
  private historyLength = 0;
  /** Where, in `history`, the first tap of the output being computed lies. */
  private readBase = 0;
  /** Fractional position of the next output between two input samples, in units of 1/up. */
  private phase = 0;

  constructor(inputRate: number, outputRate: number, options: AudioResamplerOptions = {}) {
    assertSampleRate(inputRate, 'inputRate');
    assertSampleRate(outputRate, 'outputRate');
    const channels = options.channels ?? 1;
    if (!Number.isInteger(channels) || channels <= 0) {
      throw new InvalidAudioError(`channels must be a positive integer, got ${channels}`);
    }
    const quality = options.quality ?? 'medium';
    if (!Object.hasOwn(FILTER_DESIGNS, quality)) {
      throw new InvalidAudioError(`quality must be 'low', 'medium' or 'high', got ${String(quality)}`);
    }
    this.inputRate = inputRate;
    this.outputRate = outputRate;
    this.channels = channels;
    this.quality = quality;
    const divisor = greatestCommonDivisor(inputRate, outputRate);
    this.up = outputRate / divisor;
    this.down = inputRate / divisor;
    this.filter = inputRate === outputRate ? null : polyphaseFilterFor(this.up, this.down, quality);
    this.history = new Float32Array(this.filter ? 4 * this.filter.tapsPerPhase * channels : 0);
    this.reset();
  }

  /**
   * Resamples the next piece of the stream. Returns zero or one frame: input shorter than the filter's
   * look-ahead is held until more arrives. With equal rates the frame is passed through untouched.
   */
  push(frame: AudioFrameLike): AudioFrame[] {
    if (frame.sampleRate !== this.inputRate || frame.channels !== this.channels) {
      throw new InvalidAudioError(
        `AudioResampler expects ${this.inputRate} Hz x ${this.channels} channel(s), got ` +
          `${frame.sampleRate} Hz x ${frame.channels} channel(s)`,
      );
    }
    if (frame.samplesPerChannel === 0) return [];
    const filter = this.filter;
    if (filter === null) return [AudioFrame.from(frame)];
    this.appendInput(frame.data, frame.samplesPerChannel);
    const output = this.produce(this.historyLength - filter.tapsPerPhase);
    this.discardConsumedInput();
    return output === null ? [] : [output];
  }

  /**
   * Ends the stream: returns the held-back tail (as if silence followed the input) and resets, so the
   * resampler can start an unrelated stream. Total output over the stream is ceil(inputSamples * ratio).
   */
  flush(): AudioFrame[] {
    const filter = this.filter;
    if (filter === null) return [];
    const inputEnd = this.historyLength;
    this.appendSilence(filter.halfTaps);
    // The last output is the one whose centre still falls before the end of the real input.
    const output = this.produce(inputEnd - filter.halfTaps);
    this.reset();
    return output === null ? [] : [output];
  }

  /** Drops held-back input without producing output, e.g. when playback is interrupted. */
  reset(): void {
    this.readBase = 0;
    this.phase = 0;
    // The history starts as the zeros that precede the stream, so the first output needs no special case.
    this.historyLength = this.filter ? this.filter.halfTaps - 1 : 0;
    this.history.fill(0, 0, this.historyLength * this.channels);
  }

  private appendInput(samples: Int16Array, samplesPerChannel: number): void {
    const start = this.historyLength * this.channels;
    this.reserve(samplesPerChannel);
    const history = this.history;
    const count = samplesPerChannel * this.channels;
    for (let index = 0; index < count; index++) history[start + index] = samples[index]!;
    this.historyLength += samplesPerChannel;
  }

  private appendSilence(samplesPerChannel: number): void {
    this.reserve(samplesPerChannel);
    const start = this.historyLength * this.channels;
    this.history.fill(0, start, start + samplesPerChannel * this.channels);
    this.historyLength += samplesPerChannel;
  }

  private reserve(extraSamplesPerChannel: number): void {
    const needed = (this.historyLength + extraSamplesPerChannel) * this.channels;
    if (needed <= this.history.length) return;
    const grown = new Float32Array(Math.max(needed, 2 * this.history.length));
    grown.set(this.history.subarray(0, this.historyLength * this.channels));
    this.history = grown;
  }

  private discardConsumedInput(): void {
    if (this.readBase === 0) return;
    const channels = this.channels;
    this.history.copyWithin(0, this.readBase * channels, this.historyLength * channels);
    this.historyLength -= this.readBase;
    this.readBase = 0;
  }

  /** Computes every output whose first tap lies at or before `lastReadBase` in the history. */
  private produce(lastReadBase: number): AudioFrame | null {
    if (lastReadBase < this.readBase) return null;
    // Output s reads from readBase + floor((phase + s * down) / up); solve for the last s that fits.
    const count = Math.ceil(((lastReadBase - this.readBase + 1) * this.up - this.phase) / this.down);
    if (count <= 0) return null;
    const output = new Int16Array(count * this.channels);
    if (this.filter!.interpolated) this.convolveInterpolated(output, count);
    else this.convolveExact(output, count);
    return new AudioFrame(output, this.outputRate, this.channels, count);
  }

  private convolveExact(output: Int16Array, count: number): void {
    const { taps, tapsPerPhase } = this.filter!;
    const history = this.history;
    const channels = this.channels;
    const up = this.up;
    const wholeStep = Math.floor(this.down / up);
    const fractionStep = this.down % up;
    let readBase = this.readBase;
    let phase = this.phase;
    let written = 0;
    for (let produced = 0; produced < count; produced++) {
      const row = phase * tapsPerPhase;
      const base = readBase * channels;
      for (let channel = 0; channel < channels; channel++) {
        let sum = 0;
        for (let tap = 0, at = base + channel; tap < tapsPerPhase; tap++, at += channels) {
          sum += history[at]! * taps[row + tap]!;
        }
        output[written++] = roundToInt16(sum);
      }
      readBase += wholeStep;
      phase += fractionStep;
      if (phase >= up) {
        phase -= up;
        readBase++;
      }
    }
    this.readBase = readBase;
    this.phase = phase;
  }

  private convolveInterpolated(output: Int16Array, count: number): void {
    const { taps, tapsPerPhase } = this.filter!;
    const history = this.history;
    const channels = this.channels;
    const up = this.up;
    const wholeStep = Math.floor(this.down / up);
    const fractionStep = this.down % up;
    const rowsPerPhase = INTERPOLATED_PHASES / up;
    let readBase = this.readBase;
    let phase = this.phase;
    let written = 0;
    for (let produced = 0; produced < count; produced++) {
      const position = phase * rowsPerPhase;
      const lowerRow = Math.floor(position);
      const weight = position - lowerRow;
      const lower = lowerRow * tapsPerPhase;
      const upper = lower + tapsPerPhase;
      const base = readBase * channels;
      for (let channel = 0; channel < channels; channel++) {
        let sum = 0;
        for (let tap = 0, at = base + channel; tap < tapsPerPhase; tap++, at += channels) {
          const coefficient = taps[lower + tap]! + weight * (taps[upper + tap]! - taps[lower + tap]!);
          sum += history[at]! * coefficient;
        }
        output[written++] = roundToInt16(sum);
      }
      readBase += wholeStep;
      phase += fractionStep;
      if (phase >= up) {
        phase -= up;
        readBase++;
      }
    }
    this.readBase = readBase;
    this.phase = phase;
  }
}

/**
 * Resamples one complete frame (the whole signal, zeros assumed before and after). Returns the frame
 * itself when the rates already match.
 */
export function resampleFrame(
  frame: AudioFrameLike,
  outputRate: number,
  options: { quality?: ResamplerQuality } = {},
): AudioFrame {
  assertSampleRate(outputRate, 'outputRate');
  if (frame.sampleRate === outputRate) return AudioFrame.from(frame);
  const resampler = new AudioResampler(frame.sampleRate, outputRate, {
    channels: frame.channels,
    quality: options.quality ?? 'medium',
  });
  const pieces = resampler.push(frame);
  for (const piece of resampler.flush()) pieces.push(piece);
  if (pieces.length === 0) return AudioFrame.silence(outputRate, frame.channels, 0);
  return concatenateFrames(pieces);
}

// Tables depend only on the reduced ratio and the quality, and sessions create resamplers per track,
// so designs are shared. Tables are read-only after construction.
const FILTER_CACHE_LIMIT = 16;
const filterCache = new Map<string, PolyphaseFilter>();

function polyphaseFilterFor(up: number, down: number, quality: ResamplerQuality): PolyphaseFilter {
  const key = `${up}/${down}/${quality}`;
  const cached = filterCache.get(key);
  if (cached !== undefined) return cached;
  const filter = designPolyphaseFilter(up, down, FILTER_DESIGNS[quality]);
  if (filterCache.size >= FILTER_CACHE_LIMIT) {
    const oldest = filterCache.keys().next().value;
    if (oldest !== undefined) filterCache.delete(oldest);
  }
  filterCache.set(key, filter);
  return filter;
}

function designPolyphaseFilter(up: number, down: number, design: FilterDesign): PolyphaseFilter {
  const { zeroCrossings, stopbandAttenuationDb } = design;
  const beta = kaiserBeta(stopbandAttenuationDb);
  // Kaiser's length formula gives the transition width this length and attenuation can achieve; the
  // cutoff is set below the lower Nyquist by half of it, so the stopband begins right at Nyquist and
  // nothing above it folds back when downsampling.
  const cutoffOfNyquist = 1 / (1 + (stopbandAttenuationDb - 7.95) / (28.72 * zeroCrossings));
  // Cutoff as a fraction of the input Nyquist; the sinc's zero crossings are 1/cutoff input samples apart.
  const cutoff = cutoffOfNyquist * Math.min(1, up / down);
  const halfWidth = zeroCrossings / cutoff;
  // One more than the window's half width, so every input sample inside the window is a tap at any phase.
  const halfTaps = Math.floor(halfWidth) + 1;
  const tapsPerPhase = 2 * halfTaps;
  const interpolated = up > MAX_EXACT_PHASES;
  const phases = interpolated ? INTERPOLATED_PHASES : up;
  // Interpolated tables carry the row for a delay of exactly one sample too, so row + 1 always exists.
  const rows = interpolated ? phases + 1 : phases;
  const taps = new Float32Array(rows * tapsPerPhase);
  const row = new Float64Array(tapsPerPhase);
  const windowScale = 1 / besselI0(beta);
  for (let rowIndex = 0; rowIndex < rows; rowIndex++) {
    const fraction = rowIndex / phases;
    let sum = 0;
    for (let tap = 0; tap < tapsPerPhase; tap++) {
      // Distance, in input samples, from this tap's input sample back to the output instant.
      const distance = halfTaps - 1 - tap + fraction;
      const relative = distance / halfWidth;
      let value = 0;
      if (relative > -1 && relative < 1) {
        value = sinc(cutoff * distance) * besselI0(beta * Math.sqrt(1 - relative * relative)) * windowScale;
      }
      row[tap] = value;
      sum += value;
    }
    // Unit DC gain on every phase: otherwise slightly different phase gains modulate a steady signal
    // at the output rate's beat pattern.
    const offset = rowIndex * tapsPerPhase;
    for (let tap = 0; tap < tapsPerPhase; tap++) taps[offset + tap] = row[tap]! / sum;
  }
  return { taps, tapsPerPhase, halfTaps, interpolated };
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const angle = Math.PI * x;
  return Math.sin(angle) / angle;
}

/** Kaiser's empirical beta for a stopband attenuation above 50 dB (all our designs). */
function kaiserBeta(attenuationDb: number): number {
  return 0.1102 * (attenuationDb - 8.7);
}

/** Modified Bessel function of the first kind, order zero, by its power series. */
function besselI0(x: number): number {
  const quarterSquare = (x * x) / 4;
  let term = 1;
  let sum = 1;
  for (let k = 1; k < 200; k++) {
    term *= quarterSquare / (k * k);
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return sum;
}

function greatestCommonDivisor(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) {
    const remainder = x % y;
    x = y;
    y = remainder;
  }
  return x;
}

function assertSampleRate(rate: number, name: string): void {
  if (!Number.isInteger(rate) || rate <= 0 || rate > MAX_RESAMPLER_SAMPLE_RATE) {
    throw new InvalidAudioError(
      `${name} must be an integer sample rate between 1 and ${MAX_RESAMPLER_SAMPLE_RATE} Hz, got ${rate}`,
    );
  }
}
