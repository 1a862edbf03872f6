// Opus pre-connect recordings: the Ogg and WebM demuxers and the decoder, on real Opus packets (two
// short tones encoded with libopus, in ./fixtures) laid out as browsers' MediaRecorder writes WebM.
import { readFileSync } from 'node:fs';
import type { AudioFrame } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { writeWebm, type WebmLacing } from '../testing/webm-writer.js';
import { OggOpusDemuxer } from './ogg-opus.js';
import { OpusFormatError, type OpusHead } from './opus-head.js';
import { OpusToSessionFormat } from './opus-to-session-format.js';
import { WebmOpusDemuxer } from './webm-opus.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const monoOgg = fixture('tone-440hz-mono.opus.ogg'); // 600 ms of 440 Hz, 48 kHz mono, 20 ms frames
const stereoOgg = fixture('tones-440-660hz-stereo.opus.ogg'); // 300 ms, 440 Hz left, 660 Hz right

function demux(
  demuxer: { push(chunk: Uint8Array): { head: OpusHead | undefined; packets: Uint8Array[] } },
  bytes: Uint8Array,
  chunk: number,
) {
  const packets: Uint8Array[] = [];
  let head: OpusHead | undefined;
  for (let at = 0; at < bytes.length; at += chunk) {
    const out = demuxer.push(bytes.subarray(at, at + chunk));
    head = out.head ?? head;
    packets.push(...out.packets);
  }
  return { head, packets };
}

/** The OpusHead of an Ogg Opus file: its first packet, as WebM carries it in CodecPrivate. */
function opusHeadBytes(ogg: Uint8Array): Uint8Array {
  const segments = ogg[26]!;
  return ogg.slice(27 + segments, 27 + segments + ogg[27]!);
}

async function decodeAll(bytes: Uint8Array, target: { sampleRate: number; channels: number }, chunk = 997) {
  const decoder = new OpusToSessionFormat(target);
  const frames: AudioFrame[] = [];
  for (let at = 0; at < bytes.length; at += chunk)
    frames.push(...(await decoder.push(bytes.subarray(at, at + chunk))));
  frames.push(...(await decoder.flush()));
  decoder.close();
  return { frames, decodeErrors: decoder.decodeErrors };
}

/** Samples of one channel across frames. */
function channel(frames: AudioFrame[], c = 0): Int16Array {
  const total = frames.reduce((n, f) => n + f.samplesPerChannel, 0);
  const out = new Int16Array(total);
  let at = 0;
  for (const f of frames) {
    for (let i = 0; i < f.samplesPerChannel; i++) out[at++] = f.data[i * f.channels + c]!;
  }
  return out;
}

