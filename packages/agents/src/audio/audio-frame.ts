import { InvalidAudioError } from '../errors.js';

/**
 * The shape of a PCM frame. `@livekit/rtc-node`'s AudioFrame has the same fields, so transports pass
 * frames across without copying.
 */
export interface AudioFrameLike {
  /** Interleaved signed 16-bit samples: `samplesPerChannel * channels` values. */
  readonly data: Int16Array;
  readonly sampleRate: number;
  readonly channels: number;
  readonly samplesPerChannel: number;
}

export class AudioFrame implements AudioFrameLike {
  readonly data: Int16Array;
  readonly sampleRate: number;
  readonly channels: number;
  readonly samplesPerChannel: number;

  constructor(data: Int16Array, sampleRate: number, channels: number, samplesPerChannel: number) {
    if (!Number.isInteger(sampleRate) || sampleRate <= 0) {
      throw new InvalidAudioError(`sampleRate must be a positive integer, got ${sampleRate}`);
    }
    if (!Number.isInteger(channels) || channels <= 0) {
      throw new InvalidAudioError(`channels must be a positive integer, got ${channels}`);
    }
    if (data.length !== samplesPerChannel * channels) {
      throw new InvalidAudioError(
        `frame holds ${data.length} samples but ${samplesPerChannel} x ${channels} channels were declared`,
      );
    }
    this.data = data;
    this.sampleRate = sampleRate;
    this.channels = channels;
    this.samplesPerChannel = samplesPerChannel;
  }

  /** Wraps any structurally compatible frame (e.g. from `@livekit/rtc-node`) without copying. */
  static from(frame: AudioFrameLike): AudioFrame {
    if (frame instanceof AudioFrame) return frame;
    return new AudioFrame(frame.data, frame.sampleRate, frame.channels, frame.samplesPerChannel);
  }

  /** A frame of zeros. */
  static silence(sampleRate: number, channels: number, samplesPerChannel: number): AudioFrame {
    return new AudioFrame(
      new Int16Array(samplesPerChannel * channels),
      sampleRate,
      channels,
      samplesPerChannel,
    );
  }

  get durationMs(): number {
    return (this.samplesPerChannel * 1000) / this.sampleRate;
  }
}
