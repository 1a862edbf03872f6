import { InvalidAudioError, WavFormatError } from '../errors.js';
import { AudioFrame, type AudioFrameLike } from './audio-frame.js';
import { concatenateFrames, int16FromBytes, int16ToBytes } from './frame-utils.js';
import { INT16_SCALE, roundToInt16 } from './pcm-math.js';

/**
 * The one WAV codec of Voxwire. Writing always produces the plainest file every reader accepts (16-bit
 * PCM, a 44-byte header); reading accepts what real writers produce:
 *
 * - integer PCM of 8 (unsigned), 16, 24 or 32 bits and IEEE float of 32 or 64 bits, any channel count,
 *   plain or WAVE_FORMAT_EXTENSIBLE, in RIFF or RF64 files. Samples become Int16 (rounded, clamped).
 * - chunks other than `fmt ` and `data` (LIST, fact, JUNK, bext, ...) are skipped, odd-sized ones with
 *   their pad byte; whatever follows the data chunk is ignored.
 * - a data size of 0 or 0xFFFFFFFF means "up to the end of the input": programs writing to a pipe cannot
 *   seek back to fill it in.
 * - truncation rule: a data chunk that declares more bytes than the input holds is read up to the end
 *   of the input (espeak-ng writing to a pipe declares 0x7FFFF000 bytes; a file cut short by a crash
 *   still plays what it has), and a trailing partial sample frame is dropped. Headers cut short throw.
 * - the header's byte rate and block align are not trusted: they are derived from channels and bits.
 *
 * Anything else throws WavFormatError, whose message says what is wrong.
 */

/** How the samples of a WAV file are stored. */
export interface WavFormat {
  /** Integer PCM (8-bit is unsigned, wider is signed) or IEEE float. */
  readonly encoding: 'pcm' | 'float';
  /** 8, 16, 24 or 32 for `pcm`; 32 or 64 for `float`. */
  readonly bitsPerSample: number;
  readonly sampleRate: number;
  readonly channels: number;
}

const HEADER_BYTES = 44;
const MAX_U32 = 0xffffffff;
const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;
/** Names for the codes people meet most, so the error says "MP3" rather than just "85". */
const CODEC_NAMES: Readonly<Record<number, string>> = {
  2: 'Microsoft ADPCM',
  6: 'A-law',
  7: 'µ-law',
  17: 'IMA ADPCM',
  49: 'GSM 6.10',
  80: 'MPEG',
  85: 'MP3',
};
/** Bytes 2..15 of the PCM and float sub-format GUIDs; bytes 0..1 hold the format code. */
const SUBFORMAT_GUID_TAIL = [
  0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71,
];
/** A fmt chunk is 16 to 40 bytes and a ds64 chunk about 28: anything near this is not a header. */
const MAX_HEADER_CHUNK_BYTES = 64 * 1024;

/**
 * Encodes audio as a 16-bit PCM WAV file in memory. Frames must share one sample rate and channel
 * count; raw samples (interleaved when `channels` > 1) take their format as a second argument.
 */
export function encodeWav(audio: AudioFrameLike | readonly AudioFrameLike[]): Uint8Array;
export function encodeWav(samples: Int16Array, format: { sampleRate: number; channels?: number }): Uint8Array;
export function encodeWav(
  audio: AudioFrameLike | readonly AudioFrameLike[] | Int16Array,
  format?: { sampleRate: number; channels?: number },
): Uint8Array {
  const frames = audio instanceof Int16Array ? [frameOf(audio, format)] : 'data' in audio ? [audio] : audio;
  const first = frames[0];
  if (!first)
    throw new InvalidAudioError('cannot encode a WAV file from zero frames: the sample rate is unknown');
  let samples = 0;
  for (const frame of frames) {
    if (frame.sampleRate !== first.sampleRate || frame.channels !== first.channels) {
      throw new InvalidAudioError(
        `frames must share one format: got ${frame.sampleRate} Hz x ${frame.channels} after ${first.sampleRate} Hz x ${first.channels}`,
      );
    }
    samples += frame.data.length;
  }
  const dataBytes = samples * 2;
  if (dataBytes > MAX_U32 - (HEADER_BYTES - 8)) {
    throw new InvalidAudioError(`${dataBytes} bytes of samples do not fit in a WAV file (4 GiB at most)`);
  }
  const bytes = new Uint8Array(HEADER_BYTES + dataBytes);
  const view = new DataView(bytes.buffer);
  const blockAlign = first.channels * 2;
  writeId(bytes, 0, 'RIFF');
  view.setUint32(4, HEADER_BYTES - 8 + dataBytes, true);
  writeId(bytes, 8, 'WAVE');
  writeId(bytes, 12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, FORMAT_PCM, true);
  view.setUint16(22, first.channels, true);
  view.setUint32(24, first.sampleRate, true);
  view.setUint32(28, first.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, 16, true);
  writeId(bytes, 36, 'data');
  view.setUint32(40, dataBytes, true);
  let offset = HEADER_BYTES;
  for (const frame of frames) {
    bytes.set(int16ToBytes(frame.data), offset);
    offset += frame.data.byteLength;
  }
  return bytes;
}