/** Rising zero crossings per second: the frequency of a pure tone. */
function frequency(samples: Int16Array, sampleRate: number): number {
  // Skip the codec's fade-in at the start.
  const start = Math.floor(sampleRate * 0.05);
  let crossings = 0;
  for (let i = start + 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
  return crossings / ((samples.length - start) / sampleRate);
}

describe('Ogg Opus demuxer', () => {
  it('reads the header and every packet, whatever the chunking', () => {
    const whole = demux(new OggOpusDemuxer(), monoOgg, monoOgg.length);
    expect(whole.head).toMatchObject({ channels: 1, inputSampleRate: 48_000, mappingFamily: 0 });
    expect(whole.head!.preSkip).toBeGreaterThan(0);
    // 600 ms in 20 ms frames (the encoder may add one to flush its look-ahead).
    expect(whole.packets.length).toBeGreaterThanOrEqual(30);
    expect(whole.packets.length).toBeLessThanOrEqual(31);
    const byteByByte = demux(new OggOpusDemuxer(), monoOgg, 1);
    expect(byteByByte.packets).toEqual(whole.packets);
  });

  it('refuses what is not Ogg, and Ogg that is not Opus', () => {
    expect(() => new OggOpusDemuxer().push(new Uint8Array(64).fill(7))).toThrow(OpusFormatError);
    const vorbis = monoOgg.slice();
    vorbis[27 + vorbis[26]! + 1] = 0x76; // "OpusHead" -> "OvusHead"
    expect(() => new OggOpusDemuxer().push(vorbis)).toThrow(expect.objectContaining({ unsupported: true }));
  });
});

describe('WebM Opus demuxer', () => {
  const { head, packets } = demux(new OggOpusDemuxer(), monoOgg, monoOgg.length);
  const codecPrivate = opusHeadBytes(monoOgg);

  it.each<WebmLacing>(['none', 'xiph', 'ebml'])(
    'reads MediaRecorder-style WebM with %s lacing, byte by byte',
    (lacing) => {
      const webm = writeWebm(packets, { codecPrivate, lacing });
      const out = demux(new WebmOpusDemuxer(), webm, 1);
      expect(out.head).toEqual(head);
      expect(out.packets).toEqual(packets);
      expect(demux(new WebmOpusDemuxer(), webm, 4096).packets).toEqual(packets);
    },
  );

  it('reads fixed lacing, ignores other tracks, and does without CodecPrivate', () => {
    const same = Array.from({ length: 9 }, (_, i) => new Uint8Array(40).fill(i));
    const out = demux(
      new WebmOpusDemuxer(),
      writeWebm(same, { lacing: 'fixed', decoyTrack: true, channels: 2 }),
      13,
    );
    expect(out.packets).toEqual(same);
    expect(out.head).toEqual({ channels: 2, preSkip: 0, inputSampleRate: 48_000, mappingFamily: 0 });
  });

  it('refuses a WebM stream without an Opus track, and what is not WebM', () => {
    expect(() => demux(new WebmOpusDemuxer(), writeWebm(packets, { codecId: 'A_VORBIS' }), 100)).toThrow(
      expect.objectContaining({ unsupported: true }),
    );
    expect(() => new WebmOpusDemuxer().push(new TextEncoder().encode('not webm at all'))).toThrow(
      OpusFormatError,
    );
  });
});

describe('OpusToSessionFormat', () => {
  it('decodes Ogg Opus to the session rate: the tone, at its length', async () => {
    const { frames, decodeErrors } = await decodeAll(monoOgg, { sampleRate: 24_000, channels: 1 });
    expect(decodeErrors).toBe(0);
    expect(frames.every((f) => f.sampleRate === 24_000 && f.channels === 1)).toBe(true);
    const samples = channel(frames);
    // 600 ms, less the encoder delay, plus at most the encoder's flush frame.
    expect(samples.length / 24).toBeGreaterThan(580);
    expect(samples.length / 24).toBeLessThan(625);
    expect(frequency(samples, 24_000)).toBeGreaterThan(420);
    expect(frequency(samples, 24_000)).toBeLessThan(460);
    expect(Math.max(...samples)).toBeGreaterThan(8000);
  });

  it("decodes the web SDK's WebM (stereo here) into a mono 16 kHz session, and resamples for other rates", async () => {
    const { packets } = demux(new OggOpusDemuxer(), stereoOgg, stereoOgg.length);
    const webm = writeWebm(packets, { codecPrivate: opusHeadBytes(stereoOgg), channels: 2, lacing: 'xiph' });
    const mono = await decodeAll(webm, { sampleRate: 16_000, channels: 1 }, 61);
    expect(mono.frames.every((f) => f.sampleRate === 16_000 && f.channels === 1)).toBe(true);
    expect(channel(mono.frames).length / 16).toBeGreaterThan(280);

    const stereo = await decodeAll(webm, { sampleRate: 44_100, channels: 2 });
    expect(stereo.frames.every((f) => f.sampleRate === 44_100 && f.channels === 2)).toBe(true);
    // Each channel keeps its own tone (a short clip: the crossing count is coarse).
    const left = frequency(channel(stereo.frames, 0), 44_100);
    const right = frequency(channel(stereo.frames, 1), 44_100);
    expect(left).toBeGreaterThan(415);
    expect(left).toBeLessThan(465);
    expect(right).toBeGreaterThan(635);
    expect(right).toBeLessThan(685);
  });

  it('refuses a recording in neither container', async () => {
    const decoder = new OpusToSessionFormat({ sampleRate: 24_000, channels: 1 });
    await expect(decoder.push(new TextEncoder().encode('RIFF....WAVE'))).rejects.toThrow(
      expect.objectContaining({ unsupported: true }),
    );
  });
});
