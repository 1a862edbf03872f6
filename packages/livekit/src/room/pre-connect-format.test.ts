import { AudioFrame } from '@voxwire/agents';
import { frameToBytes } from '@voxwire/agents/provider-utils';
import { describe, expect, it } from 'vitest';
import { PcmToSessionFormat, PreConnectAudioError, preConnectStreamFormat } from './pre-connect-format.js';

const attributes = { trackId: 'TR_mic', sampleRate: '24000', channels: '1' };

function sine(sampleRate: number, channels: number, ms: number, hz = 440): AudioFrame {
  const samples = Math.round((sampleRate * ms) / 1000);
  const data = new Int16Array(samples * channels);
  for (let i = 0; i < samples; i++) {
    const v = Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / sampleRate));
    for (let c = 0; c < channels; c++) data[i * channels + c] = v;
  }
  return new AudioFrame(data, sampleRate, channels, samples);
}

async function convertAll(
  bytes: Uint8Array,
  source: { sampleRate: number; channels: number },
  target: { sampleRate: number; channels: number },
  pieces: number[],
): Promise<AudioFrame[]> {
  const converter = new PcmToSessionFormat(source, target);
  const out: AudioFrame[] = [];
  let at = 0;
  for (const size of pieces) {
    out.push(...(await converter.push(bytes.subarray(at, at + size))));
    at += size;
  }
  out.push(...(await converter.push(bytes.subarray(at))), ...(await converter.flush()));
  return out;
}

describe('pre-connect stream format', () => {
  it('reads the native SDKs raw PCM (no MIME type, octet-stream, audio/pcm) with its attributes', () => {
    for (const mime of ['', 'application/octet-stream', 'audio/pcm', 'audio/L16;rate=24000', 'audio/raw']) {
      expect(preConnectStreamFormat(mime, attributes, 'alice')).toEqual({
        trackSid: 'TR_mic',
        encoding: 'pcm',
        sampleRate: 24_000,
        channels: 1,
      });
    }
  });

  it("takes the web SDK's Opus in WebM, and Opus in Ogg", () => {
    for (const mime of ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg; codecs=opus', 'audio/opus']) {
      expect(preConnectStreamFormat(mime, attributes, 'alice').encoding).toBe('opus');
    }
    expect(preConnectStreamFormat('', attributes, 'alice').encoding).toBe('pcm');
  });

  it("refuses Safari's AAC in MP4 (and other codecs) with a typed unsupported_format error", () => {
    for (const mime of ['video/mp4', 'audio/mp4', 'audio/webm;codecs=vorbis', 'audio/mpeg']) {
      let caught: unknown;
      try {
        preConnectStreamFormat(mime, attributes, 'alice');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PreConnectAudioError);
      expect(caught).toMatchObject({
        reason: 'unsupported_format',
        details: { trackSid: 'TR_mic', participantIdentity: 'alice', mimeType: mime },
      });
    }
  });

  it('refuses streams without a track id or with unusable rates and channel counts', () => {
    const bad: Array<Record<string, string>> = [
      { sampleRate: '24000', channels: '1' },
      { ...attributes, sampleRate: 'fast' },
      { ...attributes, sampleRate: '100' },
      { ...attributes, channels: '0' },
      { ...attributes, channels: '1.5' },
      { trackId: 'TR_mic', channels: '1' },
    ];
    for (const attrs of bad) {
      expect(() => preConnectStreamFormat('', attrs, 'alice')).toThrow(
        expect.objectContaining({ reason: 'invalid_stream' }),
      );
    }
  });
});

describe('PcmToSessionFormat', () => {
  it('passes the session format through unchanged, whatever the byte chunking', async () => {
    const frame = sine(24_000, 1, 110);
    const bytes = frameToBytes(frame);
    const out = await convertAll(
      bytes,
      { sampleRate: 24_000, channels: 1 },
      { sampleRate: 24_000, channels: 1 },
      [1, 333, 7, 960, 5],
    );
    const samples = new Int16Array(out.reduce((n, f) => n + f.data.length, 0));
    let at = 0;
    for (const f of out) {
      samples.set(f.data, at);
      at += f.data.length;
    }
    expect(samples).toEqual(frame.data);
    expect(out.every((f) => f.sampleRate === 24_000 && f.channels === 1)).toBe(true);
  });

  it('down-mixes and resamples 48 kHz stereo to 16 kHz mono, keeping the duration', async () => {
    const bytes = frameToBytes(sine(48_000, 2, 500));
    const out = await convertAll(
      bytes,
      { sampleRate: 48_000, channels: 2 },
      { sampleRate: 16_000, channels: 1 },
      [4001],
    );
    const ms = out.reduce((n, f) => n + f.durationMs, 0);
    expect(ms).toBeCloseTo(500, 0);
    expect(out.every((f) => f.sampleRate === 16_000 && f.channels === 1)).toBe(true);
    // A 440 Hz tone survives: the middle of the output is not silent.
    const middle = out[Math.floor(out.length / 2)]!;
    expect(Math.max(...middle.data)).toBeGreaterThan(6000);
  });

  it('spreads a mono recording over a stereo session', async () => {
    const out = await convertAll(
      frameToBytes(sine(24_000, 1, 40)),
      { sampleRate: 24_000, channels: 1 },
      { sampleRate: 24_000, channels: 2 },
      [],
    );
    expect(out.every((f) => f.channels === 2)).toBe(true);
    const f = out[0]!;
    for (let i = 0; i < f.samplesPerChannel; i++) expect(f.data[2 * i]).toBe(f.data[2 * i + 1]);
  });
});
