/**
 * LiveKit's pre-connect audio buffer, as its client SDKs send it: a frontend records the microphone
 * while the agent is still being dispatched, and once an agent is active in the room sends that audio
 * to it as one byte stream on `lk.agent.pre-connect-audio-buffer`. The stream's attributes name the
 * microphone track it belongs to (`trackId`) and the recording's `sampleRate` and `channels`; the
 * track's publication carries the `TF_PRECONNECT_BUFFER` audio feature.
 *
 * What the SDKs send, read in their sources: the Swift (and other native) SDKs record raw 16-bit
 * little-endian PCM (24 kHz mono) and declare no MIME type; the web SDK records with `MediaRecorder`,
 * `audio/webm;codecs=opus` (or `video/mp4` where WebM is not supported, on Safari). This module
 * decodes raw PCM. Compressed recordings are refused with a `PreConnectAudioError` of reason
 * `unsupported_format`: Voxwire ships no Opus/AAC decoder (no native or WASM codec dependency).
 */
import { AudioFrame, type AudioFrameLike } from '@voxwire/agents';
import { AudioResampler, FrameChunker, toMono } from '@voxwire/agents/provider-utils';

export const PRE_CONNECT_AUDIO_TOPIC = 'lk.agent.pre-connect-audio-buffer';
export const PRE_CONNECT_ATTRIBUTE_TRACK_ID = 'trackId';
export const PRE_CONNECT_ATTRIBUTE_SAMPLE_RATE = 'sampleRate';
export const PRE_CONNECT_ATTRIBUTE_CHANNELS = 'channels';

export type PreConnectAudioErrorReason =
  /** The stream's MIME type is not raw PCM (e.g. the web SDK's Opus in WebM). */
  | 'unsupported_format'
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

/** MIME types that mean raw 16-bit PCM, or that the sender named none (the native SDKs). */
function isRawPcm(mimeType: string): boolean {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  return (
    type === '' ||
    type === 'application/octet-stream' ||
    type === 'audio/pcm' ||
    type === 'audio/l16' ||
    type === 'audio/raw'
  );
}

export interface PreConnectStreamFormat {
  trackSid: string;
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
  if (!isRawPcm(mimeType)) {
    throw new PreConnectAudioError(
      'unsupported_format',
      `pre-connect audio in ${mimeType} is not supported (only raw 16-bit PCM is decoded; the web SDK's ` +
        'Opus recording is not): the words spoken before the agent joined are lost',
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
  return { trackSid, sampleRate, channels };
}

/**
 * Raw PCM bytes in, frames in the session's format out: whole 20 ms frames of the recording, converted
 * to the wanted channel count (down-mixed to mono first when they differ) and resampled.
 */
export class PcmToSessionFormat {
  private readonly chunker: FrameChunker;
  private readonly resampler: AudioResampler;

  constructor(
    source: { sampleRate: number; channels: number },
    private readonly target: { sampleRate: number; channels: number },
  ) {
    this.chunker = new FrameChunker({
      sampleRate: source.sampleRate,
      channels: source.channels,
      durationMs: 20,
    });
    this.resampler = new AudioResampler(source.sampleRate, target.sampleRate, {
      channels: source.channels === target.channels ? target.channels : 1,
    });
  }

  push(bytes: Uint8Array): AudioFrame[] {
    return this.convert(this.chunker.pushBytes(bytes));
  }

  /** The rest: a last partial frame and the resampler's tail. */
  flush(): AudioFrame[] {
    return [...this.convert(this.chunker.flush()), ...this.resampler.flush().map((f) => this.spread(f))];
  }

  private convert(frames: AudioFrameLike[]): AudioFrame[] {
    const out: AudioFrame[] = [];
    for (const frame of frames) {
      const matched = frame.channels === this.target.channels ? frame : toMono(frame);
      for (const resampled of this.resampler.push(matched)) out.push(this.spread(resampled));
    }
    return out;
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
