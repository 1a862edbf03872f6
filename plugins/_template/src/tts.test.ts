import { APIConnectionError, APIError, APIStatusError, APITimeoutError } from '@voxwire/agents';
import { concatenateFrames, type SynthesizedAudio } from '@voxwire/agents/provider-utils';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeServer, fakeSpeech, startFakeServer } from './testing/fake-server.js';
import { EchoTTS } from './tts.js';

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.faults = {};
});

async function collect(audio: AsyncIterable<SynthesizedAudio>, stopAfter = Number.POSITIVE_INFINITY) {
  const chunks: SynthesizedAudio[] = [];
  try {
    for await (const chunk of audio) if (chunks.push(chunk) >= stopAfter) break;
  } catch (error) {
    return { chunks, error };
  }
  return { chunks, error: undefined };
}

describe('EchoTTS', () => {
  it('POSTs the text and yields the PCM body as 20 ms frames, byte-exact across odd chunk boundaries', async () => {
    const tts = new EchoTTS({ baseUrl: fake.url, apiKey: 'key' });
    const { chunks, error } = await collect(tts.synthesize('hello world'));

    expect(error).toBeUndefined();
    const durations = chunks.map(({ frame }) => frame.durationMs);
    expect(durations).toEqual([...Array(27).fill(20), 10]); // 11 characters x 50 ms = 550 ms
    expect(chunks.every(({ frame }) => frame.sampleRate === 24_000 && frame.channels === 1)).toBe(true);
    expect(concatenateFrames(chunks.map(({ frame }) => frame)).data).toEqual(fakeSpeech('hello world'));
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ path: '/v1/speak', body: { text: 'hello world' } });
    expect(request.headers.authorization).toBe('Bearer key');
    expect(await request.outcome).toBe('completed');
  });

  it.each([
    [429, true],
    [500, true],
    [400, false],
  ])(
    'HTTP %s is an APIStatusError (retryable %s) that keeps retry-after and the request id',
    async (status, retryable) => {
      fake.faults = { status };
      const { chunks, error } = await collect(new EchoTTS({ baseUrl: fake.url }).synthesize('hi'));
      expect(chunks).toEqual([]);
      expect(error).toBeInstanceOf(APIStatusError);
      expect(error).toMatchObject({
        statusCode: status,
        retryable,
        requestId: 'req_fake',
        body: { retryAfter: '3', text: '{"error":"fault injected"}' },
      });
    },
  );

  it('a connection dropped mid-body throws a retryable APIConnectionError after the audio received', async () => {
    fake.faults = { drop: true };
    const { chunks, error } = await collect(new EchoTTS({ baseUrl: fake.url }).synthesize('hello world'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ retryable: true });
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.length).toBeLessThan(28);
  });

  it('a body that is not audio/pcm is a non-retryable APIError', async () => {
    fake.faults = { malformed: true };
    const { error } = await collect(new EchoTTS({ baseUrl: fake.url }).synthesize('hi'));
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ retryable: false, message: expect.stringContaining('text/html') });
  });

  it('a server too slow to answer is a retryable APITimeoutError', async () => {
    fake.faults = { slowMs: 300 };
    const { error } = await collect(new EchoTTS({ baseUrl: fake.url, timeoutMs: 50 }).synthesize('hi'));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toMatchObject({ retryable: true });
  });

  it('abort mid-body ends iteration quietly and closes the request', async () => {
    fake.faults = { slowMs: 10 };
    const controller = new AbortController();
    const tts = new EchoTTS({ baseUrl: fake.url });
    const audio = tts.synthesize('hello world', { signal: controller.signal });
    const chunks: SynthesizedAudio[] = [];
    for await (const chunk of audio) {
      chunks.push(chunk);
      controller.abort(); // after the first frame; iteration must end without throwing
    }
    expect(chunks).toHaveLength(1);
    expect(await fake.requests.at(-1)!.outcome).toBe('aborted');
  });

  it('abort while waiting for the response ends quietly at once', async () => {
    fake.faults = { slowMs: 1_000 };
    const tts = new EchoTTS({ baseUrl: fake.url });
    const started = Date.now();
    const { chunks, error } = await collect(tts.synthesize('hi', { signal: AbortSignal.timeout(50) }));
    expect({ chunks, error }).toEqual({ chunks: [], error: undefined });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('stopping the iteration early releases the connection', async () => {
    fake.faults = { slowMs: 10 };
    const { chunks } = await collect(new EchoTTS({ baseUrl: fake.url }).synthesize('hello world'), 2);
    expect(chunks).toHaveLength(2);
    expect(await fake.requests.at(-1)!.outcome).toBe('aborted');
  });
});
