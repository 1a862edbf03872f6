/**
 * LiveKit's pre-connect audio buffer, as its client SDKs send it: a frontend records the microphone
 * while the agent is still being dispatched, and once an agent is active in the room sends that audio
 * to it as one byte stream on `lk.agent.pre-connect-audio-buffer`. The stream's attributes name the
 * microphone track it belongs to (`trackId`) and the recording's `sampleRate` and `channels`; the
 * track's publication carries the `TF_PRECONNECT_BUFFER` audio feature.
 *
 * What the SDKs send, read in their sources: the Swift (and other native) SDKs record raw 16-bit
 * little-endian PCM (24 kHz mono) and declare no MIME type; the web SDK records with `MediaRecorder`,
 * `audio/webm;codecs=opus`, or `video/mp4` (AAC) where WebM is not supported (Safari). Raw PCM and
 * Opus (in WebM or Ogg, mono or stereo) are decoded; anything else (AAC in MP4) is refused with a
 * `PreConnectAudioError` of reason `unsupported_format`.
 */
import { AudioFrame, type AudioFrameLike } from '@voxwire/agents';
import { AudioResampler, FrameChunker, toMono } from '@voxwire/agents/provider-utils';

export const PRE_CONNECT_AUDIO_TOPIC = 'lk.agent.pre-connect-audio-buffer';
export const PRE_CONNECT_ATTRIBUTE_TRACK_ID = 'trackId';
export const PRE_CONNECT_ATTRIBUTE_SAMPLE_RATE = 'sampleRate';
export const PRE_CONNECT_ATTRIBUTE_CHANNELS = 'channels';

export type PreConnectAudioErrorReason =
  /** Neither raw PCM nor Opus (e.g. Safari's AAC in MP4), or Opus in a layout no microphone produces. */
  | 'unsupported_format'
  /** The container or the Opus packets could not be decoded (a corrupt or truncated recording). */
  | 'decode_failed'
  /** `trackId`, `sampleRate` or `channels` is missing or not a usable number, or the bytes are not whole samples. */
  | 'invalid_stream'
  /** The stream did not finish within `preConnectAudioTimeoutMs` of the track being linked. */
  | 'timeout'
  /** Reading the stream failed (the sender went away, the room was left). */
  | 'read_failed';

/** Why a pre-connect audio buffer was not used, or was used only in part. */
export class PreConnectAudioError extends Error {
  override readonly name = 'PreConnectAudioError';

  constructor(
    readonly reason: PreConnectAudioErrorReason,
    message: string,
    readonly details: {
      trackSid?: string | undefined;
      participantIdentity?: string | undefined;
      mimeType?: string | undefined;
    } = {},
  ) {
    super(message);
  }
}

