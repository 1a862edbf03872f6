/** The raw PCM encodings this plugin asks Cartesia for; both come out as 16-bit PCM frames. */
export type CartesiaEncoding = 'pcm_s16le' | 'pcm_f32le';

/**
 * Turns Cartesia's audio bytes into little-endian 16-bit PCM bytes. Chunks may split a sample anywhere
 * (base64 chunks on the socket, network chunks of the bytes endpoint), so an incomplete float sample
 * waits for the next chunk; 16-bit bytes pass through for `FrameChunker`, which reassembles its own.
 */
export class PcmConverter {
  private carry = new Uint8Array(0);

  constructor(readonly encoding: CartesiaEncoding) {}

  push(bytes: Uint8Array): Uint8Array {
    if (this.encoding === 'pcm_s16le') return bytes;
    const input = this.carry.length > 0 ? concat(this.carry, bytes) : bytes;
    const whole = input.length - (input.length % 4);
    this.carry = input.slice(whole);
    const samples = whole / 4;
    const view = new DataView(input.buffer, input.byteOffset, whole);
    const out = new Uint8Array(samples * 2);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < samples; i++) {
      const value = view.getFloat32(i * 4, true);
      // Clipped, not wrapped: a float slightly above 1 must not become a loud negative click.
      const clamped = Number.isNaN(value) ? 0 : Math.max(-1, Math.min(1, value));
      outView.setInt16(i * 2, Math.round(clamped < 0 ? clamped * 32768 : clamped * 32767), true);
    }
    return out;
  }
}

export function decodeBase64(data: string): Uint8Array {
  const buffer = Buffer.from(data, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
