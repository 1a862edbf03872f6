/**
 * Opus packets out of an Ogg stream (RFC 3533 pages, RFC 7845 for Opus), fed in arbitrary chunks as a
 * byte stream delivers them. Only the first logical stream is read (a recording has one); the page CRC
 * is not checked (the bytes come over a reliable data channel, not a lossy file system).
 */
import { appendBytes, concatBytes } from './bytes.js';
import { type OpusHead, OpusFormatError, isOpusHead, parseOpusHead } from './opus-head.js';

const CAPTURE = [0x4f, 0x67, 0x67, 0x53]; // "OggS"
const HEADER_BYTES = 27;

export interface OpusPackets {
  /** Set once the identification header has been read. */
  head: OpusHead | undefined;
  /** Audio packets, in order. */
  packets: Uint8Array[];
}

export class OggOpusDemuxer {
  private buffer: Uint8Array = new Uint8Array(0);
  private head: OpusHead | undefined;
  private serial: number | undefined;
  /** A packet continued from the previous page. */
  private partial: Uint8Array[] = [];
  /** Packets of the stream so far: the first is OpusHead, the second OpusTags, then audio. */
  private packetIndex = 0;

  push(chunk: Uint8Array): OpusPackets {
    this.buffer = appendBytes(this.buffer, chunk);
    const packets: Uint8Array[] = [];
    let at = 0;
    for (;;) {
      if (this.buffer.length - at < HEADER_BYTES) break;
      if (!CAPTURE.every((b, i) => this.buffer[at + i] === b)) {
        throw new OpusFormatError('not an Ogg stream (no OggS page where one was due)');
      }
      const segments = this.buffer[at + 26]!;
      const tableEnd = at + HEADER_BYTES + segments;
      if (this.buffer.length < tableEnd) break;
      let bodyLength = 0;
      for (let i = 0; i < segments; i++) bodyLength += this.buffer[at + HEADER_BYTES + i]!;
      if (this.buffer.length < tableEnd + bodyLength) break;
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset + at, HEADER_BYTES);
      const serial = view.getUint32(14, true);
      this.serial ??= serial;
      if (serial === this.serial) {
        let offset = tableEnd;
        for (let i = 0; i < segments; i++) {
          const lace = this.buffer[at + HEADER_BYTES + i]!;
          this.partial.push(this.buffer.slice(offset, offset + lace));
          offset += lace;
          // A lacing value under 255 ends a packet; 255 continues it (into the next page, perhaps).
          if (lace < 255) {
            this.packet(concatBytes(this.partial), packets);
            this.partial = [];
          }
        }
      }
      at = tableEnd + bodyLength;
    }
    this.buffer = this.buffer.slice(at);
    return { head: this.head, packets };
  }

  private packet(packet: Uint8Array, out: Uint8Array[]): void {
    const index = this.packetIndex++;
    if (index === 0) {
      if (!isOpusHead(packet)) throw new OpusFormatError('the Ogg stream is not Opus (no OpusHead)', true);
      this.head = parseOpusHead(packet);
      return;
    }
    if (index === 1) return; // OpusTags: the encoder's name and comments.
    out.push(packet);
  }
}
