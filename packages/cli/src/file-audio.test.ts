import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav } from '@voxwire/agents/provider-utils';
import { CliError } from './errors.js';
import { RECORDING_RATE, readRecording, writeRecording } from './file-audio.js';

const dir = mkdtempSync(join(tmpdir(), 'voxwire-cli-wav-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function soxInstalled(): boolean {
  try {
    execFileSync('sox', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const sox = soxInstalled();
// CI installs sox (.ci/run): there a missing sox fails instead of skipping the interop test.
if (!sox && process.env.CI) throw new Error('CI needs sox for the WAV interop test: apt-get install -y sox');
if (!sox) console.warn('sox missing (apt-get install -y sox): WAV interop tests skipped');

describe('input and output WAV files', () => {
  it('writes the recording as a WAV file it reads back unchanged', () => {
    const path = join(dir, 'round-trip.wav');
    const samples = Int16Array.from({ length: 2400 }, (_, i) => Math.round(Math.sin(i / 7) * 12_000));
    writeRecording(path, samples);
    const frame = readRecording(path);
    expect(frame.sampleRate).toBe(RECORDING_RATE);
    expect(frame.channels).toBe(1);
    expect([...frame.data]).toEqual([...samples]);
  });

  it('says which file is not a WAV and how to convert it', () => {
    const path = join(dir, 'song.mp3');
    writeFileSync(path, 'ID3\u0003 and then an mp3 stream');
    expect(() => readRecording(path)).toThrow(CliError);
    expect(() => readRecording(path)).toThrow(/song\.mp3: not a WAV file: .*Convert it, e\.g\. sox/);
    expect(() => readRecording(join(dir, 'missing.wav'))).toThrow(/Cannot read .*missing\.wav/);
  });

  it('plays a WAV whose data chunk was cut short, with one warning, but not a streamed one', () => {
    const good = encodeWav(new Int16Array(16_000), { sampleRate: 16_000 });
    const path = join(dir, 'cut-data.wav');
    writeFileSync(path, good.subarray(0, 1044));
    const warnings: string[] = [];
    expect(readRecording(path, (w) => warnings.push(w)).samplesPerChannel).toBe(500);
    expect(warnings).toEqual([
      `${path} is truncated: its data chunk declares 32000 bytes but the file holds 1000; playing the 0.03 s it has.`,
    ]);
    // espeak-ng writing to a pipe declares 0x7FFFF000 bytes: that is "to the end", not a truncation.
    const streamed = new Uint8Array(good.subarray(0, 1044));
    new DataView(streamed.buffer).setUint32(40, 0x7fff_f000, true);
    writeFileSync(path, streamed);
    warnings.length = 0;
    expect(readRecording(path, (w) => warnings.push(w)).samplesPerChannel).toBe(500);
    expect(warnings).toEqual([]);
  });

  // sox writes WAVE_FORMAT_EXTENSIBLE for more than 16 bits or 2 channels: the files users bring.
  it.skipIf(!sox)('reads what sox writes in every sample format, mixed down to mono', () => {
    const make = (name: string, ...format: string[]) => {
      const path = join(dir, name);
      execFileSync('sox', [
        '-D',
        '-n',
        '-r',
        '16000',
        ...format,
        path,
        'synth',
        '0.25',
        'sine',
        '440',
        'gain',
        '-6',
      ]);
      return readRecording(path);
    };
    const reference = make('ref.wav', '-c', '1', '-b', '16');
    expect(reference.samplesPerChannel).toBe(4000);
    const variants: Array<[string, string[], number]> = [
      ['u8.wav', ['-c', '1', '-b', '8', '-e', 'unsigned-integer'], 256],
      ['s24-stereo.wav', ['-c', '2', '-b', '24'], 1],
      ['s32-3ch.wav', ['-c', '3', '-b', '32'], 1],
      ['f32-stereo.wav', ['-c', '2', '-b', '32', '-e', 'floating-point'], 1],
      ['f64.wav', ['-c', '1', '-b', '64', '-e', 'floating-point'], 1],
    ];
    for (const [name, format, tolerance] of variants) {
      const frame = make(name, ...format);
      expect(frame.channels, name).toBe(1);
      expect(frame.sampleRate, name).toBe(16_000);
      expect(frame.samplesPerChannel, name).toBe(4000);
      let worst = 0;
      for (let i = 0; i < frame.data.length; i++) {
        worst = Math.max(worst, Math.abs(frame.data[i]! - reference.data[i]!));
      }
      expect(worst, name).toBeLessThanOrEqual(tolerance);
    }
  });
});
