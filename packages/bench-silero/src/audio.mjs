// Bench audio: espeak-ng speech between silences at 16 kHz (falls back to a synthetic signal when
// espeak-ng or sox is missing). Inference cost does not depend on content, the speech state machine does.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWav } from '@voxwire/agents/provider-utils';

export const RATE = 16000;

const LINES = [
  'hello my name is voxwire and I am a voice agent',
  'what would you like to do today',
  'the quick brown fox jumps over the lazy dog',
  'please hold while I look that up for you',
];

function speech() {
  const dir = join(tmpdir(), 'voxwire-bench-silero');
  mkdirSync(dir, { recursive: true });
  const parts = [];
  LINES.forEach((line, i) => {
    const wav = join(dir, `line-${i}.wav`);
    if (!existsSync(wav)) {
      const raw = join(dir, `line-${i}.raw.wav`);
      execFileSync('espeak-ng', ['-v', 'en-us', '-w', raw, line]);
      execFileSync('sox', ['-D', raw, '-r', String(RATE), '-c', '1', '-b', '16', wav]);
    }
    parts.push(new Int16Array(RATE * (0.6 + 0.3 * i)), decodeWav(readFileSync(wav)).data);
  });
  parts.push(new Int16Array(RATE));
  return parts;
}

function synthetic() {
  const parts = [];
  let seed = 1;
  for (let i = 0; i < 4; i++) {
    parts.push(new Int16Array(RATE));
    const burst = new Int16Array(RATE * 2);
    for (let k = 0; k < burst.length; k++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      burst[k] = Math.round(
        Math.sin((2 * Math.PI * 180 * k) / RATE) * 6000 + ((seed / 2 ** 32) * 2 - 1) * 1500,
      );
    }
    parts.push(burst);
  }
  return parts;
}

/** About 10-12 s of 16 kHz mono audio, and what produced it. */
export function benchAudio() {
  let parts;
  let source = 'espeak-ng';
  try {
    parts = speech();
  } catch {
    parts = synthetic();
    source = 'synthetic (espeak-ng/sox missing)';
  }
  const length = parts.reduce((n, p) => n + p.length, 0);
  const samples = new Int16Array(length);
  let at = 0;
  for (const p of parts) {
    samples.set(p, at);
    at += p.length;
  }
  return { samples, source };
}

/** `seconds` of audio from the clip, looped, starting at `offset` samples so streams differ. */
export function loopAudio(clip, seconds, offset) {
  const out = new Int16Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++) out[i] = clip[(offset + i) % clip.length];
  return out;
}
