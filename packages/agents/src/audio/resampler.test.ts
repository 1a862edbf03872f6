import { describe, expect, it } from 'vitest';
import { InvalidAudioError } from '../errors.js';
import { AudioFrame } from './audio-frame.js';
import { concatenateFrames } from './frame-utils.js';
import { AudioResampler, type ResamplerQuality, resampleFrame } from './resampler.js';
import {
  channelRms,
  decibels,
  firstDifference,
  snrAgainstSineDb,
  toneAmplitude,
  toneFrame,
} from './signal-test-helpers.js';

const SPEECH_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000];
const TONE_RATES = [8000, 16000, 24000, 44100, 48000];
const QUALITIES: ResamplerQuality[] = ['low', 'medium', 'high'];
const AMPLITUDE = 16384; // -6 dBFS: room for passband ripple without clipping

function ratePairs(rates: readonly number[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (const inputRate of rates) {
    for (const outputRate of rates) if (inputRate !== outputRate) pairs.push([inputRate, outputRate]);
  }
  return pairs;
}

/** Deterministic pseudo-random integers, so a failing chunking can be replayed. */
function chunkSizes(seed: number, max: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return 1 + (state % max);
  };
}

/** A deterministic, speech-like broadband signal: several tones plus pseudo-random noise. */
function testSignal(sampleRate: number, samples: number, channels = 1): AudioFrame {
  const data = new Int16Array(samples * channels);
  const next = chunkSizes(sampleRate + channels, 4001);
  for (let index = 0; index < samples; index++) {
    const time = index / sampleRate;
    for (let channel = 0; channel < channels; channel++) {
      const tones =
        6000 * Math.sin(2 * Math.PI * (220 + 37 * channel) * time) +
        3000 * Math.sin(2 * Math.PI * 2900 * time);
      data[index * channels + channel] = Math.round(tones + (next() - 2001) * 2);
    }
  }
  return new AudioFrame(data, sampleRate, channels, samples);
}

function streamInChunks(resampler: AudioResampler, input: AudioFrame, nextSize: () => number): AudioFrame[] {
  const output: AudioFrame[] = [];
  const channels = input.channels;
  for (let start = 0; start < input.samplesPerChannel; ) {
    const size = Math.min(nextSize(), input.samplesPerChannel - start);
    const piece = new AudioFrame(
      input.data.slice(start * channels, (start + size) * channels),
      input.sampleRate,
      channels,
      size,
    );
    for (const frame of resampler.push(piece)) output.push(frame);
    start += size;
  }
  for (const frame of resampler.flush()) output.push(frame);
  return output;
}

function totalSamples(frames: readonly AudioFrame[]): number {
  let total = 0;
  for (const frame of frames) total += frame.samplesPerChannel;
  return total;
}

describe('AudioResampler output length', () => {
  const chunkings: Array<[string, () => () => number]> = [
    ['1 sample', () => () => 1],
    ['7 samples', () => () => 7],
    ['160 samples', () => () => 160],
    ['441 samples', () => () => 441],
    ['997 samples', () => () => 997],
    ['random 1..600', () => chunkSizes(42, 600)],
  ];

  it.each(ratePairs(SPEECH_RATES))(
    '%i Hz -> %i Hz: ceil(in * out / in) samples for any chunking',
    (from, to) => {
      for (const inputSamples of [0, 1, 2, 13, Math.round(from * 0.1) + 3]) {
        const input = testSignal(from, inputSamples);
        for (const [, makeSizes] of chunkings) {
          const output = streamInChunks(new AudioResampler(from, to), input, makeSizes());
          const produced = totalSamples(output);
          expect(produced).toBe(Math.ceil((inputSamples * to) / from));
          expect(Math.abs(produced - Math.round((inputSamples * to) / from))).toBeLessThanOrEqual(1);
          for (const frame of output) expect(frame.sampleRate).toBe(to);
        }
      }
    },
  );

  it('holds back no more than the filter look-ahead while streaming', () => {
    const resampler = new AudioResampler(16000, 48000);
    const tenMs = testSignal(16000, 160);
    let produced = 0;
    for (let index = 0; index < 100; index++) produced += totalSamples(resampler.push(tenMs));
    // One second in; everything but a few ms of look-ahead must be out already.
    expect(produced).toBeGreaterThan(48000 - 48 * 5);
    expect(produced + totalSamples(resampler.flush())).toBe(48000);
  });
});