/**
 * Decodes a whole WAV file into one frame (multi-channel files stay interleaved; `toMono` mixes them
 * down). Throws WavFormatError for malformed or unsupported input.
 */
export function decodeWav(bytes: Uint8Array): AudioFrame {
  const decoder = new WavDecoder();
  const frames = decoder.push(bytes);
  decoder.end();
  const format = decoder.format!;
  if (frames.length === 0) return AudioFrame.silence(format.sampleRate, format.channels, 0);
  return concatenateFrames(frames);
}

type Stage =
  | { kind: 'riff' }
  | { kind: 'chunk' }
  | { kind: 'header'; id: string; size: number; start: number }
  | { kind: 'skip'; remaining: number }
  | { kind: 'data'; remaining: number }
  | { kind: 'done' };

/**
 * Decodes a WAV byte stream as it arrives (a child process's stdout, a network body): push chunks
 * split anywhere, get the samples they complete. The same rules as `decodeWav` apply; a data chunk of
 * unknown size runs until `end()`. Frames handed out never share memory with the pushed bytes.
 */
export class WavDecoder {
  private stage: Stage = { kind: 'riff' };
  /** Header bytes gathered so far, or the start of a sample frame split across pushes. */
  private held: Uint8Array = new Uint8Array(0);
  /** Bytes of input consumed, for messages that point into the file. */
  private position = 0;
  private formatValue: WavFormat | undefined;
  private toInt16: ((bytes: Uint8Array, owned: boolean) => Int16Array) | undefined;
  private sampleFrameBytes = 0;
  private rf64 = false;
  private rf64DataSize: number | undefined;
  private ended = false;

  /** The sample format, known once the fmt chunk has been read. */
  get format(): WavFormat | undefined {
    return this.formatValue;
  }

  /** Adds bytes; returns the samples they complete as a frame (none while the header is read). */
  push(bytes: Uint8Array): AudioFrame[] {
    if (this.ended) throw new InvalidAudioError('WavDecoder.push() after end()');
    const out: AudioFrame[] = [];
    let offset = 0;
    while (offset < bytes.length) {
      const stage = this.stage;
      if (stage.kind === 'done') break;
      if (stage.kind === 'skip') {
        const n = Math.min(stage.remaining, bytes.length - offset);
        stage.remaining -= n;
        offset += n;
        this.position += n;
        if (stage.remaining === 0) this.stage = { kind: 'chunk' };
        continue;
      }
      if (stage.kind === 'data') {
        const n = Math.min(stage.remaining, bytes.length - offset);
        const frame = this.samplesOf(bytes.subarray(offset, offset + n));
        if (frame) out.push(frame);
        stage.remaining -= n;
        offset += n;
        this.position += n;
        if (stage.remaining === 0) this.stage = { kind: 'done' };
        continue;
      }
      const need = stage.kind === 'riff' ? 12 : stage.kind === 'chunk' ? 8 : stage.size + (stage.size % 2);
      const take = Math.min(need - this.held.length, bytes.length - offset);
      const gathered = concat(this.held, bytes.subarray(offset, offset + take));
      offset += take;
      this.position += take;
      if (gathered.length < need) {
        // Refuse a stream that is not WAV at once rather than after 12 bytes.
        if (stage.kind === 'riff' && gathered.length >= 4) checkMagic(readId(gathered, 0));
        this.held = ownCopy(gathered, bytes);
        break;
      }
      this.held = new Uint8Array(0);
      if (stage.kind === 'riff') this.readRiff(gathered);
      else if (stage.kind === 'chunk') this.readChunkHeader(gathered);
      else this.readHeaderChunk(stage.id, gathered.subarray(0, stage.size));
    }
    return out;
  }

