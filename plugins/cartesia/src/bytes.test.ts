import { APIConnectionError, APIStatusError } from '@voxwire/agents';
import type { ProviderProblem } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeCartesiaServer } from './testing/fake-cartesia-server.js';
import { distinct, drain, KEY, speak, ttsFor } from './testing/helpers.js';

let server: FakeCartesiaServer;

beforeEach(async () => {
  server = await FakeCartesiaServer.start({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

describe('CartesiaTTS.synthesize() over /tts/bytes', () => {
  it('posts the generation request and yields the PCM body as frames', async () => {
    const { tts, metrics } = ttsFor(server, { frameSizeMs: 10 });
    const spoken = await drain(tts.synthesize('A whole sentence at once.'));
    expect(spoken.error).toBeUndefined();
    expect(spoken.ms).toBeCloseTo('A whole sentence at once.'.length * 10, 5);
    expect(distinct(spoken.chunks.map((c) => c.frame.durationMs))).toEqual([10]);
    expect(distinct(spoken.tags)).toEqual([1000]);
    const [request] = server.bytesRequests;
    expect(request!.headers['x-api-key']).toBe(KEY);
    expect(request!.headers['cartesia-version']).toBe('2025-04-16');
    expect(request!.body).toEqual({
      model_id: 'sonic-3',
      voice: { mode: 'id', id: expect.any(String) },
      language: 'en',
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 },
      transcript: 'A whole sentence at once.',
    });
    expect(metrics).toMatchObject([
      { endpoint: 'bytes', characters: 25, audioDurationMs: spoken.ms, attempts: 1, cancelled: false },
    ]);
  });

  it('retries 500 and 429 (honouring retry-after) before the first byte', async () => {
    server.faults.bytesStatuses = [{ status: 500 }, { status: 429, retryAfter: '0' }];
    const { tts, metrics } = ttsFor(server);
    const problems: ProviderProblem[] = [];
    const spoken = await drain(tts.synthesize('Third time lucky.', { onProblem: (p) => problems.push(p) }));
    expect(spoken.error).toBeUndefined();
    expect(spoken.ms).toBeGreaterThan(0);
    expect(server.bytesRequests).toHaveLength(3);
    expect(problems).toMatchObject([
      { type: 'retrying', attempt: 1, error: { statusCode: 500 } },
      { type: 'retrying', attempt: 2, error: { statusCode: 429 } },
    ]);
    expect(metrics[0]).toMatchObject({ attempts: 3, error: undefined });
  });

  it('gives up after the policy with the last status', async () => {
    server.faults.bytesStatuses = [{ status: 503 }, { status: 503 }];
    const { tts } = ttsFor(server, { retry: { maxRetries: 1, initialDelayMs: 1 } });
    const spoken = await drain(tts.synthesize('Never.'));
    expect(spoken.error).toBeInstanceOf(APIStatusError);
    expect(spoken.error).toMatchObject({ statusCode: 503, retryable: true });
  });

  it('does not retry a refused key and says where the key comes from', async () => {
    const { tts } = ttsFor(server, { apiKey: 'not-the-key' });
    const problems: ProviderProblem[] = [];
    const spoken = await drain(tts.synthesize('Hello.', { onProblem: (p) => problems.push(p) }));
    expect(spoken.error).toMatchObject({ statusCode: 401, retryable: false });
    expect((spoken.error as Error).message).toContain('CARTESIA_API_KEY');
    expect(problems).toHaveLength(0);
  });

  it('reports a body cut off after audio as a connection error, without retrying', async () => {
    server.faults.bytesCutOff = true;
    const { tts } = ttsFor(server);
    const spoken = await drain(tts.synthesize('This body is cut off half way through its audio.'));
    expect(spoken.chunks.length).toBeGreaterThan(0);
    expect(spoken.error).toBeInstanceOf(APIConnectionError);
    expect(server.bytesRequests).toHaveLength(1);
  });

  it('ends quietly when aborted', async () => {
    const { tts, metrics } = ttsFor(server);
    const controller = new AbortController();
    let frames = 0;
    for await (const _ of tts.synthesize('Stop me after the first frame, please.', {
      signal: controller.signal,
    })) {
      frames++;
      controller.abort();
    }
    expect(frames).toBe(1);
    expect(metrics[0]).toMatchObject({ cancelled: true, error: undefined });
  });
});

describe('the API key never shows in errors', () => {
  const SECRET = 'sk-cartesia-SENTINEL-5f1e2d3c';

  it('not when a server echoes it in an error body', async () => {
    server = await restartWith(SECRET);
    server.faults.bytesEchoKey = 400;
    const { tts } = ttsFor(server, { apiKey: SECRET });
    const spoken = await drain(tts.synthesize('Hello.'));
    expect(spoken.error).toBeInstanceOf(APIStatusError);
    expect((spoken.error as Error).message).toContain('bad request from key');
    expectClean(spoken.error, SECRET);
  });

  it('not when the WebSocket refuses it, nor when Cartesia quotes it in an error message', async () => {
    const refused = ttsFor(server, { apiKey: SECRET });
    const spoken = await speak(refused.tts, ['Hello.']).done;
    expect(spoken.error).toMatchObject({ statusCode: 401 });
    expectClean(spoken.error, SECRET);
    expectClean(refused.metrics[0]!.error, SECRET);

    server = await restartWith(SECRET);
    server.faults.errorOn = { text: 'Hello', statusCode: 400, message: `invalid key ${SECRET}` };
    const { tts } = ttsFor(server, { apiKey: SECRET });
    const quoted = await speak(tts, ['Hello.']).done;
    expect((quoted.error as Error).message).toContain('invalid key [Redacted]');
    expectClean(quoted.error, SECRET);
    await tts.close();
  });
});

async function restartWith(key: string): Promise<FakeCartesiaServer> {
  await server.close();
  return FakeCartesiaServer.start({ apiKey: key });
}

function expectClean(error: unknown, secret: string): void {
  expect(error).toBeInstanceOf(Error);
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    expect(current.message).not.toContain(secret);
    expect(current.stack ?? '').not.toContain(secret);
    expect(JSON.stringify((current as { body?: unknown }).body ?? null)).not.toContain(secret);
    current = current.cause;
  }
}