describe('AudioResampler streaming matches one-shot', () => {
  it.each(ratePairs(SPEECH_RATES))('%i Hz -> %i Hz: chunked output is sample-identical', (from, to) => {
    const input = testSignal(from, Math.round(from * 0.25));
    const whole = resampleFrame(input, to);
    for (const seed of [1, 2]) {
      const streamed = concatenateFrames(
        streamInChunks(new AudioResampler(from, to), input, chunkSizes(seed, 500)),
      );
      expect(firstDifference(streamed.data, whole.data)).toBe(-1);
    }
  });

  it.each(QUALITIES)('quality %s: 10 ms chunks of a tone have no clicks at chunk boundaries', (quality) => {
    const input = toneFrame({
      sampleRate: 44100,
      durationMs: 500,
      frequenciesHz: [440],
      amplitude: AMPLITUDE,
    });
    const output = concatenateFrames(
      streamInChunks(new AudioResampler(44100, 16000, { quality }), input, () => 441),
    );
    // A click shows up as a step larger than the steepest slope of the sine itself.
    const maxSlope = (2 * Math.PI * 440 * AMPLITUDE) / 16000;
    // Past the onset, where switching the tone on from silence rings like any band-limited step would.
    let largestStep = 0;
    for (let index = 800; index < output.samplesPerChannel - 800; index++) {
      largestStep = Math.max(largestStep, Math.abs(output.data[index]! - output.data[index - 1]!));
    }
    expect(largestStep).toBeLessThanOrEqual(maxSlope * 1.02 + 2);
  });

  it('starts a fresh stream after flush', () => {
    const resampler = new AudioResampler(48000, 16000);
    const input = testSignal(48000, 4800);
    const first = concatenateFrames([...resampler.push(input), ...resampler.flush()]);
    const second = concatenateFrames([...resampler.push(input), ...resampler.flush()]);
    expect(firstDifference(first.data, second.data)).toBe(-1);
  });

  it('reset drops held-back input', () => {
    const resampler = new AudioResampler(16000, 24000);
    resampler.push(testSignal(16000, 1000));
    resampler.reset();
    const input = testSignal(16000, 320);
    const afterReset = concatenateFrames([...resampler.push(input), ...resampler.flush()]);
    expect(firstDifference(afterReset.data, resampleFrame(input, 24000).data)).toBe(-1);
  });
});

describe('AudioResampler spectral behaviour', () => {
  for (const quality of QUALITIES) {
    it.each(ratePairs(TONE_RATES))(
      `quality ${quality}: %i Hz -> %i Hz keeps 440 Hz and 1 kHz tones (frequency, level, timing)`,
      (from, to) => {
        for (const frequency of [440, 1000]) {
          const input = toneFrame({
            sampleRate: from,
            durationMs: 400,
            frequenciesHz: [frequency],
            amplitude: AMPLITUDE,
          });
          const output = resampleFrame(input, to, { quality });
          const window = { marginMs: 50 };
          const levelChangeDb = decibels(toneAmplitude(output, frequency, window) / AMPLITUDE);
          expect(Math.abs(levelChangeDb)).toBeLessThan(0.1);
          // Comparing against the ideal sine at the output rate also proves there is no delay or drift.
          expect(snrAgainstSineDb(output, frequency, AMPLITUDE, window)).toBeGreaterThan(
            quality === 'low' ? 45 : 60,
          );
        }
      },
    );
  }

  it.each(QUALITIES)(
    'quality %s: a 10 kHz tone downsampled 48 kHz -> 16 kHz is rejected by >= 40 dB',
    (quality) => {
      const input = toneFrame({
        sampleRate: 48000,
        durationMs: 500,
        frequenciesHz: [10000],
        amplitude: AMPLITUDE,
      });
      const output = resampleFrame(input, 16000, { quality });
      const window = { marginMs: 50 };
      const inputRms = channelRms(input, window);
      // 10 kHz would fold to 16 - 10 = 6 kHz: check that bin and the total energy left.
      expect(decibels(toneAmplitude(output, 6000, window) / AMPLITUDE)).toBeLessThan(-40);
      expect(decibels(channelRms(output, window) / inputRms)).toBeLessThan(quality === 'low' ? -40 : -60);
    },
  );

  it.each([
    [44100, 16000, 9000],
    [44100, 8000, 5000],
    [24000, 16000, 9500],
    [48000, 22050, 13000],
  ])('%i Hz -> %i Hz rejects a %i Hz tone above the output Nyquist', (from, to, frequency) => {
    const input = toneFrame({
      sampleRate: from,
      durationMs: 400,
      frequenciesHz: [frequency],
      amplitude: AMPLITUDE,
    });
    const output = resampleFrame(input, to);
    const window = { marginMs: 50 };
    expect(decibels(channelRms(output, window) / channelRms(input, window))).toBeLessThan(-60);
  });

  it('upsampling leaves no images above the input Nyquist', () => {
    const input = toneFrame({
      sampleRate: 16000,
      durationMs: 400,
      frequenciesHz: [3000],
      amplitude: AMPLITUDE,
    });
    const output = resampleFrame(input, 48000);
    const window = { marginMs: 50 };
    // Zero-stuffing images of 3 kHz at 16 kHz would sit at 13 kHz and 19 kHz.
    expect(decibels(toneAmplitude(output, 13000, window) / AMPLITUDE)).toBeLessThan(-70);
    expect(decibels(toneAmplitude(output, 19000, window) / AMPLITUDE)).toBeLessThan(-70);
  });

  it('handles ratios with many phases (44100 -> 47999 Hz) through the interpolated table', () => {
    const input = toneFrame({
      sampleRate: 44100,
      durationMs: 400,
      frequenciesHz: [1000],
      amplitude: AMPLITUDE,
    });
    const output = resampleFrame(input, 47999);
    expect(output.samplesPerChannel).toBe(Math.ceil((input.samplesPerChannel * 47999) / 44100));
    expect(snrAgainstSineDb(output, 1000, AMPLITUDE, { marginMs: 50 })).toBeGreaterThan(60);
    const streamed = concatenateFrames(
      streamInChunks(new AudioResampler(44100, 47999), input, chunkSizes(3, 700)),
    );
    expect(firstDifference(streamed.data, output.data)).toBe(-1);
  });
});

