import { APIStatusError, APITimeoutError, AudioFrame, InvalidAudioError, type VAD } from '@voxwire/agents';
import {
  AudioResampler,
  Channel,
  type ProviderProblem,
  SPECIFICATION_VERSION,
  encodeWav,
  type STTEvent,
  STTStreamAdapter,
  type VADEvent,
} from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STT, STT_SAMPLE_RATE, type STTOptions } from './stt.js';
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
  it('is a batch recognizer of specification v1 that asks for 16 kHz', () => {
    const stt = makeSTT();
    expect(stt.specificationVersion).toBe(SPECIFICATION_VERSION);
    expect(stt.kind).toBe('batch');
    expect(stt.inputSampleRates).toEqual([16_000]);
    expect(STT_SAMPLE_RATE).toBe(16_000);
    expect(stt).not.toHaveProperty('stream');
  });

  it('recognizes an utterance by uploading it as WAV', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: '  hello world ' }));
    const stt = makeSTT({ language: 'en', prompt: 'Voxwire' });
    const frames = [tone(160), tone(160, 16_000, 160)];
    const result = await stt.recognize(frames, { sampleRate: 16_000 });
    expect(result).toEqual([{ text: 'hello world', language: 'en' }]);
    const fields = Object.fromEntries(server.requests[0]!.fields.map((f) => [f.name, f]));
    expect(fields.model!.data.toString()).toBe('gpt-4o-mini-transcribe');
    expect(fields.language!.data.toString()).toBe('en');
    expect(fields.prompt!.data.toString()).toBe('Voxwire');
    expect(fields.response_format!.data.toString()).toBe('json');
    expect(fields.file!.filename).toBe('audio.wav');
    expect(Buffer.compare(fields.file!.data, Buffer.from(encodeWav(frames)))).toBe(0);
  });

  it('uploads the WAV at the rate it was given: 16 kHz from the session', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: 'hi' }), jsonResponse(200, { text: 'hi' }));
    const stt = makeSTT();
    // 100 ms of 16 kHz audio, as the session sends it after resampling.
    await stt.recognize([tone(1_600)], { sampleRate: stt.inputSampleRates[0]! });
    const wav = wavHeader(server.requests[0]!);
    expect(wav).toEqual({ sampleRate: 16_000, byteRate: 32_000, channels: 1, dataBytes: 3_200 });
    // A caller that opened its stream at another rate gets that rate in the header.
    await stt.recognize([tone(2_400, 24_000)], { sampleRate: 24_000 });
    expect(wavHeader(server.requests[1]!)).toEqual({
      sampleRate: 24_000,
      byteRate: 48_000,
      channels: 1,
      dataBytes: 4_800,
    });
  });

  it('uploads a third of the bytes once 48 kHz browser audio is resampled to the rate it asks for', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: 'hi' }));
    const stt = makeSTT();
    // What the session does with a 48 kHz microphone: resample to the recognizer's preferred rate.
    const resampler = new AudioResampler(48_000, stt.inputSampleRates[0]!);
    const frames = [
      ...resampler.push(tone(4_800, 48_000)),
      ...resampler.push(tone(4_800, 48_000, 4_800)),
      ...resampler.flush(),
    ];
    await stt.recognize(frames, { sampleRate: 16_000 });
    const wav = wavHeader(server.requests[0]!);
    expect(wav.sampleRate).toBe(16_000);
    // 200 ms of mono 16-bit audio at 16 kHz, give or take the resampler's edge.
    expect(Math.abs(wav.dataBytes - 6_400)).toBeLessThanOrEqual(64);
  });

  it('refuses frames at another rate than the one it was given', async () => {
    const error = await makeSTT()
      .recognize([tone(480, 48_000)], { sampleRate: 16_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAudioError);
    expect((error as Error).message).toContain('48000');
    expect(server.requests).toHaveLength(0);
  });

  it('lets a call override the language', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: 'bonjour' }));
    const result = await makeSTT({ language: 'en' }).recognize([tone(100)], {
      language: 'fr',
      sampleRate: 16_000,
    });
    expect(result).toEqual([{ text: 'bonjour', language: 'fr' }]);
    const fields = Object.fromEntries(server.requests[0]!.fields.map((f) => [f.name, f]));
    expect(fields.language!.data.toString()).toBe('fr');
  });

  it('skips the request for empty audio', async () => {
    const result = await makeSTT().recognize([], { sampleRate: 16_000 });
    expect(result).toEqual([{ text: '' }]);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a 401 typed and does not retry it', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, errorResponse(401, 'bad key'));
    const problems: ProviderProblem[] = [];
    const error = await makeSTT({ retry: { maxRetries: 2 } })
      .recognize([tone(100)], { sampleRate: 16_000, onProblem: (p) => problems.push(p) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it('does not retry by default, since the session retries recognize()', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, errorResponse(500, 'oops'), jsonResponse(200, { text: 'never' }));
    const error = await makeSTT()
      .recognize([tone(100)], { sampleRate: 16_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('retries server errors when asked to, and reports each retry to onProblem', async () => {
    server.enqueue(
      TRANSCRIPTIONS_PATH,
      errorResponse(500, 'oops'),
      jsonResponse(200, { text: 'second time' }),
    );
    const stt = makeSTT({ retry: { maxRetries: 1, initialDelayMs: 1, jitter: 0 } });
    const problems: ProviderProblem[] = [];
    const result = await stt.recognize([tone(100)], {
      sampleRate: 16_000,
      onProblem: (p) => problems.push(p),
    });
    expect(result[0]!.text).toBe('second time');
    expect(server.requests).toHaveLength(2);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 1, error: expect.any(APIStatusError) },
    ]);
    expect(problems[0]).toMatchObject({ error: { statusCode: 500 } });
  });

  it('times out a request that never answers', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, { steps: [{ kind: 'stall' }] });
    const error = await withTimeout(
      makeSTT({ timeoutMs: 400 })
        .recognize([tone(100)], { sampleRate: 16_000 })
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
    const pending = makeSTT().recognize([tone(100)], { signal: controller.signal, sampleRate: 16_000 });
    // Abort once the server holds the request: after a fixed 50 ms a loaded machine may not have sent it.
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const error = await withTimeout(
      pending.catch((e: unknown) => e),
      2_000,
      'aborted transcription',
    );
    expect((error as Error).name).toBe('AbortError');
    expect(await withTimeout(server.requests[0]!.closedEarly, 2_000, 'connection close')).toBe(true);
  });

  it('streams through the core adapter with a VAD, at the stream rate', async () => {
    server.enqueue(TRANSCRIPTIONS_PATH, jsonResponse(200, { text: 'hello' }));
    const stt = makeSTT();
    const stream = new STTStreamAdapter(stt, oneUtteranceVAD()).stream({ sampleRate: 16_000 });
    stream.pushFrame(tone(160));
    stream.pushFrame(tone(160, 16_000, 160));
    stream.endInput();
    const events: STTEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events).toEqual([
      { type: 'start_of_speech' },
      { type: 'final_transcript', alternatives: [{ text: 'hello' }] },
      { type: 'end_of_speech' },
    ]);
    const file = server.requests[0]!.fields.find((f) => f.name === 'file')!;
    expect(file.data.length).toBe(44 + 320 * 2);
    expect(wavHeader(server.requests[0]!).sampleRate).toBe(16_000);
  });
});

