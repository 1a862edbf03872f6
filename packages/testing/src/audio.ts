import { AudioFrame } from '@voxwire/agents';

/**
 * The simulated microphone speaks in codes: user speech segment `i` is a square wave whose amplitude
 * encodes `i`, silence is zeros. The fake VAD measures energy and the fake STT decodes which utterance
 * it is hearing, so both react to the audio the session actually routes to them.
 */
export const SAMPLE_RATE = 16_000;
const AMPLITUDE_STEP = 100;
/** Highest segment index that fits in 16-bit samples. */
export const MAX_SEGMENT_CODE = Math.floor(32_000 / AMPLITUDE_STEP) - 2;
/** Peak amplitude above which a frame counts as voiced. */
export const VOICE_THRESHOLD = AMPLITUDE_STEP / 2;

const cache = new Map<string, AudioFrame>();

function samplesFor(durationMs: number, sampleRate: number): number {
  return Math.round((durationMs * sampleRate) / 1000);
}

/**
 * The last frame each kind of cached frame returned: a microphone asks for the same one fifty times a
 * second, and building the cache key costs more than the rest of the lookup.
 */
let lastSilent: { durationMs: number; sampleRate: number; frame: AudioFrame } | undefined;
let lastVoiced: { code: number; durationMs: number; sampleRate: number; frame: AudioFrame } | undefined;

/** A frame of zeros. Cached: the session never writes into frames, so one object can be shared. */
export function silentFrame(durationMs: number, sampleRate = SAMPLE_RATE): AudioFrame {
  const last = lastSilent;
  if (last && last.durationMs === durationMs && last.sampleRate === sampleRate) return last.frame;
  const key = `s:${durationMs}:${sampleRate}`;
  let frame = cache.get(key);
  if (!frame) {
    frame = AudioFrame.silence(sampleRate, 1, samplesFor(durationMs, sampleRate));
    cache.set(key, frame);
  }
  lastSilent = { durationMs, sampleRate, frame };
  return frame;
}

/** A voiced frame carrying `code` (the user speech segment index). */
export function voicedFrame(code: number, durationMs: number, sampleRate = SAMPLE_RATE): AudioFrame {
  if (!Number.isInteger(code) || code < 0 || code > MAX_SEGMENT_CODE) {
    throw new RangeError(`segment code must be an integer in 0..${MAX_SEGMENT_CODE}, got ${code}`);
  }
  const last = lastVoiced;
  if (last && last.code === code && last.durationMs === durationMs && last.sampleRate === sampleRate) {
    return last.frame;
  }
  const key = `v:${code}:${durationMs}:${sampleRate}`;
  let frame = cache.get(key);
  if (!frame) {
    const n = samplesFor(durationMs, sampleRate);
    const data = new Int16Array(n);
    const amplitude = (code + 1) * AMPLITUDE_STEP;
    for (let i = 0; i < n; i++) data[i] = i % 2 === 0 ? amplitude : -amplitude;
    frame = new AudioFrame(data, sampleRate, 1, n);
    cache.set(key, frame);
  }
  lastVoiced = { code, durationMs, sampleRate, frame };
  return frame;
}

/** Peak absolute sample value. */
export function peakOf(frame: { data: Int16Array }): number {
  const data = frame.data;
  let peak = 0;
  // The synthetic signals are constant-magnitude, so a sparse scan finds the peak; real audio fed to
  // the fakes is still judged on a fair sample of its values.
  const stride = data.length > 64 ? 7 : 1;
  for (let i = 0; i < data.length; i += stride) {
    const v = Math.abs(data[i]!);
    if (v > peak) peak = v;
  }
  return peak;
}

/** The segment code a frame carries, or undefined for silence. */
export function decodeSegment(frame: { data: Int16Array }): number | undefined {
  const peak = peakOf(frame);
  if (peak < VOICE_THRESHOLD) return undefined;
  return Math.max(0, Math.round(peak / AMPLITUDE_STEP) - 1);
}

/** Agent audio: a quieter constant tone, distinct from any user code. */
export function agentFrame(durationMs: number, sampleRate = SAMPLE_RATE): AudioFrame {
  const key = `a:${durationMs}:${sampleRate}`;
  let frame = cache.get(key);
  if (!frame) {
    const n = samplesFor(durationMs, sampleRate);
    const data = new Int16Array(n).fill(1000);
    frame = new AudioFrame(data, sampleRate, 1, n);
    cache.set(key, frame);
  }
  return frame;
}
