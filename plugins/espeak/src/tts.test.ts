import { execFileSync } from 'node:child_process';
import { concatenateFrames, rmsDbfs, TTSStreamAdapter } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { EspeakNotFoundError } from './errors.js';
import { EspeakTTS } from './tts.js';
import { StreamingWavReader } from './wav-reader.js';

function espeakInstalled(): boolean {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const installed = espeakInstalled();
if (!installed && !process.env.CI)
  console.warn('espeak-ng missing (apt-get install -y espeak-ng): synthesis tests skipped');

function wavBytes(samples: number[], rate = 22050): Uint8Array {
  const data = new Uint8Array(samples.length * 2);
  const view = new DataView(data.buffer);
  samples.forEach((s, i) => {
    view.setInt16(i * 2, s, true);
  });
  const header = new Uint8Array(44 + 10);
  const h = new DataView(header.buffer);
  const put = (offset: number, text: string) => {
    for (let i = 0; i < 4; i++) header[offset + i] = text.charCodeAt(i);
  };
  put(0, 'RIFF');
  h.setUint32(4, 0x7ffff000, true);
  put(8, 'WAVE');
  put(12, 'LIST'); // an extra chunk before fmt, as some writers add
  h.setUint32(16, 2, true);
  put(22, 'fmt ');
  h.setUint32(26, 16, true);
  h.setUint16(30, 1, true);
  h.setUint16(32, 1, true);
  h.setUint32(34, rate, true);
  h.setUint32(38, rate * 2, true);
  h.setUint16(42, 2, true);
  h.setUint16(44, 16, true);
  put(46, 'data');
  h.setUint32(50, 0x7ffff000, true);
  const out = new Uint8Array(header.byteLength + data.byteLength);
  out.set(header);
  out.set(data, header.byteLength);
  return out;
}

describe('StreamingWavReader', () => {
  it('reads samples across arbitrary chunk boundaries, odd ones included', () => {
    const samples = Array.from({ length: 100 }, (_, i) => (i % 2 ? -i * 100 : i * 100));
    const bytes = wavBytes(samples);
    for (const size of [1, 3, 7, 64, bytes.byteLength]) {
      const reader = new StreamingWavReader();
      const got: number[] = [];
      for (let i = 0; i < bytes.byteLength; i += size) got.push(...reader.push(bytes.subarray(i, i + size)));
      expect(got).toEqual(samples);
      expect(reader.format).toEqual({ sampleRate: 22050, channels: 1 });
    }
  });

  it('refuses what is not 16-bit PCM WAV', () => {
    expect(() => new StreamingWavReader().push(new TextEncoder().encode('ID3 this is an mp3 file'))).toThrow(
      /not a RIFF\/WAVE/,
    );
  });
});

describe('EspeakTTS', () => {
  it('says how to install espeak-ng when the program is missing', async () => {
    await expect(EspeakTTS.check('/nonexistent/espeak-ng')).rejects.toThrow(/sudo apt-get install espeak-ng/);
    const tts = new EspeakTTS({ binary: '/nonexistent/espeak-ng' });
    const run = async () => {
      for await (const _ of tts.synthesize('hello')) {
        // nothing is produced
      }
    };
    await expect(run()).rejects.toBeInstanceOf(EspeakNotFoundError);
  });

  it('validates its options', () => {
    expect(() => new EspeakTTS({ wordsPerMinute: 1000 })).toThrow(/wordsPerMinute/);
    expect(() => new EspeakTTS({ voice: 'en; rm -rf /' })).toThrow(/voice/);
  });

  it.skipIf(!installed)('streams speech as 22.05 kHz frames of the configured length', async () => {
    expect(await EspeakTTS.check()).toMatch(/eSpeak NG/);
    const tts = new EspeakTTS();
    const chunks = [];
    for await (const chunk of tts.synthesize('Hello from the offline voice of Voxwire.')) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(10);
    // Every frame but the remainder at the end has the default 40 ms.
    expect(chunks.slice(0, -1).every((c) => Math.abs(c.frame.durationMs - 40) < 0.1)).toBe(true);
    const audio = concatenateFrames(chunks.map((c) => c.frame));
    expect(audio.sampleRate).toBe(22050);
    expect(audio.durationMs).toBeGreaterThan(1500);
    expect(rmsDbfs(audio)).toBeGreaterThan(-40);
  });

  it.skipIf(!installed)('stops at once when aborted, leaving no process behind', async () => {
    const tts = new EspeakTTS();
    const controller = new AbortController();
    let frames = 0;
    const long = 'This sentence goes on and on. '.repeat(40);
    for await (const _ of tts.synthesize(long, { signal: controller.signal })) {
      if (++frames === 3) controller.abort();
    }
    expect(frames).toBe(3);
  });

  it.skipIf(!installed)('streams text sentence by sentence through the core adapter', async () => {
    const stream = new TTSStreamAdapter(new EspeakTTS()).stream();
    stream.pushText('First sentence here. ');
    stream.pushText('And a second one.');
    stream.endInput();
    let ms = 0;
    for await (const chunk of stream) ms += chunk.frame.durationMs;
    await stream.close();
    expect(ms).toBeGreaterThan(1500);
  });
});
