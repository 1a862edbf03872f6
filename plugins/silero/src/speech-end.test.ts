import { describe, expect, it } from 'vitest';
import { lastVoicedSample } from './speech-end.js';

/** A 200 Hz tone of `amplitude` for `voiced` samples, then `tail` samples of `floor`-level noise. */
function voiceThen(voiced: number, tail: number, amplitude = 8000, floor = 0): Int16Array {
  const out = new Int16Array(voiced + tail);
  for (let i = 0; i < voiced; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 200 * i) / 16000));
  let seed = 7;
  for (let i = voiced; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    out[i] = Math.round(((seed / 2 ** 31) * 2 - 1) * floor);
  }
  return out;
}

const BLOCK = 64; // 4 ms at 16 kHz

describe('lastVoicedSample', () => {
  it('finds where the voice stopped inside the search span', () => {
    const samples = voiceThen(2000, 1000);
    // Silero would say 3000 (the end of its last confident window); the voice stopped at 2000.
    const end = lastVoicedSample(samples, 0, 3000 - 1024, 3000, BLOCK);
    expect(end).toBeGreaterThanOrEqual(2000);
    expect(end).toBeLessThanOrEqual(2000 + BLOCK);
  });

  it('keeps the end when the voice goes on to it', () => {
    const samples = voiceThen(3000, 0);
    expect(lastVoicedSample(samples, 0, 2000, 3000, BLOCK)).toBe(3000);
  });

  it('keeps the end on a line whose noise floor is near the voice', () => {
    const samples = voiceThen(2000, 1000, 3000, 1500);
    expect(lastVoicedSample(samples, 0, 2000, 3000, BLOCK)).toBe(3000);
  });

  it('reads a quiet tail above a low floor as voice (a soft consonant is not cut)', () => {
    const samples = voiceThen(2000, 1000, 8000, 40);
    // A fricative-like tail at -20 dB of the vowel, 30 ms long.
    for (let i = 2000; i < 2480; i++) samples[i] = i % 2 === 0 ? 800 : -800;
    const end = lastVoicedSample(samples, 0, 1976, 3000, BLOCK);
    expect(end).toBeGreaterThanOrEqual(2480);
    expect(end).toBeLessThanOrEqual(2480 + BLOCK);
  });

  it('gives up on a reference too quiet to read', () => {
    const samples = voiceThen(2000, 1000, 50);
    expect(lastVoicedSample(samples, 0, 2000, 3000, BLOCK)).toBe(3000);
  });

  it('moves the end back no further than the search span', () => {
    const samples = voiceThen(1000, 2000);
    expect(lastVoicedSample(samples, 0, 2000, 3000, BLOCK)).toBe(2000);
  });
});
