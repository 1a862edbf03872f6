/**
 * Opus packets out of a WebM (Matroska) stream, fed in arbitrary chunks: what a browser's
 * `MediaRecorder` writes for `audio/webm;codecs=opus`, the web SDK's pre-connect recording. A recorder
 * streams, so the Segment and its Clusters have unknown sizes; the parser therefore does not track
 * nesting, it walks element headers: masters it needs are entered, other elements skipped (without
 * buffering them), and the leaves it reads (track fields, blocks) are buffered whole. Blocks may use
 * any lacing. Only the first Opus track is read.
 */
import { appendBytes } from './bytes.js';
import { type OpusHead, OpusFormatError, parseOpusHead } from './opus-head.js';
import type { OpusPackets } from './ogg-opus.js';

const ID = {
  EBML: 0x1a45dfa3,
  Segment: 0x18538067,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  Audio: 0xe1,
  Channels: 0x9f,
  Cluster: 0x1f43b675,
  BlockGroup: 0xa0,
  Block: 0xa1,
  SimpleBlock: 0xa3,
} as const;

/** Masters whose children are read. */
const ENTERED: ReadonlySet<number> = new Set([
  ID.Segment,
  ID.Tracks,
  ID.TrackEntry,
  ID.Audio,
  ID.Cluster,
  ID.BlockGroup,
]);
/** Leaves whose content is read; everything else is skipped. */
const READ: ReadonlySet<number> = new Set([
  ID.TrackNumber,
  ID.CodecID,
  ID.CodecPrivate,
  ID.Channels,
  ID.Block,
  ID.SimpleBlock,
]);
/** Largest element buffered whole: a block of a few Opus frames is a few hundred bytes. */
const MAX_READ_BYTES = 1 << 20;

interface TrackDraft {
  number?: number;
  codec?: string;
  codecPrivate?: Uint8Array;
  channels?: number;
}

export class WebmOpusDemuxer {
  private buffer: Uint8Array = new Uint8Array(0);
  private skipping = 0;
  private started = false;
  private draft: TrackDraft | undefined;
  private track: { number: number; head: OpusHead } | undefined;
  private tracksSeen = false;

  push(chunk: Uint8Array): OpusPackets {
    let input = chunk;
    if (this.skipping > 0) {
      const skipped = Math.min(this.skipping, input.length);
      this.skipping -= skipped;
      input = input.subarray(skipped);
    }
    this.buffer = appendBytes(this.buffer, input);
    const packets: Uint8Array[] = [];
    let at = 0;
    for (;;) {
      const id = readId(this.buffer, at);
      if (!id) break;
      const size = readSize(this.buffer, at + id.length);
      if (!size) break;
      if (!this.started) {
        if (id.value !== ID.EBML) throw new OpusFormatError('not a WebM stream (no EBML header)');
        this.started = true;
      }
      const contentAt = at + id.length + size.length;
      if (ENTERED.has(id.value)) {
        this.enter(id.value);
        at = contentAt;
        continue;
      }
      if (size.value === undefined)
        throw new OpusFormatError('WebM element of unknown size that is not a master');
      if (READ.has(id.value)) {
        if (size.value > MAX_READ_BYTES) throw new OpusFormatError(`WebM element of ${size.value} bytes`);
        if (this.buffer.length < contentAt + size.value) break;
        this.read(id.value, this.buffer.subarray(contentAt, contentAt + size.value), packets);
        at = contentAt + size.value;
        continue;
      }
      // Skipped: what is buffered now, and the rest as it comes.
      const available = this.buffer.length - contentAt;
      if (available >= size.value) {
        at = contentAt + size.value;
        continue;
      }
      this.skipping = size.value - available;
      at = this.buffer.length;
      break;
    }
    this.buffer = this.buffer.slice(at);
    return { head: this.track?.head, packets };
  }

  private enter(id: number): void {
    if (id === ID.TrackEntry) {
      this.finishTrack();
      this.draft = {};
    } else if (id === ID.Cluster) {
      this.finishTrack();
      if (this.tracksSeen && !this.track)
        throw new OpusFormatError('the WebM stream has no Opus track', true);
    } else if (id === ID.Tracks) {
      this.tracksSeen = true;
    }
  }

