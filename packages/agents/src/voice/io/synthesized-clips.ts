import { AudioFrame } from '../../audio/audio-frame.js';
import { roundToInt16 } from '../../audio/pcm-math.js';

/**
 * The two clips the core ships, synthesized on demand rather than stored: a few lines of arithmetic
 * replace binary assets, and there is no licence to track. Both are mono, loop without a click (every
 * tone has a whole number of cycles in the loop, the noise is cross-faded over the seam), and are
 * deterministic (a seeded generator), so tests can compare them sample by sample.
 */
export interface SynthesizedClipOptions {
  /** Default 24000. */
  sampleRate?: number;
}

const DEFAULT_RATE = 24_000;

/** A soft room hum: mains-like tones under low-passed noise, breathing once per loop. About -30 dBFS. */
export function synthesizedHum(options: SynthesizedClipOptions = {}): AudioFrame {
  const rate = options.sampleRate ?? DEFAULT_RATE;
  const loopMs = 3000;
  const length = Math.round((rate * loopMs) / 1000);
  const seamLength = Math.round(rate * 0.25);
  const random = seededRandom(19);
  // Brown-ish noise: white noise through a one-pole low-pass, one seam longer than the loop.
  const noise = new Float64Array(length + seamLength);
  let state = 0;
  const smoothing = Math.exp((-2 * Math.PI * 300) / rate);
  for (let i = 0; i < noise.length; i++) {
    state = smoothing * state + (1 - smoothing) * (random() * 2 - 1);
    noise[i] = state;
  }
  // The tail past the loop is blended into its head so the wrap is continuous.
  for (let i = 0; i < seamLength; i++) {
    const w = i / seamLength;
    noise[i] = noise[i]! * w + noise[length + i]! * (1 - w);
  }
  const seconds = loopMs / 1000;
  const samples = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    const t = i / rate;
    // Whole cycles per loop (frequencies multiple of 1 / seconds) keep the tones seamless.
    const tones =
      0.012 * Math.sin(2 * Math.PI * 100 * t) +
      0.006 * Math.sin(2 * Math.PI * 150 * t + 1) +
      0.003 * Math.sin(2 * Math.PI * 200 * t + 2);
    const breathing = 0.85 + 0.15 * Math.sin((2 * Math.PI * t) / seconds);
    samples[i] = roundToInt16((tones + 0.25 * noise[i]!) * breathing * 32767);
  }
  return new AudioFrame(samples, rate, 1, length);
}

/**
 * A gentle "thinking" pattern: irregular soft key-like ticks (short decaying noise bursts), some in quick
 * runs, some after a pause, as someone typing a note. Peaks near -14 dBFS, silent between ticks.
 */
export function synthesizedTicks(options: SynthesizedClipOptions = {}): AudioFrame {
  const rate = options.sampleRate ?? DEFAULT_RATE;
  const loopMs = 2400;
  const length = Math.round((rate * loopMs) / 1000);
  const random = seededRandom(7);
  const samples = new Float64Array(length);
  const tickLength = Math.round(rate * 0.012);
  const decay = Math.exp(-1 / (rate * 0.0018));
  // The last tick ends well before the loop does, so the seam falls in silence.
  let atMs = 60;
  while (atMs < loopMs - 150) {
    const start = Math.round((atMs * rate) / 1000);
    const loudness = 0.12 + 0.08 * random();
    let envelope = loudness;
    let previous = 0;
    for (let i = 0; i < tickLength && start + i < length; i++) {
      const white = random() * 2 - 1;
      // A first difference takes the low end out: a click, not a thump.
      samples[start + i] = (white - previous) * 0.5 * envelope;
      previous = white;
      envelope *= decay;
    }
    atMs += random() < 0.2 ? 280 + random() * 220 : 90 + random() * 110;
  }
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) out[i] = roundToInt16(samples[i]! * 32767);
  return new AudioFrame(out, rate, 1, length);
}

/** mulberry32: small, fast, and the same everywhere. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
