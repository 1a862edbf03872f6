import { type AudioFrame, InvalidAudioError } from '@voxwire/agents';

const HEADER_BYTES = 44;

/** Encodes frames as one 16-bit PCM WAV file in memory. All frames must share rate and channel count. */
export function encodeWav(frames: readonly AudioFrame[]): Uint8Array {
  const first = frames[0];
  if (!first) throw new InvalidAudioError('cannot encode a WAV file from zero frames');
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
  const bytes = new Uint8Array(HEADER_BYTES + dataBytes);
  const view = new DataView(bytes.buffer);
  const blockAlign = first.channels * 2;
  writeAscii(view, 0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  writeAscii(view, 8, 'WAVE');
  writeAscii(view, 12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, first.channels, true);
  view.setUint32(24, first.sampleRate, true);
  view.setUint32(28, first.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, 16, true);
  writeAscii(view, 36, 'data');
  view.setUint32(40, dataBytes, true);
  let offset = HEADER_BYTES;
  for (const frame of frames) {
    // DataView keeps the file little-endian whatever the host's byte order.
    for (const sample of frame.data) {
      view.setInt16(offset, sample, true);
      offset += 2;
    }
  }
  return bytes;
}

function writeAscii(view: DataView, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i));
}
