import {
  APIConnectionError,
  APIError,
  APIStatusError,
  APITimeoutError,
} from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeepgramSTT } from './stt.js';
import { silenceFrames, speechFrames } from './testing/coded-speech.js';
import { type FakeDeepgramServer, startFakeDeepgram } from './testing/fake-deepgram-server.js';
import { recorder } from './testing/helpers.js';

const KEY = 'test-key-0123456789';
let server: FakeDeepgramServer;
beforeEach(async () => {
  server = await startFakeDeepgram({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

const stt = (options: ConstructorParameters<typeof DeepgramSTT>[0] = {}) =>
  new DeepgramSTT({ apiKey: KEY, baseUrl: server.url, retry: { initialDelayMs: 1, jitter: 0 }, ...options });
const utterance = () => [...speechFrames(['table', 'for', 'two']), ...silenceFrames(100)];

describe('DeepgramSTT.recognize (REST)', () => {
  it('posts the utterance as WAV with the key and options, and returns words and confidence', async () => {
    const { onMetrics, metrics } = recorder();
    const alternatives = await stt({ keyterms: ['Voxwire'], smartFormat: true, onMetrics }).recognize(
      utterance(),
      {
        sampleRate: 16_000,
        language: 'en-GB',
      },
    );
    expect(alternatives).toHaveLength(1);
    expect(alternatives[0]).toMatchObject({ text: 'Table for two', confidence: 0.9, language: 'en-GB' });
    expect(alternatives[0]!.words.map((w) => [w.word, w.startMs, w.endMs])).toEqual([
      ['table', 0, 300],
      ['for', 400, 700],
      ['two', 800, 1_100],
    ]);
    const request = server.requests[0]!;
    expect(request.authorization).toBe(`Token ${KEY}`);
    expect(request.contentType).toBe('audio/wav');
    expect(Object.fromEntries(request.query)).toMatchObject({
      model: 'nova-3',
      smart_format: 'true',
      punctuate: 'true',
      language: 'en-GB',
      keyterm: 'Voxwire',
    });
    expect(metrics).toEqual([
      expect.objectContaining({
        type: 'recognize',
        audioDurationMs: 1_200,
        requestId: 'req-0001',
        error: undefined,
      }),
    ]);
  });

  it('uses the detected language when none is configured, and returns empty text for no audio', async () => {
    const [best] = await stt().recognize(speechFrames(['hello']), { sampleRate: 16_000 });
    expect(best).toMatchObject({ text: 'Hello', language: 'en' });
    expect(await stt().recognize([], { sampleRate: 16_000 })).toEqual([
      { text: '', words: [], startMs: 0, endMs: 0 },
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('401 is a non-retryable APIStatusError with a hint, tried once', async () => {
    const bad = new DeepgramSTT({ apiKey: 'wrong-key-abcdefgh', baseUrl: server.url });
    const error = await bad.recognize(utterance(), { sampleRate: 16_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIStatusError);
    expect(error).toMatchObject({ statusCode: 401, retryable: false, requestId: 'req-0001' });
    expect((error as Error).message).toMatch(/HTTP 401: Invalid credentials\. \(check the API key/);
    expect(server.requests).toHaveLength(1);
  });

  it('429 and 500 are retried (reported as retrying), then the transcript comes', async () => {
    const { onProblem, problems } = recorder();
    server.restFaults.push(
      { status: 429, body: { err_msg: 'rate limited' }, headers: { 'retry-after': '0' } },
      { status: 500, body: { err_msg: 'boom' } },
    );
    const [best] = await stt().recognize(utterance(), { sampleRate: 16_000, onProblem });
    expect(best?.text).toBe('Table for two');
    expect(server.requests).toHaveLength(3);
    expect(problems.map((p) => [p.type, 'error' in p ? (p.error as APIStatusError).statusCode : 0])).toEqual([
      ['retrying', 429],
      ['retrying', 500],
    ]);
  });

  it('gives up after the policy with the last status error', async () => {
    for (let i = 0; i < 3; i++) server.restFaults.push({ status: 503, body: { err_msg: 'down' } });
    const error = await stt({ retry: { maxRetries: 1, initialDelayMs: 1 } })
      .recognize(utterance(), { sampleRate: 16_000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 503, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  it('a malformed answer is a non-retryable APIError', async () => {
    server.restFaults.push('malformed');
    const error = await stt()
      .recognize(utterance(), { sampleRate: 16_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(/not JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it('a slow answer times out per attempt (APITimeoutError) and is retried', async () => {
    server.restFaults.push({ delayMs: 500 });
    const { onProblem, problems } = recorder();
    const [best] = await stt({ requestTimeoutMs: 100 }).recognize(utterance(), {
      sampleRate: 16_000,
      onProblem,
    });
    expect(best?.text).toBe('Table for two');
    expect(problems).toHaveLength(1);
    expect((problems[0] as { error: Error }).error).toBeInstanceOf(APITimeoutError);
  });

  it('an unreachable server is an APIConnectionError; an abort rejects with the reason', async () => {
    const address = server.url;
    await server.close();
    server = await startFakeDeepgram({ apiKey: KEY });
    const error = await new DeepgramSTT({ apiKey: KEY, baseUrl: address, retry: { maxRetries: 0 } })
      .recognize(utterance(), { sampleRate: 16_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);

    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      stt().recognize(utterance(), { sampleRate: 16_000, signal: controller.signal }),
    ).rejects.toThrow('stop');
    await expect(stt().recognize(utterance(), { sampleRate: 8_000 })).rejects.toThrow(/8000 Hz/);
  });
});