  /**
   * Declares the input complete. Throws WavFormatError when it stopped before the samples began (no
   * data chunk, or a header cut short); a partial sample frame left over is dropped.
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const stage = this.stage;
    this.held = new Uint8Array(0);
    if (stage.kind === 'data' || stage.kind === 'done') return;
    if (stage.kind === 'riff') {
      throw new WavFormatError(
        this.position === 0
          ? 'not a WAV file: the input is empty'
          : `not a WAV file: the input ends after ${this.position} bytes, inside the 12-byte RIFF header`,
      );
    }
    if (stage.kind === 'header') {
      throw new WavFormatError(
        `malformed WAV: the input ends inside the "${stage.id}" chunk at byte ${stage.start} (${stage.size} bytes declared)`,
      );
    }
    throw new WavFormatError(
      this.formatValue
        ? `malformed WAV: no data chunk in ${this.position} bytes`
        : `malformed WAV: no fmt chunk in ${this.position} bytes`,
    );
  }

  private readRiff(header: Uint8Array): void {
    const magic = readId(header, 0);
    checkMagic(magic);
    const form = readId(header, 8);
    if (form !== 'WAVE') throw new WavFormatError(`not a WAV file: a RIFF file of type ${quote(form)}`);
    this.rf64 = magic === 'RF64';
    this.stage = { kind: 'chunk' };
  }

  private readChunkHeader(header: Uint8Array): void {
    const id = readId(header, 0);
    const size = new DataView(header.buffer, header.byteOffset, 8).getUint32(4, true);
    const start = this.position - 8;
    if (id === 'data') {
      if (!this.formatValue) {
        throw new WavFormatError(
          `malformed WAV: the data chunk at byte ${start} comes before any fmt chunk, so its samples cannot be read`,
        );
      }
      const declared = size === MAX_U32 && this.rf64DataSize !== undefined ? this.rf64DataSize : size;
      const remaining = declared === 0 || declared === MAX_U32 ? Number.POSITIVE_INFINITY : declared;
      this.stage = { kind: 'data', remaining };
      return;
    }
    if (id === 'fmt ' || (id === 'ds64' && this.rf64)) {
      if (size < 16 || size > MAX_HEADER_CHUNK_BYTES) {
        throw new WavFormatError(
          `malformed WAV: the "${id}" chunk at byte ${start} declares ${size} bytes (expected 16 to ${MAX_HEADER_CHUNK_BYTES})`,
        );
      }
      this.stage = { kind: 'header', id, size, start };
      return;
    }
    const remaining = size + (size % 2);
    this.stage = remaining === 0 ? { kind: 'chunk' } : { kind: 'skip', remaining };
  }

  private readHeaderChunk(id: string, body: Uint8Array): void {
    this.stage = { kind: 'chunk' };
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    if (id === 'ds64') {
      this.rf64DataSize = view.getUint32(8, true) + view.getUint32(12, true) * 2 ** 32;
      return;
    }
    const format = parseFmt(view);
    this.formatValue = format;
    this.sampleFrameBytes = (format.bitsPerSample / 8) * format.channels;
    this.toInt16 = converterFor(format);
  }

  /** Converts whole sample frames; a split one waits in `held` for the next push. */
  private samplesOf(part: Uint8Array): AudioFrame | undefined {
    const frameBytes = this.sampleFrameBytes;
    const total = this.held.length + part.length;
    const usable = total - (total % frameBytes);
    if (usable === 0) {
      this.held = this.held.length === 0 ? part.slice() : concat(this.held, part);
      return undefined;
    }
    const fromPart = usable - this.held.length;
    const owned = this.held.length > 0;
    const whole = owned ? concat(this.held, part.subarray(0, fromPart)) : part.subarray(0, usable);
    this.held = part.slice(fromPart);
    const format = this.formatValue!;
    const samples = this.toInt16!(whole, owned);
    return new AudioFrame(samples, format.sampleRate, format.channels, usable / frameBytes);
  }
}

function checkMagic(magic: string): void {
  if (magic === 'RIFX') {
    throw new WavFormatError('unsupported WAV: big-endian (RIFX) files are not read; convert to RIFF');
  }
  if (magic !== 'RIFF' && magic !== 'RF64') {
    throw new WavFormatError(`not a WAV file: it starts with ${quote(magic)} instead of "RIFF"`);
  }
}

