/**
 * A minimal WebM writer for tests: Opus packets in a stream laid out as a browser's `MediaRecorder`
 * writes it (EBML header, a Segment and Clusters of unknown size, SimpleBlocks), with the lacing and
 * the extra elements a demuxer must cope with. Not a general muxer.
 */
import { concatBytes } from '../room/bytes.js';

export type WebmLacing = 'none' | 'xiph' | 'ebml' | 'fixed';

export interface WebmOptions {
  codecId?: string;
  /** The track's CodecPrivate (the OpusHead); omitted when undefined. */
  codecPrivate?: Uint8Array | undefined;
  channels?: number;
  /** Frames per block when laced. Default 3. */
  framesPerBlock?: number;
  lacing?: WebmLacing;
  /** Packets per cluster. Default 25 (half a second of 20 ms frames). */
  packetsPerCluster?: number;
  /** A second, non-Opus track before the Opus one, whose blocks must be ignored. */
  decoyTrack?: boolean;
}

const UNKNOWN_SIZE = new Uint8Array([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

function id(value: number): Uint8Array {
  const bytes: number[] = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return new Uint8Array(bytes);
}

/** A size as an 8-byte vint (as recorders write them), or the shortest when `short`. */
function size(n: number, short = false): Uint8Array {
  if (short) {
    for (let length = 1; length <= 8; length++) {
      if (n < 2 ** (7 * length) - 1) {
        const out = new Uint8Array(length);
        let v = n;
        for (let i = length - 1; i >= 0; i--) {
          out[i] = v & 0xff;
          v = Math.floor(v / 256);
        }
        out[0]! |= 0x80 >> (length - 1);
        return out;
      }
    }
  }
  const out = new Uint8Array(8);
  let v = n;
  for (let i = 7; i >= 1; i--) {
    out[i] = v & 0xff;
    v = Math.floor(v / 256);
  }
  out[0] = 0x01;
  return out;
}

function element(idValue: number, content: Uint8Array): Uint8Array {
  return concatBytes([id(idValue), size(content.length), content]);
}

function uint(value: number): Uint8Array {
  return new Uint8Array([value]);
}

function text(value: string): Uint8Array {
  return new TextEncoder().encode(value);
}

function block(track: number, frames: Uint8Array[], lacing: WebmLacing): Uint8Array {
  const header = [0x80 | track, 0x00, 0x00];
  if (frames.length === 1 || lacing === 'none') {
    return concatBytes([new Uint8Array([...header, 0x80]), frames[0]!]);
  }
  const flag = { xiph: 0x02, fixed: 0x04, ebml: 0x06 }[lacing];
  const sizes: number[] = [];
  if (lacing === 'xiph') {
    for (const f of frames.slice(0, -1)) {
      let n = f.length;
      while (n >= 255) {
        sizes.push(255);
        n -= 255;
      }
      sizes.push(n);
    }
  } else if (lacing === 'ebml') {
    const first = size(frames[0]!.length, true);
    sizes.push(...first);
    for (let i = 1; i < frames.length - 1; i++) {
      // Signed difference, as a 2-byte vint with the bias of 2^13 - 1.
      const biased = frames[i]!.length - frames[i - 1]!.length + 8191;
      sizes.push(0x40 | (biased >> 8), biased & 0xff);
    }
  }
  return concatBytes([new Uint8Array([...header, 0x80 | flag, frames.length - 1, ...sizes]), ...frames]);
}

export function writeWebm(packets: Uint8Array[], options: WebmOptions = {}): Uint8Array {
  const lacing = options.lacing ?? 'none';
  const perBlock = lacing === 'none' ? 1 : (options.framesPerBlock ?? 3);
  const perCluster = options.packetsPerCluster ?? 25;
  const opusTrack = options.decoyTrack ? 2 : 1;
  const trackEntry = (number: number, codec: string, priv?: Uint8Array) =>
    element(
      0xae,
      concatBytes([
        element(0xd7, uint(number)),
        element(0x83, uint(2)),
        element(0x86, text(codec)),
        ...(priv ? [element(0x63a2, priv)] : []),
        element(0xe1, concatBytes([element(0x9f, uint(options.channels ?? 1))])),
      ]),
    );
  const parts: Uint8Array[] = [
    element(0x1a45dfa3, concatBytes([element(0x4282, text('webm')), element(0x4287, uint(4))])),
    id(0x18538067),
    UNKNOWN_SIZE,
    element(0xec, new Uint8Array(37)), // Void
    element(0x1549a966, concatBytes([element(0x2ad7b1, new Uint8Array([0x0f, 0x42, 0x40]))])), // Info
    element(
      0x1654ae6b,
      concatBytes([
        ...(options.decoyTrack ? [trackEntry(1, 'A_VORBIS')] : []),
        trackEntry(opusTrack, options.codecId ?? 'A_OPUS', options.codecPrivate),
      ]),
    ),
  ];
  for (let c = 0; c < packets.length; c += perCluster) {
    parts.push(id(0x1f43b675), UNKNOWN_SIZE, element(0xe7, uint(0)));
    const clusterPackets = packets.slice(c, c + perCluster);
    for (let b = 0; b < clusterPackets.length; b += perBlock) {
      if (options.decoyTrack) parts.push(element(0xa3, block(1, [new Uint8Array([1, 2, 3])], 'none')));
      parts.push(element(0xa3, block(opusTrack, clusterPackets.slice(b, b + perBlock), lacing)));
    }
  }
  return concatBytes(parts);
}
