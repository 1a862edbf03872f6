import { InvalidAudioError } from '../errors.js';
import { AudioFrame, type AudioFrameLike } from './audio-frame.js';
import { INT16_SCALE, roundToInt16 } from './pcm-math.js';

// Every platform Node ships on is little-endian, but the byte helpers must stay correct elsewhere.
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Duration of a frame in milliseconds. */
export function frameDurationMs(frame: AudioFrameLike): number {
  return (frame.samplesPerChannel * 1000) / frame.sampleRate;
}

/**
 * How many samples per channel `durationMs` of audio holds at `sampleRate`. Throws when that is not a
 * whole number (10 ms at 22050 Hz is 220.5 samples), because rounding silently would make fixed-size
 * windows drift against the timestamps derived from them.
 */
export function samplesPerChannelForDuration(sampleRate: number, durationMs: number): number {
  assertPositiveInteger(sampleRate, 'sampleRate');
  if (!Number.isFinite(durationMs) || durationMs <= 0) {
    throw new InvalidAudioError(`durationMs must be a positive number, got ${durationMs}`);
  }
  const exact = (sampleRate * durationMs) / 1000;
  const whole = Math.round(exact);
  if (whole < 1 || Math.abs(exact - whole) > 1e-6) {
    throw new InvalidAudioError(
      `${durationMs} ms at ${sampleRate} Hz is ${exact} samples; choose a duration that is a whole number of samples`,
    );
  }
  return whole;
}

/**
 * Joins frames of one format into a single frame. A single frame is returned as is (no copy).
 * Throws InvalidAudioError for an empty list or when sample rates or channel counts differ.
 */
export function concatenateFrames(frames: readonly AudioFrameLike[]): AudioFrame {
  const first = frames[0];
  if (first === undefined) {
    throw new InvalidAudioError('concatenateFrames needs at least one frame to know the sample rate');
  }
  if (frames.length === 1) return AudioFrame.from(first);
  let totalSamplesPerChannel = 0;
  for (let index = 0; index < frames.length; index++) {
    const frame = frames[index]!;
    if (frame.sampleRate !== first.sampleRate || frame.channels !== first.channels) {
      throw new InvalidAudioError(
        `cannot concatenate frames of different formats: frame 0 is ${describeFormat(first)}, ` +
          `frame ${index} is ${describeFormat(frame)}; resample or remix first`,
      );
    }
    totalSamplesPerChannel += frame.samplesPerChannel;
  }
  const data = new Int16Array(totalSamplesPerChannel * first.channels);
  let offset = 0;
  for (const frame of frames) {
    data.set(frame.data, offset);
    offset += frame.data.length;
  }
  return new AudioFrame(data, first.sampleRate, first.channels, totalSamplesPerChannel);
}

/**
 * Cuts a frame into consecutive frames of `durationMs`; the last one holds the remainder and may be
 * shorter. The pieces are views on the input's memory (no copy).
 */
export function splitFrame(frame: AudioFrameLike, durationMs: number): AudioFrame[] {
  const chunkSamples = samplesPerChannelForDuration(frame.sampleRate, durationMs);
  const pieces: AudioFrame[] = [];
  for (let start = 0; start < frame.samplesPerChannel; start += chunkSamples) {
    const length = Math.min(chunkSamples, frame.samplesPerChannel - start);
    pieces.push(sliceFrame(frame, start, length));
  }
  return pieces;
}

export interface FrameChunkerOptions {
  sampleRate: number;
  /** Defaults to 1. */
  channels?: number;
  /** Duration of every output frame; must be a whole number of samples at `sampleRate`. */
  durationMs?: number;
  /** Alternative to `durationMs` for consumers that count samples (e.g. 512-sample VAD windows). */
  samplesPerChannel?: number;
}

/**
 * Re-frames a stream: push frames of any length, receive frames of exactly one size. VADs and
 * transports that need 10/20/30 ms frames put one in front of their input. Raw little-endian Int16
 * bytes (a network body, a pipe) go in through `pushBytes`, split at any byte.
 *
 * Output frames that lie wholly inside one pushed frame are views on its memory (no copy); samples
 * that straddle pushes are copied into a fresh buffer per output frame.
 */
export class FrameChunker {
  readonly sampleRate: number;
  readonly channels: number;
  readonly samplesPerChannel: number;
  private pending: Int16Array | null = null;
  private pendingSamples = 0;
  /** Bytes of a sample frame split across `pushBytes` calls. */
  private partialBytes: Uint8Array = new Uint8Array(0);

  constructor(options: FrameChunkerOptions) {
    assertPositiveInteger(options.sampleRate, 'sampleRate');
    this.sampleRate = options.sampleRate;
    this.channels = options.channels ?? 1;
    assertPositiveInteger(this.channels, 'channels');
    const { durationMs, samplesPerChannel } = options;
    if ((durationMs === undefined) === (samplesPerChannel === undefined)) {
      throw new InvalidAudioError('FrameChunker needs exactly one of durationMs or samplesPerChannel');
    }
    if (samplesPerChannel !== undefined) {
      assertPositiveInteger(samplesPerChannel, 'samplesPerChannel');
      this.samplesPerChannel = samplesPerChannel;
    } else {
      this.samplesPerChannel = samplesPerChannelForDuration(this.sampleRate, durationMs!);
    }
  }

