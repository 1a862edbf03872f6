import { APIConnectionError, APIStatusError, APITimeoutError } from '@voxwire/agents';
import {
  type ProviderProblem,
  SPECIFICATION_VERSION,
  SentenceTokenizer,
  type SynthesizedAudio,
  TTSStreamAdapter,
} from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeOpenAIServer,
  SPEECH_PATH,
  chunkedBytes,
  type RecordedRequest,
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
  it('is a batch synthesizer of specification v1 with 24 kHz mono output', () => {
    const tts = makeTTS();
    expect(tts.specificationVersion).toBe(SPECIFICATION_VERSION);
    expect(tts.kind).toBe('batch');
    expect(tts.sampleRate).toBe(24_000);
    expect(tts.numChannels).toBe(1);
    expect(tts).not.toHaveProperty('stream');
  });

  it('streams PCM bytes that arrive in odd-sized chunks as 20 ms frames', async () => {
    const { samples, bytes } = pcm(480 * 3 + 100);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [7, 1, 333, 2048, 5]));
    const tts = makeTTS({ voice: 'nova', speed: 1.2, instructions: 'calm' });
    const { items, error } = await drain(tts.synthesize('Hello there'));
    expect(error).toBeUndefined();
    expect(samplesOf(items)).toEqual([...samples]);
    expect(items.map((c) => c.frame.samplesPerChannel)).toEqual([480, 480, 480, 100]);
    // v1 chunks carry the frame only.
    expect(items.every((c) => Object.keys(c).join() === 'frame')).toBe(true);
    expect(items.every((c) => c.frame.sampleRate === 24_000 && c.frame.channels === 1)).toBe(true);
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

  it('retries a 429 before any audio and reports the retry to onProblem', async () => {
    const { samples, bytes } = pcm(600);
    server.enqueue(
      SPEECH_PATH,
      errorResponse(429, 'slow down', { 'retry-after-ms': '20' }),
      chunkedBytes(bytes, [1000]),
    );
    const problems: ProviderProblem[] = [];
    const { items, error } = await drain(
      makeTTS().synthesize('x', { onProblem: (problem) => problems.push(problem) }),
    );
    expect(error).toBeUndefined();
    expect(samplesOf(items)).toEqual([...samples]);
    expect(server.requests).toHaveLength(2);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 20, error: expect.any(APIStatusError) },
    ]);
    expect(problems[0]).toMatchObject({ error: { statusCode: 429 } });
  });

  it('does not retry a 401', async () => {
    server.enqueue(SPEECH_PATH, errorResponse(401, 'bad key'));
    const problems: ProviderProblem[] = [];
    const { error } = await drain(makeTTS().synthesize('x', { onProblem: (p) => problems.push(p) }));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect(server.requests).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it('surfaces a connection drop after audio without repeating it', async () => {
    const { samples, bytes } = pcm(480 * 4);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [480 * 2 * 3], { ending: 'destroy', delayMs: 50 }));
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [4096]));
    const problems: ProviderProblem[] = [];
    const { items, error } = await drain(makeTTS().synthesize('x', { onProblem: (p) => problems.push(p) }));
    expect(error).toBeInstanceOf(APIConnectionError);
    // Exactly what arrived before the drop, once: no retry, no partial last frame.
    expect(samplesOf(items)).toEqual([...samples.subarray(0, 480 * 3)]);
    expect(server.requests).toHaveLength(1);
    expect(problems).toEqual([]);
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
    // Frames are yielded as they arrive: all three came before the stall.
    expect(items).toHaveLength(3);
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

describe('TTS through the core sentence adapter', () => {
  /** Answers each request by its text, so that parallel requests cannot swap audio. */
  function byInput(answers: Record<string, Uint8Array>) {
    return (request: RecordedRequest) => {
      const input = (request.json as { input: string }).input;
      const bytes = answers[input];
      return bytes ? chunkedBytes(bytes, [99]) : errorResponse(400, `unexpected input ${input}`);
    };
  }

  function adapter(tts: TTS): TTSStreamAdapter {
    return new TTSStreamAdapter(tts, { tokenizer: new SentenceTokenizer({ minSentenceLength: 0 }) });
  }

  it('synthesizes one request per sentence, with the audio in order', async () => {
    const first = pcm(500);
    const second = pcm(300, 500);
    const answer = byInput({ 'Hello there.': first.bytes, 'Bye.': second.bytes });
    server.enqueue(SPEECH_PATH, answer, answer);
    const stream = adapter(makeTTS()).stream();
    stream.pushText('Hello ');
    stream.pushText('there.');
    stream.flush();
    stream.flush();
    stream.pushText('Bye.');
    stream.endInput();
    const { items, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(server.requests.map((r) => (r.json as { input: string }).input).sort()).toEqual([
      'Bye.',
      'Hello there.',
    ]);
    expect(samplesOf(items)).toEqual([...first.samples, ...second.samples]);
  });

  it('fails the iteration with the typed error of a sentence', async () => {
    server.enqueue(SPEECH_PATH, errorResponse(400, 'bad voice'));
    const stream = adapter(makeTTS()).stream();
    stream.pushText('x');
    stream.endInput();
    const { error } = await drain(stream);
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(400);
  });

  it('passes retries of a sentence on to the stream onProblem', async () => {
    const { samples, bytes } = pcm(200);
    server.enqueue(SPEECH_PATH, errorResponse(503, 'busy'), chunkedBytes(bytes, [64]));
    const problems: ProviderProblem[] = [];
    const stream = adapter(makeTTS()).stream({ onProblem: (p) => problems.push(p) });
    stream.pushText('x');
    stream.endInput();
    const { items, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(samplesOf(items)).toEqual([...samples]);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 1, error: expect.any(APIStatusError) },
    ]);
  });

  it('stops synthesis, ends iteration and closes the HTTP stream on close', async () => {
    const { bytes } = pcm(480 * 3);
    server.enqueue(SPEECH_PATH, chunkedBytes(bytes, [bytes.length], { ending: 'stall' }));
    const stream = adapter(makeTTS()).stream();
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
