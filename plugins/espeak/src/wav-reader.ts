import { InvalidAudioError } from '@voxwire/agents';

export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

/**
 * Reads a 16-bit PCM WAV as it streams in: the header first (espeak-ng writes a placeholder data size
 * when writing to a pipe, so the size is ignored), then raw little-endian samples, whole samples only.
 */
export class StreamingWavReader {
  private header: Uint8Array = new Uint8Array(0);
  private formatValue: PcmFormat | undefined;
  private dataStarted = false;
  private carry: number | undefined;

  get format(): PcmFormat | undefined {
    return this.formatValue;
  }

  /** Returns the samples completed by `chunk` (possibly none). */
  push(chunk: Uint8Array): Int16Array {
    let bytes = chunk;
    if (!this.dataStarted) {
      this.header = concat(this.header, bytes);
      const start = this.parseHeader();
      if (start === undefined) {
        if (this.header.byteLength > 64 * 1024)
          throw new InvalidAudioError('no WAV data chunk in the first 64 KiB');
        return new Int16Array(0);
      }
      this.dataStarted = true;
      bytes = this.header.subarray(start);
      this.header = new Uint8Array(0);
    }
    if (this.carry !== undefined) {
      bytes = concat(Uint8Array.of(this.carry), bytes);
      this.carry = undefined;
    }
    const whole = bytes.byteLength - (bytes.byteLength % 2);
    if (whole < bytes.byteLength) this.carry = bytes[whole];
    const samples = new Int16Array(whole / 2);
    const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    return samples;
  }

  /** Offset of the first sample once the header is complete, else undefined. */
  private parseHeader(): number | undefined {
    const h = this.header;
    if (h.byteLength < 12) return undefined;
    const view = new DataView(h.buffer, h.byteOffset, h.byteLength);
    if (ascii(h, 0) !== 'RIFF' || ascii(h, 8) !== 'WAVE')
      throw new InvalidAudioError('not a RIFF/WAVE stream');
    let offset = 12;
    while (offset + 8 <= h.byteLength) {
      const id = ascii(h, offset);
      const size = view.getUint32(offset + 4, true);
      if (id === 'data') {
        if (!this.formatValue) throw new InvalidAudioError('WAV data chunk before its fmt chunk');
        return offset + 8;
      }
      if (offset + 8 + size > h.byteLength) return undefined;
      if (id === 'fmt ') {
        const audioFormat = view.getUint16(offset + 8, true);
        const channels = view.getUint16(offset + 10, true);
        const sampleRate = view.getUint32(offset + 12, true);
        const bits = view.getUint16(offset + 22, true);
        if (audioFormat !== 1 || bits !== 16) {
          throw new InvalidAudioError(`expected 16-bit PCM WAV, got format ${audioFormat} with ${bits} bits`);
        }
        this.formatValue = { sampleRate, channels };
      }
      offset += 8 + size + (size % 2);
    }
    return undefined;
  }
}

function ascii(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
