/**
 * Real-speech fixtures made on the fly: espeak-ng utterances placed between stretches of silence at
 * known positions, converted to each test rate by sox. Nothing large is committed; the files are cached
 * in the OS temp directory by content hash.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWav, encodeWav } from '@voxwire/agents/provider-utils';

/** Mono 16-bit samples at a rate. */
export interface Pcm {
  samples: Int16Array;
  sampleRate: number;
}

export interface Segment {
  startMs: number;
  endMs: number;
}

export interface Fixture extends Pcm {
  /** Where speech really is (espeak's own leading and trailing silence trimmed). */
  segments: Segment[];
  durationMs: number;
}

export type Part = { silenceMs: number } | { say: string };

const BASE_RATE = 48000;

export function audioToolsAvailable(): boolean {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
    execFileSync('sox', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    // CI installs them (.ci/run): there a missing tool fails the suite instead of skipping it.
    if (process.env.CI) {
      throw new Error(
        'CI needs espeak-ng and sox for the real-speech tests: apt-get install -y espeak-ng sox',
      );
    }
    return false;
  }
}

function cacheDir(): string {
  const dir = join(tmpdir(), 'voxwire-silero-fixtures');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** Reads a mono WAV (what espeak-ng and sox write here). */
function readWav(path: string): Pcm {
  const frame = decodeWav(readFileSync(path));
  if (frame.channels !== 1) throw new Error(`${path}: ${frame.channels} channels, expected mono`);
  return { samples: frame.data, sampleRate: frame.sampleRate };
}

/** One utterance at 48 kHz with espeak's silence trimmed off both ends. */
function utterance(text: string): Int16Array {
  const dir = cacheDir();
  const key = hash(['say', text]);
  const wav = join(dir, `say-${key}.wav`);
  if (!existsSync(wav)) {
    const raw = join(dir, `say-${key}.raw.wav`);
    const tmp = join(dir, `say-${key}.${process.pid}.wav`);
    execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', raw, text]);
    // -D: no dither, so silence stays digital silence and onsets stay sharp.
    execFileSync('sox', ['-D', raw, '-r', String(BASE_RATE), '-c', '1', '-b', '16', tmp]);
    renameSync(tmp, wav);
  }
  const { samples } = readWav(wav);
  const threshold = 200;
  let first = 0;
  while (first < samples.length && Math.abs(samples[first] as number) < threshold) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last] as number) < threshold) last--;
  return samples.slice(first, last + 1);
}

/** Deterministic noise so a run is reproducible; `amplitude` is the peak in Int16 units. */
function addNoise(samples: Int16Array, amplitude: number, seed: number): void {
  let x = seed >>> 0 || 1;
  for (let i = 0; i < samples.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const noise = ((x / 0xffffffff) * 2 - 1) * amplitude;
    samples[i] = Math.max(-32768, Math.min(32767, Math.round((samples[i] as number) + noise)));
  }
}

/** Builds the timeline at 48 kHz, then converts it to `sampleRate` with sox. */
export function makeFixture(
  parts: Part[],
  sampleRate: number,
  options: { noiseAmplitude?: number } = {},
): Fixture {
  const pieces: Int16Array[] = [];
  const segments: Segment[] = [];
  let length = 0;
  for (const part of parts) {
    const piece =
      'say' in part ? utterance(part.say) : new Int16Array(Math.round((part.silenceMs * BASE_RATE) / 1000));
    if ('say' in part) {
      segments.push({
        startMs: (length * 1000) / BASE_RATE,
        endMs: ((length + piece.length) * 1000) / BASE_RATE,
      });
    }
    pieces.push(piece);
    length += piece.length;
  }
  const samples = new Int16Array(length);
  let at = 0;
  for (const piece of pieces) {
    samples.set(piece, at);
    at += piece.length;
  }
  if (options.noiseAmplitude) addNoise(samples, options.noiseAmplitude, 12345);
  const durationMs = (length * 1000) / BASE_RATE;
  if (sampleRate === BASE_RATE) return { samples, sampleRate, segments, durationMs };

  const dir = cacheDir();
  const key = hash([parts, options, sampleRate]);
  const out = join(dir, `fixture-${key}-${sampleRate}.wav`);
  if (!existsSync(out)) {
    const source = join(dir, `fixture-${key}-${process.pid}-src.wav`);
    const tmp = join(dir, `fixture-${key}-${process.pid}-${sampleRate}.wav`);
    writeFileSync(source, encodeWav(samples, { sampleRate: BASE_RATE }));
    execFileSync('sox', ['-D', source, '-r', String(sampleRate), '-c', '1', '-b', '16', tmp]);
    renameSync(tmp, out);
  }
  const converted = readWav(out);
  return { ...converted, segments, durationMs };
}
