import { APIConnectionError, APIStatusError, APITimeoutError, type SynthesizedAudio } from '@voxwire/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeOpenAIServer,
  SPEECH_PATH,
  chunkedBytes,
  errorResponse,
  startFakeOpenAIServer,
} from './testing/fake-openai-server.js';
import { drain, withTimeout } from './testing/helpers.js';
import { TTS, type TTSOptions } from './tts.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

function makeTTS(options: TTSOptions = {}): TTS {
  return new TTS({
    apiKey: 'k',
    baseURL: server.baseURL,
    retry: { initialDelayMs: 1, jitter: 0 },
    clientOptions: { logLevel: 'off' },
    ...options,
  });
}

/** `count` samples of a ramp as little-endian PCM bytes. */
function pcm(count: number, start = 0): { samples: Int16Array; bytes: Uint8Array } {
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i++) samples[i] = ((start + i) * 97) % 30_000;
  const bytes = new Uint8Array(count * 2);
  const view = new DataView(bytes.buffer);
  for (const [i, s] of samples.entries()) view.setInt16(i * 2, s, true);
  return { samples, bytes };
}

function samplesOf(chunks: readonly SynthesizedAudio[]): number[] {
  return chunks.flatMap((c) => [...c.frame.data]);
}

describe('TTS.synthesize', () => {
  it('streams PCM bytes that arrive in odd-sized chunks as 20 ms frames of one segment', async () => {
    const { samples, bytes } = pcm(480 * 3 + 100);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [7, 1, 333, 2048, 5]));
    const tts = makeTTS({ voice: 'nova', speed: 1.2, instructions: 'calm' });
    const { items, error } = await drain(tts.synthesize('Hello there'));
    expect(error).toBeUndefined();
    expect(samplesOf(items)).toEqual([...samples]);
    expect(items.map((c) => c.frame.samplesPerChannel)).toEqual([480, 480, 480, 100]);
    expect(items.map((c) => c.final)).toEqual([false, false, false, true]);
    expect(new Set(items.map((c) => c.segmentId)).size).toBe(1);
    expect(items[0]!.frame.sampleRate).toBe(24_000);
    expect(tts.sampleRate).toBe(24_000);
    expect(server.requests[0]!.json).toEqual({
      model: 'gpt-4o-mini-tts',
      voice: 'nova',
      input: 'Hello there',
      response_format: 'pcm',
      speed: 1.2,
      instructions: 'calm',
    });
  });

  it('drops a trailing half sample instead of misreading it', async () => {
    const { samples, bytes } = pcm(10);
    server.enqueue(SPEECH_PATH, chunkedBytes(new Uint8Array([...bytes, 0x7f]), [3]));
    const { items } = await drain(makeTTS().synthesize('x'));
    expect(samplesOf(items)).toEqual([...samples]);
  });

  it('makes no request for blank text', async () => {
    const { items } = await drain(makeTTS().synthesize('   '));
    expect(items).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('retries a 429 before any audio', async () => {
    const { samples, bytes } = pcm(600);
    server.enqueue(SPEECH_PATH, errorResponse(429, 'slow down'), chunkedBytes(bytes, [1000]));
    const { items, error } = await drain(makeTTS().synthesize('x'));
    expect(error).toBeUndefined();
    expect(samplesOf(items)).toEqual([...samples]);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401', async () => {
    server.enqueue(SPEECH_PATH, errorResponse(401, 'bad key'));
    const { error } = await drain(makeTTS().synthesize('x'));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  it('surfaces a connection drop after audio without repeating it', async () => {
    const { bytes } = pcm(480 * 4);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [480 * 2 * 3], { ending: 'destroy', delayMs: 50 }));
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [4096]));
    const { items, error } = await drain(makeTTS().synthesize('x'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((c) => !c.final)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a stalled audio stream', async () => {
    const { bytes } = pcm(480 * 3);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [bytes.length], { ending: 'stall' }));
    const { items, error } = await withTimeout(
      drain(makeTTS({ timeoutMs: 400 }).synthesize('x')),
      3_000,
      'stall',
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(items).toHaveLength(2);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });

  it('ends quietly on abort and closes the HTTP stream', async () => {
    const { bytes } = pcm(480 * 3);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [bytes.length], { ending: 'stall' }));
    const controller = new AbortController();
    const items: SynthesizedAudio[] = [];
    await withTimeout(
      (async () => {
        for await (const chunk of makeTTS().synthesize('x', { signal: controller.signal })) {
          items.push(chunk);
          controller.abort();
        }
      })(),
      2_000,
      'aborted synthesis',
    );
    expect(items).toHaveLength(1);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });
});

describe('TTS.stream', () => {
  it('synthesizes one segment per flush, in order', async () => {
    const first = pcm(500);
    const second = pcm(300, 500);
    server.enqueue(SPEECH_PATH, chunkedBytes(first.bytes, [99]), chunkedBytes(second.bytes, [101]));
    const stream = makeTTS().stream();
    stream.pushText('Hello ');
    stream.pushText('there.');
    stream.flush();
    stream.flush();
    stream.pushText('Bye.');
    stream.endInput();
    const { items, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(server.requests.map((r) => (r.json as { input: string }).input)).toEqual(['Hello there.', 'Bye.']);
    const segments = [...new Set(items.map((c) => c.segmentId))];
    expect(segments).toHaveLength(2);
    expect(samplesOf(items.filter((c) => c.segmentId === segments[0]))).toEqual([...first.samples]);
    expect(samplesOf(items.filter((c) => c.segmentId === segments[1]))).toEqual([...second.samples]);
    expect(items.filter((c) => c.final)).toHaveLength(2);
    expect(() => stream.pushText('late')).toThrow();
    expect(() => stream.flush()).not.toThrow();
  });

  it('fails the iteration with the typed error of a segment', async () => {
    server.enqueue(SPEECH_PATH, errorResponse(400, 'bad voice'));
    const stream = makeTTS().stream();
    stream.pushText('x');
    stream.endInput();
    const { error } = await drain(stream);
    expect(error).toBeInstanceOf(APIStatusError);
  });

  it('stops synthesis and ends iteration on close', async () => {
    const { bytes } = pcm(480 * 3);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [bytes.length], { ending: 'stall' }));
    const stream = makeTTS().stream();
    stream.pushText('x');
    stream.flush();
    const items: SynthesizedAudio[] = [];
    await withTimeout(
      (async () => {
        for await (const chunk of stream) {
          items.push(chunk);
          await stream.close();
        }
      })(),
      2_000,
      'closed stream',
    );
    expect(items).toHaveLength(1);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });
});
