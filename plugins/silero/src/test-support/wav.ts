import { readFileSync, writeFileSync } from 'node:fs';

export interface Pcm {
  samples: Int16Array;
  sampleRate: number;
}

/** Reads a 16-bit PCM mono WAV (what espeak-ng and sox write here). */
export function readWav(path: string): Pcm {
  const bytes = readFileSync(path);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${path} is not a WAV file`);
  }
  let offset = 12;
  let sampleRate = 0;
  let channels = 0;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    let size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
      const bits = view.getUint16(body + 14, true);
      if (bits !== 16) throw new Error(`${path}: ${bits}-bit audio, expected 16`);
    } else if (id === 'data') {
      // espeak-ng writes a placeholder size when it streams; trust the file length instead.
      if (size === 0 || size === 0xffffffff || body + size > bytes.length) size = bytes.length - body;
      if (channels !== 1) throw new Error(`${path}: ${channels} channels, expected mono`);
      const samples = new Int16Array(size >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(body + 2 * i, true);
      return { samples, sampleRate };
    }
    offset = body + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}

export function writeWav(path: string, pcm: Pcm): void {
  const dataBytes = pcm.samples.length * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(pcm.sampleRate, 24);
  out.writeUInt32LE(pcm.sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < pcm.samples.length; i++) out.writeInt16LE(pcm.samples[i] as number, 44 + 2 * i);
  writeFileSync(path, out);
}
