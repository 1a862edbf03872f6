import { readFileSync, writeFileSync } from 'node:fs';
import { AudioFrame, toMono } from '@voxwire/agents';
import { CliError } from './errors.js';

/** Reads a 16-bit PCM WAV file as one mono frame. */
export function readWav(path: string): AudioFrame {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const fail = (why: string): never => {
    throw new CliError(
      `${path} is not a 16-bit PCM WAV file (${why}). Convert it, e.g. sox ${path} -b 16 -c 1 input.wav`,
    );
  };
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE')
    fail('no RIFF/WAVE header');
  let offset = 12;
  let format: { rate: number; channels: number } | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      const audioFormat = bytes.readUInt16LE(body);
      const bits = bytes.readUInt16LE(body + 14);
      if (audioFormat !== 1 && audioFormat !== 0xfffe) fail(`format ${audioFormat}`);
      if (bits !== 16) fail(`${bits}-bit samples`);
      format = { channels: bytes.readUInt16LE(body + 2), rate: bytes.readUInt32LE(body + 4) };
    } else if (id === 'data') {
      if (!format) return fail('data before fmt');
      const end = Math.min(bytes.length, body + size);
      const count = Math.floor((end - body) / 2);
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(body + i * 2);
      const perChannel = Math.floor(count / format.channels);
      const frame = new AudioFrame(
        samples.subarray(0, perChannel * format.channels),
        format.rate,
        format.channels,
        perChannel,
      );
      return format.channels === 1 ? frame : toMono(frame);
    }
    offset = body + size + (size % 2);
  }
  return fail('no data chunk');
}

/** Writes mono 16-bit PCM. */
export function writeWav(path: string, samples: Int16Array, sampleRate: number): void {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples.byteLength, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples.byteLength, 40);
  const data = Buffer.alloc(samples.byteLength);
  for (let i = 0; i < samples.length; i++) data.writeInt16LE(samples[i]!, i * 2);
  writeFileSync(path, Buffer.concat([header, data]));
}
