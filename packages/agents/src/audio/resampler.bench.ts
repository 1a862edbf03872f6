// Run with `npx vitest bench --run packages/agents/src/audio`. Each iteration converts one second of
// mono speech-rate audio in 20 ms pushes, so ops/sec is the real-time factor of one stream.
import { bench, describe } from 'vitest';
import { AudioFrame } from './audio-frame.js';
import { FrameChunker } from './frame-utils.js';
import { AudioResampler, type ResamplerQuality } from './resampler.js';
import { toneFrame } from './signal-test-helpers.js';

function twentyMsPieces(sampleRate: number): AudioFrame[] {
  const second = toneFrame({ sampleRate, durationMs: 1000, frequenciesHz: [440], amplitude: 8000 });
  const pieces: AudioFrame[] = [];
  const size = sampleRate / 50;
  for (let start = 0; start < second.samplesPerChannel; start += size) {
    pieces.push(new AudioFrame(second.data.subarray(start, start + size), sampleRate, 1, size));
  }
  return pieces;
}

const conversions: Array<[number, number]> = [
  [48000, 16000],
  [16000, 48000],
  [44100, 16000],
  [24000, 48000],
];
const qualities: ResamplerQuality[] = ['low', 'medium', 'high'];

for (const [inputRate, outputRate] of conversions) {
  describe(`resample 1 s ${inputRate} -> ${outputRate} Hz`, () => {
    const pieces = twentyMsPieces(inputRate);
    for (const quality of qualities) {
      const resampler = new AudioResampler(inputRate, outputRate, { quality });
      bench(quality, () => {
        for (const piece of pieces) resampler.push(piece);
        resampler.flush();
      });
    }
  });
}

describe('FrameChunker 1 s at 48 kHz into 10 ms frames', () => {
  const pieces = twentyMsPieces(48000).map(
    (piece) => new AudioFrame(piece.data.subarray(0, 333), 48000, 1, 333),
  );
  const chunker = new FrameChunker({ sampleRate: 48000, durationMs: 10 });
  bench('333-sample pushes', () => {
    for (const piece of pieces) chunker.push(piece);
    chunker.flush();
  });
});
