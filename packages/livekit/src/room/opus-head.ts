/**
 * The Opus identification header (RFC 7845 §5.1), which both containers carry: Ogg as its first packet,
 * WebM as the track's `CodecPrivate`. It says how many channels the packets decode to and how many
 * samples at the start are encoder delay to drop (`preSkip`, at 48 kHz).
 */
export interface OpusHead {
  channels: number;
  /** Samples (at 48 kHz) to discard from the start of the decoded stream. */
  preSkip: number;
  /** The rate the recording was made at; Opus always decodes at 48 kHz (or a divisor of it). */
  inputSampleRate: number;
  /** Channel mapping family: 0 is mono/stereo in one stream, the only one the pre-connect SDKs produce. */
  mappingFamily: number;
}

/** A recording that cannot be read: malformed, or (`unsupported`) well formed but not something we decode. */
export class OpusFormatError extends Error {
  override readonly name = 'OpusFormatError';

  constructor(
    message: string,
    readonly unsupported = false,
  ) {
    super(message);
  }
}

const MAGIC = [0x4f, 0x70, 0x75, 0x73, 0x48, 0x65, 0x61, 0x64]; // "OpusHead"

export function isOpusHead(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && MAGIC.every((b, i) => bytes[i] === b);
}

export function parseOpusHead(bytes: Uint8Array): OpusHead {
  if (!isOpusHead(bytes) || bytes.length < 19) throw new OpusFormatError('not an OpusHead header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = bytes[8]!;
  if (version >> 4 !== 0) throw new OpusFormatError(`unsupported OpusHead version ${version}`, true);
  const channels = bytes[9]!;
  const mappingFamily = bytes[18]!;
  if (channels < 1) throw new OpusFormatError('OpusHead with no channels');
  if (mappingFamily !== 0 || channels > 2) {
    // Multistream (surround) Opus needs a channel mapping table; no microphone recording uses it.
    throw new OpusFormatError(
      `unsupported Opus channel mapping family ${mappingFamily} (${channels} channels)`,
      true,
    );
  }
  return {
    channels,
    preSkip: view.getUint16(10, true),
    inputSampleRate: view.getUint32(12, true),
    mappingFamily,
  };
}