describe('AudioResampler channels', () => {
  it('resamples interleaved stereo without crosstalk', () => {
    const input = toneFrame({
      sampleRate: 48000,
      durationMs: 400,
      frequenciesHz: [440, 1000],
      amplitude: AMPLITUDE,
    });
    const output = resampleFrame(input, 16000);
    expect(output.channels).toBe(2);
    expect(output.samplesPerChannel).toBe(6400);
    const left = { channel: 0, marginMs: 50 };
    const right = { channel: 1, marginMs: 50 };
    expect(snrAgainstSineDb(output, 440, AMPLITUDE, left)).toBeGreaterThan(60);
    expect(snrAgainstSineDb(output, 1000, AMPLITUDE, right)).toBeGreaterThan(60);
    expect(decibels(toneAmplitude(output, 1000, left) / AMPLITUDE)).toBeLessThan(-80);
    expect(decibels(toneAmplitude(output, 440, right) / AMPLITUDE)).toBeLessThan(-80);
  });

  it('treats each channel exactly like a mono stream', () => {
    const stereo = testSignal(22050, 3000, 2);
    const output = resampleFrame(stereo, 16000);
    for (const channel of [0, 1]) {
      const mono = new Int16Array(stereo.samplesPerChannel);
      for (let index = 0; index < mono.length; index++) mono[index] = stereo.data[index * 2 + channel]!;
      const monoOutput = resampleFrame(new AudioFrame(mono, 22050, 1, mono.length), 16000);
      const channelOutput = new Int16Array(output.samplesPerChannel);
      for (let index = 0; index < channelOutput.length; index++)
        channelOutput[index] = output.data[index * 2 + channel]!;
      expect(firstDifference(channelOutput, monoOutput.data)).toBe(-1);
    }
  });
});

describe('AudioResampler pass-through and validation', () => {
  it('passes frames through untouched when the rates are equal', () => {
    const input = testSignal(16000, 160);
    const resampler = new AudioResampler(16000, 16000);
    const [output] = resampler.push(input);
    expect(output!.data).toBe(input.data);
    expect(resampler.flush()).toEqual([]);
    expect(resampleFrame(input, 16000).data).toBe(input.data);
  });

  it('returns nothing for empty frames', () => {
    const resampler = new AudioResampler(16000, 48000);
    expect(resampler.push(AudioFrame.silence(16000, 1, 0))).toEqual([]);
    expect(resampler.flush()).toEqual([]);
    expect(resampleFrame(AudioFrame.silence(16000, 1, 0), 8000).samplesPerChannel).toBe(0);
  });

  it.each([0, -16000, 16000.5, Number.NaN, Number.POSITIVE_INFINITY, 10_000_000])(
    'rejects the sample rate %s with a message naming it',
    (rate) => {
      expect(() => new AudioResampler(rate, 16000)).toThrow(InvalidAudioError);
      expect(() => new AudioResampler(rate, 16000)).toThrow(new RegExp(`inputRate .*got ${rate}`));
      expect(() => new AudioResampler(16000, rate)).toThrow(new RegExp(`outputRate .*got ${rate}`));
      expect(() => resampleFrame(testSignal(16000, 10), rate)).toThrow(InvalidAudioError);
    },
  );

  it('rejects bad channel counts and qualities', () => {
    expect(() => new AudioResampler(16000, 8000, { channels: 0 })).toThrow(InvalidAudioError);
    expect(() => new AudioResampler(16000, 8000, { channels: 1.5 })).toThrow(/channels/);
    expect(() => new AudioResampler(16000, 8000, { quality: 'ultra' as ResamplerQuality })).toThrow(/ultra/);
  });

  it('rejects frames whose format differs from the one it was built for', () => {
    const resampler = new AudioResampler(16000, 8000);
    expect(() => resampler.push(testSignal(48000, 480))).toThrow(InvalidAudioError);
    expect(() => resampler.push(testSignal(16000, 160, 2))).toThrow(/expects 16000 Hz x 1 channel/);
  });
});
