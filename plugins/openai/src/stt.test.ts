import {
  APIStatusError,
  APITimeoutError,
  AudioFrame,
  Channel,
  encodeWav,
  type STTEvent,
  type VAD,
  type VADEvent,
} from '@voxwire/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIConfigError } from './client.js';
import { STT, type STTOptions } from './stt.js';
import {
  type FakeOpenAIServer,
  TRANSCRIPTIONS_PATH,
  errorResponse,
  jsonResponse,
  startFakeOpenAIServer,
} from './testing/fake-openai-server.js';
import { withTimeout } from './testing/helpers.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await startFakeOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

function makeSTT(options: STTOptions = {}): STT {
  return new STT({ apiKey: 'k', baseURL: server.baseURL, clientOptions: { logLevel: 'off' }, ...options });
}

function tone(samples: number, sampleRate = 16_000, offset = 0): AudioFrame {
  const data = new Int16Array(samples);
  for (let i = 0; i < samples; i++) data[i] = (((i + offset) * 37) % 65_536) - 32_768;
  return new AudioFrame(data, sampleRate, 1, samples);
}

describe('STT', () => {
  it('recognizes an utterance by uploading it as WAV', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: '  hello world ' }));
    const stt = makeSTT({ language: 'en', prompt: 'Voxwire' });
    const frames = [tone(160), tone(160, 16_000, 160)];
    const result = await stt.recognize(frames);
    expect(result).toEqual({
      type: 'final_transcript',
      alternatives: [{ text: 'hello world', language: 'en' }],
    });
    expect(stt.capabilities.streaming).toBe(false);
    const fields = Object.fromEntries(server.requests[0]!.fields.map((f) => [f.name, f]));
    expect(fields.model!.data.toString()).toBe('gpt-4o-mini-transcribe');
    expect(fields.language!.data.toString()).toBe('en');
    expect(fields.prompt!.data.toString()).toBe('Voxwire');
    expect(fields.response_format!.data.toString()).toBe('json');
    expect(fields.file!.filename).toBe('audio.wav');
    expect(Buffer.compare(fields.file!.data, Buffer.from(encodeWav(frames)))).toBe(0);
  });

  it('lets a call override the language', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: 'bonjour' }));
    const result = await makeSTT({ language: 'en' }).recognize([tone(100)], { language: 'fr' });
    expect(result.alternatives[0]).toEqual({ text: 'bonjour', language: 'fr' });
  });

  it('skips the request for empty audio', async () => {
    const result = await makeSTT().recognize([]);
    expect(result.alternatives).toEqual([{ text: '' }]);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a 401 typed and does not retry it', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, errorResponse(401, 'bad key'));
    const error = await makeSTT({ retry: { maxRetries: 2 } })
      .recognize([tone(100)])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('retries server errors when asked to', async () => {
    server.enqueue(
      TRANSCRIPTIONS_PATH,
      errorResponse(500, 'oops'),
      jsonResponse(200, { text: 'second time' }),
    );
    const stt = makeSTT({ retry: { maxRetries: 1, initialDelayMs: 1 } });
    expect((await stt.recognize([tone(100)])).alternatives[0]!.text).toBe('second time');
    expect(server.requests).toHaveLength(2);
  });

  it('times out a request that never answers', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, { steps: [{ kind: 'stall' }] });
    const error = await withTimeout(
      makeSTT({ timeoutMs: 400 })
        .recognize([tone(100)])
        .catch((e: unknown) => e),
      3_000,
      'stalled transcription',
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });

  it('rejects with the abort reason and drops the request when aborted', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, { steps: [{ kind: 'stall' }] });
    const controller = new AbortController();
    const pending = makeSTT().recognize([tone(100)], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await withTimeout(
      pending.catch((e: unknown) => e),
      2_000,
      'aborted transcription',
    );
    expect((error as Error).name).toBe('AbortError');
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });

  it('streams through the core adapter when given a VAD', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: 'hello' }));
    const stt = makeSTT({ vad: oneUtteranceVAD() });
    const stream = stt.stream();
    stream.pushFrame(tone(160));
    stream.pushFrame(tone(160, 16_000, 160));
    stream.endInput();
    const events: STTEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.find((e) => e.type === 'final_transcript')).toEqual({
      type: 'final_transcript',
      alternatives: [{ text: 'hello' }],
    });
    const file = server.requests[0]!.fields.find((f) => f.name === 'file')!;
    expect(file.data.length).toBe(44 + 320 * 2);
  });

  it('explains how to stream when no VAD was given', () => {
    expect(() => makeSTT().stream()).toThrow(OpenAIConfigError);
    expect(() => makeSTT().stream()).toThrow(/STTStreamAdapter/);
  });
});

/** A VAD that reports everything pushed before `endInput()` as one utterance. */
function oneUtteranceVAD(): VAD {
  return {
    label: 'fake.VAD',
    capabilities: { updateIntervalMs: 10 },
    minSilenceDurationMs: 100,
    minSpeechDurationMs: 10,
    stream() {
      const events = new Channel<VADEvent>({ capacity: 16, overflow: 'block' });
      const frames: AudioFrame[] = [];
      const boundary = { timestampMs: 0, speechDurationMs: 0, silenceDurationMs: 0 };
      return {
        pushFrame(frame) {
          if (frames.length === 0) events.trySend({ type: 'start_of_speech', ...boundary, frames: [frame] });
          frames.push(frame);
        },
        endInput() {
          events.trySend({ type: 'end_of_speech', ...boundary, frames: [...frames] });
          events.close();
        },
        async close() {
          events.dispose();
        },
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}
