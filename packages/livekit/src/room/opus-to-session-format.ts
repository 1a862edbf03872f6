/**
 * An Opus recording (in WebM, as browsers' `MediaRecorder` writes it, or in Ogg) decoded to the
 * session's format. The container is recognised from its first bytes, whatever MIME type the sender
 * declared. Decoding uses `opus-decoder` (libopus compiled to WebAssembly: no native build, nothing
 * fetched at run time), loaded on the first Opus recording only.
 */
import { AudioFrame } from '@voxwire/agents';
import type { OpusDecodedAudio, OpusDecoder, OpusDecoderSampleRate } from 'opus-decoder';
import { appendBytes } from './bytes.js';
import { OggOpusDemuxer, type OpusPackets } from './ogg-opus.js';
import { type OpusHead, OpusFormatError } from './opus-head.js';
import { type PreConnectDecoder, SessionFormatConverter } from './pre-connect-format.js';
import { WebmOpusDemuxer } from './webm-opus.js';

/** The rates libopus decodes to directly; any other session rate is resampled from 48 kHz. */
const OPUS_RATES: readonly number[] = [8000, 12_000, 16_000, 24_000, 48_000];

let opusModule: Promise<typeof import('opus-decoder')> | undefined;
let warmed: Promise<void> | undefined;

function loadOpusDecoder(): Promise<typeof import('opus-decoder')> {
  opusModule ??= import('opus-decoder');
  return opusModule;
}

/**
 * Loads the decoder and compiles its WebAssembly once per process (the library caches the compiled
 * module), so the first recording is not delayed by it. Resolves either way; a failure shows when a
 * recording is decoded.
 */
export function warmOpusDecoder(): Promise<void> {
  warmed ??= (async () => {
    const { OpusDecoder } = await loadOpusDecoder();
    const decoder = new OpusDecoder({ channels: 1 });
    await decoder.ready;
    decoder.free();
  })().catch(() => {});
  return warmed;
}

export class OpusToSessionFormat implements PreConnectDecoder {
  private demuxer: { push(chunk: Uint8Array): OpusPackets } | undefined;
  private sniffed: Uint8Array = new Uint8Array(0);
  private decoder: OpusDecoder<OpusDecoderSampleRate> | undefined;
  private converter: SessionFormatConverter | undefined;
  private channels = 1;
  private readonly decodeRate: OpusDecoderSampleRate;
  /** Packets libopus could not decode (it conceals them); reported, not fatal. */
  decodeErrors = 0;
  private closed = false;

  constructor(private readonly target: { sampleRate: number; channels: number }) {
    this.decodeRate = (
      OPUS_RATES.includes(target.sampleRate) ? target.sampleRate : 48_000
    ) as OpusDecoderSampleRate;
  }

  async push(bytes: Uint8Array): Promise<AudioFrame[]> {
    const demuxer = this.demuxer ?? this.sniff(bytes);
    if (!demuxer) return [];
    const input = this.demuxer ? bytes : this.sniffed;
    this.demuxer = demuxer;
    const { head, packets } = demuxer.push(input);
    if (packets.length === 0) return [];
    if (!head) throw new OpusFormatError('Opus packets before the stream header');
    const decoder = await this.decoderFor(head);
    if (this.closed) return [];
    const decoded: OpusDecodedAudio<OpusDecoderSampleRate> = decoder.decodeFrames(packets);
    this.decodeErrors += decoded.errors.length;
    if (decoded.samplesDecoded === 0) return [];
    return this.converter!.push([this.interleave(decoded)]);
  }

  async flush(): Promise<AudioFrame[]> {
    return this.converter?.flush() ?? [];
  }

  close(): void {
    this.closed = true;
    this.decoder?.free();
    this.decoder = undefined;
  }

  /** Picks the demuxer from the first four bytes (held until they are all here). */
  private sniff(bytes: Uint8Array): { push(chunk: Uint8Array): OpusPackets } | undefined {
    this.sniffed = appendBytes(this.sniffed, bytes);
    if (this.sniffed.length < 4) return undefined;
    const [a, b, c, d] = this.sniffed;
    if (a === 0x1a && b === 0x45 && c === 0xdf && d === 0xa3) return new WebmOpusDemuxer();
    if (a === 0x4f && b === 0x67 && c === 0x67 && d === 0x53) return new OggOpusDemuxer();
    throw new OpusFormatError('an Opus recording in neither WebM nor Ogg', true);
  }

  private async decoderFor(head: OpusHead): Promise<OpusDecoder<OpusDecoderSampleRate>> {
    if (this.decoder) return this.decoder;
    const { OpusDecoder } = await loadOpusDecoder();
    const decoder = new OpusDecoder({
      sampleRate: this.decodeRate,
      channels: head.channels,
      preSkip: head.preSkip,
    });
    await decoder.ready;
    if (this.closed) {
      decoder.free();
      return decoder;
    }
    this.decoder = decoder;
    this.channels = head.channels;
    this.converter = new SessionFormatConverter(
      { sampleRate: this.decodeRate, channels: head.channels },
      this.target,
    );
    return decoder;
  }

  /** libopus's planar floats as one interleaved 16-bit frame. */
  private interleave(decoded: OpusDecodedAudio<OpusDecoderSampleRate>): AudioFrame {
    const samples = decoded.samplesDecoded;
    const channels = this.channels;
    const planes = decoded.channelData;
    const data = new Int16Array(samples * channels);
    for (let i = 0; i < samples; i++) {
      for (let c = 0; c < channels; c++) data[i * channels + c] = toInt16(planes[c]![i]!);
    }
    return new AudioFrame(data, this.decodeRate, channels, samples);
  }
}

/** A float sample in [-1, 1] as 16-bit PCM, clamped. */
function toInt16(value: number): number {
  const scaled = Math.round(value * 32768);
  return Math.min(32767, Math.max(-32768, scaled));
}