  /** Duration of each output frame. */
  get durationMs(): number {
    return (this.samplesPerChannel * 1000) / this.sampleRate;
  }

  /** Samples per channel held back until the next push completes a frame. */
  get pendingSamplesPerChannel(): number {
    return this.pendingSamples;
  }

  push(frame: AudioFrameLike): AudioFrame[] {
    if (frame.sampleRate !== this.sampleRate || frame.channels !== this.channels) {
      throw new InvalidAudioError(
        `FrameChunker expects ${this.sampleRate} Hz x ${this.channels} channel(s), got ${describeFormat(frame)}`,
      );
    }
    const channels = this.channels;
    const chunk = this.samplesPerChannel;
    const available = frame.samplesPerChannel;
    const output: AudioFrame[] = [];
    let consumed = 0;

    if (this.pendingSamples > 0) {
      const take = Math.min(chunk - this.pendingSamples, available);
      this.pending!.set(frame.data.subarray(0, take * channels), this.pendingSamples * channels);
      this.pendingSamples += take;
      consumed = take;
      if (this.pendingSamples === chunk) output.push(this.takePending());
    }
    while (available - consumed >= chunk) {
      output.push(sliceFrame(frame, consumed, chunk));
      consumed += chunk;
    }
    if (consumed < available) {
      // Copied, not viewed: the caller may reuse the pushed buffer before the frame completes.
      const remainder = available - consumed;
      this.pending = new Int16Array(chunk * channels);
      this.pending.set(frame.data.subarray(consumed * channels, available * channels));
      this.pendingSamples = remainder;
    }
    return output;
  }

  /**
   * Pushes interleaved little-endian Int16 PCM bytes. Chunks may end anywhere, inside a sample or
   * between the channels of one: those bytes wait for the next chunk. The output never shares memory
   * with `bytes`, so the caller may reuse its buffer.
   */
  pushBytes(bytes: Uint8Array): AudioFrame[] {
    const sampleFrameBytes = 2 * this.channels;
    const held = this.partialBytes;
    const total = held.length + bytes.length;
    const usable = total - (total % sampleFrameBytes);
    if (usable === 0) {
      this.partialBytes = new Uint8Array(total);
      this.partialBytes.set(held);
      this.partialBytes.set(bytes, held.length);
      return [];
    }
    const whole = new Uint8Array(usable);
    whole.set(held);
    whole.set(bytes.subarray(0, usable - held.length), held.length);
    this.partialBytes = bytes.slice(usable - held.length);
    return this.push(frameFromBytes(whole, this.sampleRate, this.channels));
  }

  /**
   * Emits what is left as a final frame: shorter than the others, or padded with silence to full
   * size when `padWithSilence` is set (for consumers that only accept one frame size). Bytes of an
   * incomplete sample frame from `pushBytes` cannot be played and are dropped.
   */
  flush(options: { padWithSilence?: boolean } = {}): AudioFrame[] {
    this.partialBytes = new Uint8Array(0);
    if (this.pendingSamples === 0) return [];
    if (options.padWithSilence) return [this.takePending()];
    const samples = this.pendingSamples;
    const data = this.pending!.subarray(0, samples * this.channels);
    this.reset();
    return [new AudioFrame(data, this.sampleRate, this.channels, samples)];
  }

  /** Drops buffered samples, e.g. when the stream is interrupted. */
  reset(): void {
    this.pending = null;
    this.pendingSamples = 0;
    this.partialBytes = new Uint8Array(0);
  }

  private takePending(): AudioFrame {
    const frame = new AudioFrame(this.pending!, this.sampleRate, this.channels, this.samplesPerChannel);
    this.pending = null;
    this.pendingSamples = 0;
    return frame;
  }
}

/** Silence with the same rate, channel count and length as `frame`. */
export function silenceLike(frame: AudioFrameLike): AudioFrame {
  return AudioFrame.silence(frame.sampleRate, frame.channels, frame.samplesPerChannel);
}

/** Averages all channels into one. A mono frame is returned as is. */
export function toMono(frame: AudioFrameLike): AudioFrame {
  const channels = frame.channels;
  if (channels === 1) return AudioFrame.from(frame);
  const samples = frame.samplesPerChannel;
  const input = frame.data;
  const mono = new Int16Array(samples);
  for (let index = 0, base = 0; index < samples; index++, base += channels) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++) sum += input[base + channel]!;
    mono[index] = roundToInt16(sum / channels);
  }
  return new AudioFrame(mono, frame.sampleRate, 1, samples);
}

/**
 * Int16 PCM to floats in [-1, 1). Writes into `output` when given (it must have the same length), so
 * hot paths can reuse one buffer.
 */