function parseFmt(view: DataView): WavFormat {
  let code = view.getUint16(0, true);
  const channels = view.getUint16(2, true);
  const sampleRate = view.getUint32(4, true);
  const bitsPerSample = view.getUint16(14, true);
  if (code === FORMAT_EXTENSIBLE) {
    if (view.byteLength < 40) {
      throw new WavFormatError(
        `malformed WAV: a WAVE_FORMAT_EXTENSIBLE fmt chunk needs 40 bytes, this one has ${view.byteLength}`,
      );
    }
    const tailMatches = SUBFORMAT_GUID_TAIL.every((byte, i) => view.getUint8(26 + i) === byte);
    code = view.getUint16(24, true);
    if (!tailMatches) {
      throw new WavFormatError(
        'unsupported WAV: WAVE_FORMAT_EXTENSIBLE with a sub-format that is neither PCM nor IEEE float',
      );
    }
  }
  if (channels === 0) throw new WavFormatError('malformed WAV: the fmt chunk declares 0 channels');
  if (sampleRate === 0) {
    throw new WavFormatError(`malformed WAV: the fmt chunk declares a sample rate of ${sampleRate} Hz`);
  }
  if (code === FORMAT_PCM) {
    if (bitsPerSample !== 8 && bitsPerSample !== 16 && bitsPerSample !== 24 && bitsPerSample !== 32) {
      throw new WavFormatError(
        `unsupported WAV: ${bitsPerSample}-bit integer PCM (8, 16, 24 and 32 bits are read)`,
      );
    }
    return { encoding: 'pcm', bitsPerSample, sampleRate, channels };
  }
  if (code === FORMAT_FLOAT) {
    if (bitsPerSample !== 32 && bitsPerSample !== 64) {
      throw new WavFormatError(`unsupported WAV: ${bitsPerSample}-bit float (32 and 64 bits are read)`);
    }
    return { encoding: 'float', bitsPerSample, sampleRate, channels };
  }
  const name = CODEC_NAMES[code];
  throw new WavFormatError(
    `unsupported WAV: format code ${code}${name ? ` (${name})` : ''}; only PCM (1) and IEEE float (3) are read`,
  );
}

/** `owned` says the bytes are the decoder's own copy, so a 16-bit view on them needs no second copy. */
function converterFor(format: WavFormat): (bytes: Uint8Array, owned: boolean) => Int16Array {
  const width = format.bitsPerSample / 8;
  if (format.encoding === 'pcm' && width === 2) {
    return (bytes, owned) => int16FromBytes(owned ? bytes : bytes.slice());
  }
  const read = sampleReader(format);
  return (bytes) => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const samples = new Int16Array(bytes.byteLength / width);
    for (let index = 0; index < samples.length; index++) samples[index] = read(view, index * width);
    return samples;
  };
}

function sampleReader(format: WavFormat): (view: DataView, offset: number) => number {
  if (format.encoding === 'float') {
    return format.bitsPerSample === 32
      ? (view, offset) => roundToInt16(view.getFloat32(offset, true) * INT16_SCALE)
      : (view, offset) => roundToInt16(view.getFloat64(offset, true) * INT16_SCALE);
  }
  switch (format.bitsPerSample) {
    case 8:
      // 8-bit WAV is unsigned with 128 as silence.
      return (view, offset) => (view.getUint8(offset) - 128) * 256;
    case 24:
      return (view, offset) => {
        const value =
          view.getUint8(offset) | (view.getUint8(offset + 1) << 8) | (view.getInt8(offset + 2) << 16);
        return roundToInt16(value / 256);
      };
    default:
      return (view, offset) => roundToInt16(view.getInt32(offset, true) / 65536);
  }
}

function frameOf(
  samples: Int16Array,
  format: { sampleRate: number; channels?: number } | undefined,
): AudioFrame {
  if (!format) throw new InvalidAudioError('encodeWav(samples, format) needs the sample rate');
  const channels = format.channels ?? 1;
  if (!Number.isInteger(channels) || channels <= 0) {
    throw new InvalidAudioError(`channels must be a positive integer, got ${channels}`);
  }
  if (samples.length % channels !== 0) {
    throw new InvalidAudioError(`${samples.length} samples cannot be split evenly into ${channels} channels`);
  }
  return new AudioFrame(samples, format.sampleRate, channels, samples.length / channels);
}

function readId(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(bytes[offset]!, bytes[offset + 1]!, bytes[offset + 2]!, bytes[offset + 3]!);
}

function writeId(bytes: Uint8Array, offset: number, id: string): void {
  for (let i = 0; i < 4; i++) bytes[offset + i] = id.charCodeAt(i);
}

/** A four-byte id for a message, unprintable bytes escaped (an MP3's "ID3\x03", binary garbage). */
function quote(id: string): string {
  let text = '';
  for (const c of id) {
    const code = c.charCodeAt(0);
    text += code >= 0x20 && code < 0x7f ? c : `\\x${code.toString(16).padStart(2, '0')}`;
  }
  return `"${text}"`;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `gathered` may be a view on the caller's bytes; what is held across pushes must be our own. */
function ownCopy(gathered: Uint8Array, input: Uint8Array): Uint8Array {
  return gathered.buffer === input.buffer ? gathered.slice() : gathered;
}