/** The format fields of the uploaded WAV file. */
function wavHeader(request: { fields: ReadonlyArray<{ name: string; data: Buffer }> }): {
  sampleRate: number;
  byteRate: number;
  channels: number;
  dataBytes: number;
} {
  const file = request.fields.find((f) => f.name === 'file')!.data;
  expect(file.subarray(0, 4).toString('ascii')).toBe('RIFF');
  expect(file.subarray(8, 12).toString('ascii')).toBe('WAVE');
  const dataBytes = file.readUInt32LE(40);
  expect(file.length).toBe(44 + dataBytes);
  return {
    sampleRate: file.readUInt32LE(24),
    byteRate: file.readUInt32LE(28),
    channels: file.readUInt16LE(22),
    dataBytes,
  };
}

/** A VAD that reports everything pushed before `endInput()` as one utterance. */
function oneUtteranceVAD(): VAD {
  return {
    specificationVersion: SPECIFICATION_VERSION,
    label: 'fake.VAD',
    stream() {
      const events = new Channel<VADEvent>({ capacity: 16, overflow: 'block' });
      const frames: AudioFrame[] = [];
      let pushedMs = 0;
      return {
        pushFrame(frame) {
          if (frames.length === 0) {
            events.trySend({ type: 'start_of_speech', timestampMs: 0, speechDurationMs: 0, frames: [frame] });
          }
          frames.push(frame);
          pushedMs += frame.durationMs;
        },
        endInput() {
          events.trySend({
            type: 'end_of_speech',
            timestampMs: pushedMs,
            silenceDurationMs: 0,
            frames: [...frames],
          });
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
