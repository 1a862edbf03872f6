import { describe, expect, it } from 'vitest';
import { InvalidAudioError } from '../errors.js';
import { AudioFrame } from './audio-frame.js';
import {
  concatenateFrames,
  FrameChunker,
  float32ToInt16,
  frameDurationMs,
  frameFromBytes,
  frameToBytes,
  int16FromBytes,
  int16ToBytes,
  int16ToFloat32,
  peakAmplitude,
  peakDbfs,
  rmsDbfs,
  samplesPerChannelForDuration,
  silenceLike,
  splitFrame,
  toMono,
} from './frame-utils.js';
import { toneFrame } from './signal-test-helpers.js';

/** A frame whose samples count up from `start`, so any reordering or loss is visible. */
function rampFrame(sampleRate: number, samplesPerChannel: number, channels = 1, start = 0): AudioFrame {
  const data = new Int16Array(samplesPerChannel * channels);
  for (let index = 0; index < data.length; index++) data[index] = (start + index) % 32768;
  return new AudioFrame(data, sampleRate, channels, samplesPerChannel);
}

function allSamples(frames: readonly AudioFrame[]): number[] {
  const samples: number[] = [];
  for (const frame of frames) for (const sample of frame.data) samples.push(sample);
  return samples;
}

describe('concatenateFrames', () => {
  it('joins frames in order', () => {
    const joined = concatenateFrames([rampFrame(16000, 3, 2, 0), rampFrame(16000, 2, 2, 6)]);
    expect(joined.samplesPerChannel).toBe(5);
    expect(joined.channels).toBe(2);
    expect(Array.from(joined.data)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('rejects mixed formats with a message naming both', () => {
    const mixed = [rampFrame(16000, 3), rampFrame(16000, 3), rampFrame(48000, 3)];
    expect(() => concatenateFrames(mixed)).toThrow(InvalidAudioError);
    expect(() => concatenateFrames(mixed)).toThrow(
      /frame 0 is 16000 Hz x 1 channel\(s\), frame 2 is 48000 Hz/,
    );
    expect(() => concatenateFrames([rampFrame(16000, 3), rampFrame(16000, 3, 2)])).toThrow(/2 channel/);
    expect(() => concatenateFrames([])).toThrow(InvalidAudioError);
  });
});

describe('splitFrame', () => {
  it('cuts exact durations and keeps the remainder last, as views', () => {
    const frame = rampFrame(16000, 500, 2);
    const pieces = splitFrame(frame, 10);
    expect(pieces.map((piece) => piece.samplesPerChannel)).toEqual([160, 160, 160, 20]);
    expect(allSamples(pieces)).toEqual(Array.from(frame.data));
    expect(pieces[1]!.data.buffer).toBe(frame.data.buffer);
  });

  it('rejects durations that are not a whole number of samples', () => {
    expect(() => splitFrame(rampFrame(22050, 1000), 10)).toThrow(/220.5 samples/);
    expect(splitFrame(rampFrame(22050, 1000), 20)[0]!.samplesPerChannel).toBe(441);
    expect(() => splitFrame(rampFrame(16000, 10), 0)).toThrow(InvalidAudioError);
  });
});

describe('FrameChunker', () => {
  const oddSizes = [1, 7, 333, 2, 480, 1000, 159, 161, 5];

  it.each([
    [10, 16000, 1],
    [20, 16000, 1],
    [30, 16000, 1],
    [10, 48000, 2],
    [20, 44100, 1],
    [30, 8000, 2],
  ])('re-frames odd-sized input into %i ms frames at %i Hz x %i', (durationMs, sampleRate, channels) => {
    const chunker = new FrameChunker({ sampleRate, channels, durationMs });
    const expectedSamples = (sampleRate * durationMs) / 1000;
    expect(chunker.samplesPerChannel).toBe(expectedSamples);
    const outputs: AudioFrame[] = [];
    let pushed = 0;
    const inputs: number[] = [];
    for (const size of oddSizes) {
      const frame = rampFrame(sampleRate, size, channels, pushed * channels);
      for (const sample of frame.data) inputs.push(sample);
      pushed += size;
      for (const output of chunker.push(frame)) outputs.push(output);
    }
    for (const output of outputs) {
      expect(output.samplesPerChannel).toBe(expectedSamples);
      expect(frameDurationMs(output)).toBe(durationMs);
    }
    expect(outputs.length).toBe(Math.floor(pushed / expectedSamples));
    expect(chunker.pendingSamplesPerChannel).toBe(pushed % expectedSamples);
    const tail = chunker.flush();
    expect(tail.length).toBe(pushed % expectedSamples === 0 ? 0 : 1);
    expect(allSamples([...outputs, ...tail])).toEqual(inputs);
    expect(chunker.pendingSamplesPerChannel).toBe(0);
  });

  it('copies held-back samples, so callers may reuse their buffers', () => {
    const chunker = new FrameChunker({ sampleRate: 16000, samplesPerChannel: 4 });
    const reused = new AudioFrame(new Int16Array([1, 2, 3]), 16000, 1, 3);
    expect(chunker.push(reused)).toEqual([]);
    reused.data.set([4, 5, 6]);
    const [first] = chunker.push(reused);
    expect(Array.from(first!.data)).toEqual([1, 2, 3, 4]);
  });

  it('pads the last frame with silence when asked', () => {
    const chunker = new FrameChunker({ sampleRate: 16000, durationMs: 10 });
    chunker.push(rampFrame(16000, 170, 1, 1));
    const [padded] = chunker.flush({ padWithSilence: true });
    expect(padded!.samplesPerChannel).toBe(160);
    expect(padded!.data[9]).toBe(170);
    expect(padded!.data[10]).toBe(0);
    expect(chunker.flush()).toEqual([]);
  });

  it('reset drops pending samples', () => {
    const chunker = new FrameChunker({ sampleRate: 16000, durationMs: 10 });
    chunker.push(rampFrame(16000, 100));
    chunker.reset();
    expect(chunker.pendingSamplesPerChannel).toBe(0);
    expect(chunker.push(rampFrame(16000, 160))[0]!.data[0]).toBe(0);
  });

  it('validates its options and the frames pushed', () => {
    expect(() => new FrameChunker({ sampleRate: 16000 })).toThrow(/exactly one of/);
    expect(() => new FrameChunker({ sampleRate: 16000, durationMs: 10, samplesPerChannel: 160 })).toThrow(
      InvalidAudioError,
    );
    expect(() => new FrameChunker({ sampleRate: 22050, durationMs: 10 })).toThrow(/220.5/);
    expect(() => new FrameChunker({ sampleRate: 0, durationMs: 10 })).toThrow(/sampleRate/);
    const chunker = new FrameChunker({ sampleRate: 16000, durationMs: 20 });
    expect(chunker.durationMs).toBe(20);
    expect(() => chunker.push(rampFrame(48000, 10))).toThrow(
      /expects 16000 Hz x 1 channel\(s\), got 48000 Hz/,
    );
  });
});

describe('FrameChunker.pushBytes', () => {
  /** Little-endian bytes of a ramp, as a network body or a pipe would carry them. */
  function rampBytes(samples: number, channels = 1): { values: number[]; bytes: Uint8Array } {
    const frame = rampFrame(24000, samples, channels, 11);
    return { values: Array.from(frame.data), bytes: frameToBytes(frame).slice() };
  }

  it.each([1, 2])('cuts a byte stream split at any byte into fixed frames (%i channel(s))', (channels) => {
    const { values, bytes } = rampBytes(480 * 3 + 101, channels);
    for (const sizes of [[1], [7, 1, 333, 2048, 5], [3], [bytes.length]]) {
      const chunker = new FrameChunker({ sampleRate: 24000, channels, durationMs: 20 });
      const frames: AudioFrame[] = [];
      for (let at = 0, k = 0; at < bytes.length; k++) {
        const size = sizes[k % sizes.length]!;
        frames.push(...chunker.pushBytes(bytes.subarray(at, at + size)));
        at += size;
      }
      const tail = chunker.flush();
      expect(frames.map((f) => f.samplesPerChannel)).toEqual([480, 480, 480]);
      expect(tail.map((f) => f.samplesPerChannel)).toEqual([101]);
      expect(tail[0]!.channels).toBe(channels);
      expect(allSamples([...frames, ...tail])).toEqual(values);
    }
  });

  it('drops an incomplete sample frame at flush, and never keeps a view on the pushed bytes', () => {
    const chunker = new FrameChunker({ sampleRate: 24000, channels: 2, samplesPerChannel: 2 });
    const reused = new Uint8Array([1, 0, 2, 0, 3]); // one stereo sample frame and a byte of the next
    expect(chunker.pushBytes(reused)).toEqual([]);
    reused.set([0, 4, 0, 9, 9]); // the caller reuses its buffer: its first 3 bytes complete sample 3, 4
    const [frame] = chunker.pushBytes(reused.subarray(0, 3));
    reused.fill(0xff);
    expect(Array.from(frame!.data)).toEqual([1, 2, 3, 4]);
    // A whole sample frame (5, 6) is pending; the byte after it is half of a sample and cannot be played.
    expect(chunker.pushBytes(Uint8Array.of(5, 0, 6, 0, 7))).toEqual([]);
    expect(allSamples(chunker.flush())).toEqual([5, 6]);
    expect(chunker.flush()).toEqual([]);
  });

  it('reset drops a split sample as well as pending samples', () => {
    const chunker = new FrameChunker({ sampleRate: 16000, samplesPerChannel: 2 });
    chunker.pushBytes(Uint8Array.of(1, 0, 7));
    chunker.reset();
    expect(allSamples(chunker.pushBytes(Uint8Array.of(2, 0, 3, 0)))).toEqual([2, 3]);
  });
});

describe('silenceLike and toMono', () => {
  it('makes silence of the same format and length', () => {
    const silence = silenceLike(rampFrame(24000, 240, 2));
    expect([silence.sampleRate, silence.channels, silence.samplesPerChannel]).toEqual([24000, 2, 240]);
    expect(peakAmplitude(silence)).toBe(0);
  });

  it('averages channels, rounding symmetrically', () => {
    const stereo = new AudioFrame(
      new Int16Array([100, 200, -3, -4, 32767, 32767, -32768, -32767]),
      8000,
      2,
      4,
    );
    const mono = toMono(stereo);
    expect(mono.channels).toBe(1);
    expect(Array.from(mono.data)).toEqual([150, -4, 32767, -32768]);
    const alreadyMono = rampFrame(8000, 4);
    expect(toMono(alreadyMono).data).toBe(alreadyMono.data);
  });
});

describe('PCM conversions', () => {
  it('round-trips every Int16 value through Float32', () => {
    const all = new Int16Array(65536);
    for (let index = 0; index < all.length; index++) all[index] = index - 32768;
    const floats = int16ToFloat32(all);
    expect(floats[0]).toBe(-1);
    expect(Math.max(...floats.subarray(65530))).toBeLessThan(1);
    expect(Array.from(float32ToInt16(floats)).every((value, index) => value === all[index])).toBe(true);
  });

  it('clamps, rounds symmetrically and zeroes NaN', () => {
    const floats = new Float32Array([1, -1, 2, -2, 0.5 / 32768, -0.5 / 32768, Number.NaN, 0.25]);
    expect(Array.from(float32ToInt16(floats))).toEqual([32767, -32768, 32767, -32768, 1, -1, 0, 8192]);
  });

  it('writes into a caller buffer and checks its length', () => {
    const output = new Float32Array(2);
    expect(int16ToFloat32(new Int16Array([16384, -16384]), output)).toBe(output);
    expect(Array.from(output)).toEqual([0.5, -0.5]);
    expect(() => int16ToFloat32(new Int16Array(3), output)).toThrow(InvalidAudioError);
    expect(() => float32ToInt16(new Float32Array(3), new Int16Array(2))).toThrow(InvalidAudioError);
  });

  it('reads little-endian bytes without copying when aligned', () => {
    const bytes = Buffer.from([0x01, 0x00, 0xff, 0xff, 0x00, 0x80, 0xff, 0x7f]);
    const samples = int16FromBytes(bytes);
    expect(Array.from(samples)).toEqual([1, -1, -32768, 32767]);
    if (bytes.byteOffset % 2 === 0) expect(samples.buffer).toBe(bytes.buffer);
    expect(int16ToBytes(samples).buffer).toBe(samples.buffer);
    expect(Array.from(int16ToBytes(samples))).toEqual(Array.from(bytes));
  });

  it('copies unaligned bytes correctly', () => {
    const backing = new Uint8Array([0, 0x02, 0x01, 0xfe, 0xff]);
    const unaligned = backing.subarray(1);
    const samples = int16FromBytes(unaligned);
    expect(Array.from(samples)).toEqual([0x0102, -2]);
    expect(samples.buffer).not.toBe(backing.buffer);
  });

  it('builds frames from bytes and rejects partial samples', () => {
    const frame = frameFromBytes(new Uint8Array([1, 0, 2, 0, 3, 0, 4, 0]), 16000, 2);
    expect([frame.samplesPerChannel, frame.channels, frame.sampleRate]).toEqual([2, 2, 16000]);
    expect(Array.from(frameToBytes(frame))).toEqual([1, 0, 2, 0, 3, 0, 4, 0]);
    expect(() => frameFromBytes(new Uint8Array(3), 16000)).toThrow(InvalidAudioError);
    expect(() => frameFromBytes(new Uint8Array(6), 16000, 2)).toThrow(/6 bytes is not a whole number/);
    expect(() => frameFromBytes(new Uint8Array(4), 0)).toThrow(/sampleRate/);
  });
});

describe('durations and levels', () => {
  it('computes durations and sample counts', () => {
    expect(frameDurationMs(rampFrame(48000, 480))).toBe(10);
    expect(frameDurationMs(rampFrame(44100, 441, 2))).toBe(10);
    expect(samplesPerChannelForDuration(16000, 32)).toBe(512);
    expect(samplesPerChannelForDuration(44100, 10)).toBe(441);
    expect(() => samplesPerChannelForDuration(16000, Number.NaN)).toThrow(InvalidAudioError);
  });

  it('measures RMS and peak in dBFS', () => {
    const square = new AudioFrame(new Int16Array([16384, -16384, 16384, -16384]), 16000, 1, 4);
    expect(rmsDbfs(square)).toBeCloseTo(-6.02, 2);
    expect(peakDbfs(square)).toBeCloseTo(-6.02, 2);
    const sine = toneFrame({ sampleRate: 16000, durationMs: 100, frequenciesHz: [1000], amplitude: 32767 });
    expect(rmsDbfs(sine)).toBeCloseTo(-3.01, 1);
    expect(peakAmplitude(sine)).toBe(32767);
    expect(rmsDbfs(AudioFrame.silence(16000, 1, 10))).toBe(Number.NEGATIVE_INFINITY);
    expect(rmsDbfs(AudioFrame.silence(16000, 1, 0))).toBe(Number.NEGATIVE_INFINITY);
    expect(peakDbfs(AudioFrame.silence(16000, 1, 10))).toBe(Number.NEGATIVE_INFINITY);
  });
});
