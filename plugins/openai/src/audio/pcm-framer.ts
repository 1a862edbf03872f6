import { AudioFrame } from '@voxwire/agents';

/**
 * Cuts a little-endian 16-bit PCM byte stream into fixed-size frames. Network chunks split samples at
 * any byte, so an odd trailing byte is carried over to the next chunk instead of being misread.
 */
export class PcmFramer {
  private readonly frameBytes: number;
  private pending: Uint8Array = new Uint8Array(0);

  constructor(
    readonly sampleRate: number,
    readonly channels: number,
    frameSizeMs: number,
  ) {
    const samplesPerChannel = Math.max(1, Math.round((sampleRate * frameSizeMs) / 1000));
    this.frameBytes = samplesPerChannel * channels * 2;
  }

  /** Adds bytes; returns the whole frames now available. */
  push(bytes: Uint8Array): AudioFrame[] {
    const data = this.pending.length > 0 ? concat(this.pending, bytes) : bytes;
    const frames: AudioFrame[] = [];
    let offset = 0;
    while (data.length - offset >= this.frameBytes) {
      frames.push(this.toFrame(data, offset, this.frameBytes));
      offset += this.frameBytes;
    }
    // Copy so the caller may reuse its buffer.
    this.pending = data.slice(offset);
    return frames;
  }

  /** The rest as a shorter frame, or undefined. A dangling half sample (or partial channel set) is dropped. */
  flush(): AudioFrame | undefined {
    const usable = this.pending.length - (this.pending.length % (this.channels * 2));
    const frame = usable > 0 ? this.toFrame(this.pending, 0, usable) : undefined;
    this.pending = new Uint8Array(0);
    return frame;
  }

  private toFrame(bytes: Uint8Array, offset: number, length: number): AudioFrame {
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset, length);
    const samples = new Int16Array(length / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    return new AudioFrame(samples, this.sampleRate, this.channels, samples.length / this.channels);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