  /** A track's fields are complete when the next track or the first cluster begins. */
  private finishTrack(): void {
    const draft = this.draft;
    this.draft = undefined;
    if (!draft || this.track || draft.codec !== 'A_OPUS' || draft.number === undefined) return;
    const head: OpusHead = draft.codecPrivate
      ? parseOpusHead(draft.codecPrivate)
      : { channels: draft.channels ?? 1, preSkip: 0, inputSampleRate: 48_000, mappingFamily: 0 };
    this.track = { number: draft.number, head };
  }

  private read(id: number, content: Uint8Array, packets: Uint8Array[]): void {
    switch (id) {
      case ID.TrackNumber:
        if (this.draft) this.draft.number = readUint(content);
        return;
      case ID.CodecID:
        if (this.draft) this.draft.codec = new TextDecoder().decode(content).replace(/\0+$/, '');
        return;
      case ID.CodecPrivate:
        if (this.draft) this.draft.codecPrivate = content.slice();
        return;
      case ID.Channels:
        if (this.draft) this.draft.channels = readUint(content);
        return;
      case ID.Block:
      case ID.SimpleBlock:
        this.finishTrack();
        this.block(content, packets);
        return;
    }
  }

  private block(content: Uint8Array, packets: Uint8Array[]): void {
    const track = readSize(content, 0);
    if (!track || track.value === undefined || content.length < track.length + 3) {
      throw new OpusFormatError('truncated WebM block');
    }
    if (!this.track || track.value !== this.track.number) return;
    const flags = content[track.length + 2]!;
    const lacing = (flags >> 1) & 3;
    let at = track.length + 3;
    if (lacing === 0) {
      packets.push(content.slice(at));
      return;
    }
    const count = content[at++]! + 1;
    const sizes: number[] = [];
    if (lacing === 1) {
      // Xiph lacing: each size but the last as a run of 255s and a final byte.
      for (let i = 0; i < count - 1; i++) {
        let size = 0;
        let byte: number;
        do {
          byte = content[at++]!;
          size += byte;
        } while (byte === 255 && at < content.length);
        sizes.push(size);
      }
    } else if (lacing === 3) {
      // EBML lacing: the first size as a vint, then signed differences.
      const first = readSize(content, at);
      if (!first || first.value === undefined) throw new OpusFormatError('bad EBML lacing');
      sizes.push(first.value);
      at += first.length;
      for (let i = 1; i < count - 1; i++) {
        const diff = readSize(content, at);
        if (!diff || diff.value === undefined) throw new OpusFormatError('bad EBML lacing');
        at += diff.length;
        sizes.push(sizes[i - 1]! + diff.value - (2 ** (7 * diff.length - 1) - 1));
      }
    } else {
      const each = (content.length - at) / count;
      if (!Number.isInteger(each)) throw new OpusFormatError('bad fixed lacing');
      for (let i = 0; i < count - 1; i++) sizes.push(each);
    }
    const laced = sizes.reduce((n, s) => n + s, 0);
    if (sizes.some((s) => s < 0) || at + laced > content.length) throw new OpusFormatError('bad WebM lacing');
    sizes.push(content.length - at - laced);
    for (const size of sizes) {
      packets.push(content.slice(at, at + size));
      at += size;
    }
  }
}

/** An element ID (its marker bits kept, as IDs are written), or undefined when not all bytes are here. */
function readId(bytes: Uint8Array, at: number): { value: number; length: number } | undefined {
  if (at >= bytes.length) return undefined;
  const first = bytes[at]!;
  const length = first >= 0x80 ? 1 : first >= 0x40 ? 2 : first >= 0x20 ? 3 : first >= 0x10 ? 4 : 0;
  if (length === 0) throw new OpusFormatError('bad WebM element ID');
  if (at + length > bytes.length) return undefined;
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + bytes[at + i]!;
  return { value, length };
}

/** A size vint (marker removed); `value` undefined means "unknown size" (all value bits set). */
function readSize(bytes: Uint8Array, at: number): { value: number | undefined; length: number } | undefined {
  if (at >= bytes.length) return undefined;
  const first = bytes[at]!;
  let length = 1;
  while (length <= 8 && (first & (0x80 >> (length - 1))) === 0) length++;
  if (length > 8) throw new OpusFormatError('bad WebM size');
  if (at + length > bytes.length) return undefined;
  let value = first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = bytes[at + i]!;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  return { value: allOnes ? undefined : value, length };
}

function readUint(bytes: Uint8Array): number {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  return value;
}