/** How a recording is encoded, from its MIME type; `undefined` when it is neither raw PCM nor Opus. */
export function preConnectEncoding(mimeType: string): 'pcm' | 'opus' | undefined {
  const [base = '', ...params] = mimeType.toLowerCase().split(';');
  const type = base.trim();
  // MIME types that mean raw 16-bit PCM, or no type at all (the native SDKs name none).
  if (['', 'application/octet-stream', 'audio/pcm', 'audio/l16', 'audio/raw'].includes(type)) return 'pcm';
  const codecs = params
    .find((p) => p.trim().startsWith('codecs='))
    ?.split('=')[1]
    ?.replace(/"/g, '')
    .trim();
  // A recorder's WebM is Opus unless it says otherwise; Ogg may be Vorbis, which the demuxer refuses.
  if ((type === 'audio/webm' || type === 'audio/ogg') && (codecs === undefined || codecs === 'opus')) {
    return 'opus';
  }
  if (type === 'audio/opus') return 'opus';
  return undefined;
}

export interface PreConnectStreamFormat {
  trackSid: string;
  encoding: 'pcm' | 'opus';
  /** The recording's rate and channels as the sender declared them (Opus streams carry their own). */
  sampleRate: number;
  channels: number;
}

/** Checks a stream's MIME type and attributes; throws a `PreConnectAudioError` for what cannot be used. */
export function preConnectStreamFormat(
  mimeType: string,
  attributes: Readonly<Record<string, string>>,
  participantIdentity: string,
): PreConnectStreamFormat {
  const trackSid = attributes[PRE_CONNECT_ATTRIBUTE_TRACK_ID] ?? '';
  const details = { trackSid: trackSid || undefined, participantIdentity, mimeType };
  const encoding = preConnectEncoding(mimeType);
  if (encoding === undefined) {
    throw new PreConnectAudioError(
      'unsupported_format',
      `pre-connect audio in ${mimeType} is not supported (raw 16-bit PCM and Opus in WebM or Ogg are): ` +
        'the words spoken before the agent joined are lost',
      details,
    );
  }
  const sampleRate = Number(attributes[PRE_CONNECT_ATTRIBUTE_SAMPLE_RATE]);
  const channels = Number(attributes[PRE_CONNECT_ATTRIBUTE_CHANNELS]);
  if (
    trackSid === '' ||
    !Number.isInteger(sampleRate) ||
    sampleRate < 8000 ||
    sampleRate > 192_000 ||
    !Number.isInteger(channels) ||
    channels < 1 ||
    channels > 8
  ) {
    throw new PreConnectAudioError(
      'invalid_stream',
      `pre-connect audio stream with unusable attributes ${JSON.stringify(attributes)}: needs trackId, ` +
        'sampleRate (8000-192000) and channels (1-8)',
      details,
    );
  }
  return { trackSid, encoding, sampleRate, channels };
}

/** Decodes one recording into frames of the session's format, chunk by chunk as its stream delivers it. */
export interface PreConnectDecoder {
  push(bytes: Uint8Array): Promise<AudioFrame[]>;
  /** The end of the stream: whatever was held back. */
  flush(): Promise<AudioFrame[]>;
  /** Releases what the decoder holds (Opus: its WASM instance). */
  close(): void;
}

/**
 * Frames of any rate, channel count and length in, 20 ms frames of the session's format out (as a live
 * track delivers them, so the VAD and STT see the same shape): the wanted channel count (down-mixed to
 * mono first when they differ, then copied to every channel) and rate.
 */
export class SessionFormatConverter {
  private readonly resampler: AudioResampler;
  private readonly chunker: FrameChunker;

  constructor(
    source: { sampleRate: number; channels: number },
    private readonly target: { sampleRate: number; channels: number },
  ) {
    this.resampler = new AudioResampler(source.sampleRate, target.sampleRate, {
      channels: source.channels === target.channels ? target.channels : 1,
    });
    this.chunker = new FrameChunker({ ...target, durationMs: 20 });
  }

  push(frames: readonly AudioFrameLike[]): AudioFrame[] {
    const out: AudioFrame[] = [];
    for (const frame of frames) {
      const matched = frame.channels === this.target.channels ? frame : toMono(frame);
      for (const resampled of this.resampler.push(matched))
        out.push(...this.chunker.push(this.spread(resampled)));
    }
    return out;
  }

  flush(): AudioFrame[] {
    const out: AudioFrame[] = [];
    for (const tail of this.resampler.flush()) out.push(...this.chunker.push(this.spread(tail)));
    return [...out, ...this.chunker.flush()];
  }

  /** Copies a mono frame into every wanted channel (a stereo session fed a mono recording). */
  private spread(frame: AudioFrame): AudioFrame {
    const channels = this.target.channels;
    if (frame.channels === channels) return frame;
    const samples = frame.samplesPerChannel;
    const data = new Int16Array(samples * channels);
    for (let i = 0; i < samples; i++) data.fill(frame.data[i]!, i * channels, (i + 1) * channels);
    return new AudioFrame(data, frame.sampleRate, channels, samples);
  }
}

/** Raw 16-bit little-endian PCM bytes in, 20 ms frames of the session's format out. */
export class PcmToSessionFormat implements PreConnectDecoder {
  private readonly chunker: FrameChunker;
  private readonly converter: SessionFormatConverter;

  constructor(
    source: { sampleRate: number; channels: number },
    target: { sampleRate: number; channels: number },
  ) {
    this.chunker = new FrameChunker({
      sampleRate: source.sampleRate,
      channels: source.channels,
      durationMs: 20,
    });
    this.converter = new SessionFormatConverter(source, target);
  }

  async push(bytes: Uint8Array): Promise<AudioFrame[]> {
    return this.converter.push(this.chunker.pushBytes(bytes));
  }

  async flush(): Promise<AudioFrame[]> {
    return [...this.converter.push(this.chunker.flush()), ...this.converter.flush()];
  }

  close(): void {}
}