export function int16ToFloat32(input: Int16Array, output?: Float32Array): Float32Array {
  const result = output ?? new Float32Array(input.length);
  assertSameLength(input.length, result.length);
  for (let index = 0; index < input.length; index++) result[index] = input[index]! / INT16_SCALE;
  return result;
}

/**
 * Floats to Int16 PCM, scaled by 32768 (the inverse of `int16ToFloat32`, so a round trip is lossless),
 * rounded half away from zero and clamped: +1.0 becomes 32767, -1.0 becomes -32768, NaN becomes 0.
 */
export function float32ToInt16(input: Float32Array, output?: Int16Array): Int16Array {
  const result = output ?? new Int16Array(input.length);
  assertSameLength(input.length, result.length);
  for (let index = 0; index < input.length; index++)
    result[index] = roundToInt16(input[index]! * INT16_SCALE);
  return result;
}

/**
 * Reads little-endian Int16 PCM bytes (a Buffer is a Uint8Array). Returns a view on the same memory
 * when the bytes are 2-byte aligned, and a copy otherwise.
 */
export function int16FromBytes(bytes: Uint8Array): Int16Array {
  if (bytes.byteLength % 2 !== 0) {
    throw new InvalidAudioError(`Int16 PCM needs an even number of bytes, got ${bytes.byteLength}`);
  }
  const length = bytes.byteLength / 2;
  if (HOST_IS_LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) {
    return new Int16Array(bytes.buffer, bytes.byteOffset, length);
  }
  const samples = new Int16Array(length);
  if (HOST_IS_LITTLE_ENDIAN) {
    new Uint8Array(samples.buffer).set(bytes);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let index = 0; index < length; index++) samples[index] = view.getInt16(index * 2, true);
  }
  return samples;
}

/** Int16 samples as little-endian bytes: a view on the same memory (a copy on big-endian hosts). */
export function int16ToBytes(samples: Int16Array): Uint8Array {
  if (HOST_IS_LITTLE_ENDIAN) return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  const bytes = new Uint8Array(samples.byteLength);
  const view = new DataView(bytes.buffer);
  for (let index = 0; index < samples.length; index++) view.setInt16(index * 2, samples[index]!, true);
  return bytes;
}

/** Wraps interleaved little-endian Int16 PCM bytes as a frame, without copying when aligned. */
export function frameFromBytes(bytes: Uint8Array, sampleRate: number, channels = 1): AudioFrame {
  assertPositiveInteger(channels, 'channels');
  const bytesPerSample = 2 * channels;
  if (bytes.byteLength % bytesPerSample !== 0) {
    throw new InvalidAudioError(
      `${bytes.byteLength} bytes is not a whole number of ${channels}-channel Int16 samples (${bytesPerSample} bytes each)`,
    );
  }
  return new AudioFrame(int16FromBytes(bytes), sampleRate, channels, bytes.byteLength / bytesPerSample);
}

/** The frame's samples as little-endian bytes, without copying on little-endian hosts. */
export function frameToBytes(frame: AudioFrameLike): Uint8Array {
  return int16ToBytes(frame.data);
}

/** Largest absolute sample value over all channels, 0..32768. */
export function peakAmplitude(frame: AudioFrameLike): number {
  const data = frame.data;
  let peak = 0;
  for (let index = 0; index < data.length; index++) {
    const magnitude = Math.abs(data[index]!);
    if (magnitude > peak) peak = magnitude;
  }
  return peak;
}

/** Peak level in dB relative to full scale (32768). Silence is -Infinity. */
export function peakDbfs(frame: AudioFrameLike): number {
  return 20 * Math.log10(peakAmplitude(frame) / INT16_SCALE);
}

/**
 * RMS level over all channels in dB relative to full scale (32768): a full-scale square wave is 0 dBFS,
 * a full-scale sine about -3 dBFS. Silence and empty frames are -Infinity.
 */
export function rmsDbfs(frame: AudioFrameLike): number {
  const data = frame.data;
  if (data.length === 0) return Number.NEGATIVE_INFINITY;
  let sumOfSquares = 0;
  for (let index = 0; index < data.length; index++) sumOfSquares += data[index]! * data[index]!;
  return 10 * Math.log10(sumOfSquares / data.length / (INT16_SCALE * INT16_SCALE));
}

function sliceFrame(frame: AudioFrameLike, startSample: number, samples: number): AudioFrame {
  const channels = frame.channels;
  const data = frame.data.subarray(startSample * channels, (startSample + samples) * channels);
  return new AudioFrame(data, frame.sampleRate, channels, samples);
}

function describeFormat(frame: AudioFrameLike): string {
  return `${frame.sampleRate} Hz x ${frame.channels} channel(s)`;
}

function assertPositiveInteger(value: number, name: string): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new InvalidAudioError(`${name} must be a positive integer, got ${value}`);
  }
}

function assertSameLength(inputLength: number, outputLength: number): void {
  if (inputLength !== outputLength) {
    throw new InvalidAudioError(`output holds ${outputLength} samples but the input has ${inputLength}`);
  }
}
