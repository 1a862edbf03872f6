import { APIConnectionError, APIError, APIStatusError, APITimeoutError, AudioFrame } from '@voxwire/agents';
import type { ProviderProblem, STTEvent, STTStream } from '@voxwire/agents/provider-utils';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EchoSTT } from './stt.js';
import { type FakeServer, startFakeServer } from './testing/fake-server.js';

let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.faults = {};
});

/** 20 ms at 16 kHz whose samples all hold `index`, so the server side can tell the frames apart. */
const frame = (index: number) => new AudioFrame(new Int16Array(320).fill(index), 16_000, 1, 320);
const show = (event: STTEvent) =>
  'alternatives' in event ? `${event.type}:${event.alternatives[0]?.text}` : event.type;

async function collect(stream: STTStream): Promise<{ events: STTEvent[]; error?: unknown }> {
  const events: STTEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

describe('EchoSTT', () => {
  it('maps the protocol to events; flush() finalizes; endInput() ends iteration once the server closes', async () => {
    const stream = new EchoSTT({ baseUrl: fake.url }).stream({ sampleRate: 16_000, language: 'en' });
    const result = collect(stream);
    for (let index = 0; index < 3; index++) stream.pushFrame(frame(index)); // still connecting: buffered
    stream.flush();
    stream.pushFrame(frame(3));
    stream.endInput();
    stream.pushFrame(frame(4)); // after endInput: ignored
    const { events, error } = await result;

    expect(error).toBeUndefined();
    expect(events.map(show)).toEqual([
      'start_of_speech',
      'interim_transcript:20 ms',
      'interim_transcript:40 ms',
      'interim_transcript:60 ms',
      'final_transcript:60 ms',
      'end_of_speech',
      'start_of_speech',
      'interim_transcript:20 ms',
      'final_transcript:20 ms',
      'end_of_speech',
    ]);
    expect(events[4]).toEqual({
      type: 'final_transcript',
      alternatives: [{ text: '60 ms', confidence: 0.9, language: 'en' }],
    });
    const socket = fake.sockets.at(-1)!;
    expect(socket.url).toBe('/v1/listen?sample_rate=16000&language=en');
    expect(socket.audio.map((bytes) => bytes.readInt16LE(0))).toEqual([0, 1, 2, 3]);
    expect(socket.controls).toEqual(['finalize', 'close']);
    expect(await socket.closed).toBe(1000);
  });

  it('keeps a bounded buffer while connecting: the oldest audio goes, reported once through onProblem', async () => {
    fake.faults = { slowMs: 200 };
    const problems: ProviderProblem[] = [];
    const stt = new EchoSTT({ baseUrl: fake.url, maxBufferedMs: 60 });
    const stream = stt.stream({ sampleRate: 16_000, onProblem: (problem) => problems.push(problem) });
    const result = collect(stream);
    for (let index = 0; index < 5; index++) stream.pushFrame(frame(index));
    stream.endInput();
    const { events, error } = await result;

    expect(error).toBeUndefined();
    expect(events.map(show).at(-2)).toBe('final_transcript:60 ms');
    expect(fake.sockets.at(-1)!.audio.map((bytes) => bytes.readInt16LE(0))).toEqual([2, 3, 4]);
    expect(problems).toEqual([{ type: 'audio_dropped', droppedMs: 40, message: expect.any(String) }]);
  });

  it('keeps a bounded buffer while the network is behind: what cannot be sent is dropped and reported', async () => {
    const problems: ProviderProblem[] = [];
    const stt = new EchoSTT({ baseUrl: fake.url, maxBufferedMs: 100 });
    const stream = stt.stream({ sampleRate: 16_000, onProblem: (problem) => problems.push(problem) });
    const iterator = stream[Symbol.asyncIterator]();
    stream.pushFrame(frame(0));
    await iterator.next(); // connected
    const pushed = 20_000; // 400 s of audio in one go: far more than the socket buffers hold
    for (let index = 1; index <= pushed; index++) stream.pushFrame(frame(index % 1000));
    stream.endInput();
    while (!(await iterator.next()).done) {}

    const receivedMs = fake.sockets.at(-1)!.audio.length * 20;
    const droppedMs = problems.reduce(
      (sum, problem) => sum + ('droppedMs' in problem ? problem.droppedMs : 0),
      0,
    );
    expect(droppedMs).toBeGreaterThan(0);
    expect(receivedMs + droppedMs).toBe((pushed + 1) * 20);
  });

  it('a dropped connection ends iteration with a retryable APIConnectionError after the events before it', async () => {
    fake.faults = { drop: true };
    const stream = new EchoSTT({ baseUrl: fake.url }).stream({ sampleRate: 16_000 });
    const iterator = stream[Symbol.asyncIterator]();
    stream.pushFrame(frame(0));
    expect((await iterator.next()).value).toEqual({ type: 'start_of_speech' });
    expect(show((await iterator.next()).value)).toBe('interim_transcript:20 ms');
    stream.pushFrame(frame(1)); // the server drops the connection on the second frame

    const error = await iterator.next().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ retryable: true, message: expect.stringContaining('code 1006') });
  });

  it.each([
    [429, APIStatusError, true],
    [500, APIStatusError, true],
    [400, APIStatusError, false],
    ['bad_audio', APIError, false],
  ])('an error message with code %s ends iteration with %O (retryable %s)', async (code, type, retryable) => {
    fake.faults = { errorMessage: { code, message: 'injected' } };
    const stream = new EchoSTT({ baseUrl: fake.url }).stream({ sampleRate: 16_000 });
    stream.pushFrame(frame(0));
    const { events, error } = await collect(stream);

    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ retryable, message: expect.stringContaining('injected') });
    expect(error).not.toBeInstanceOf(APIConnectionError);
  });

  it.each([
    [401, false],
    [503, true],
  ])('a rejected upgrade (HTTP %s) is an APIStatusError (retryable %s)', async (status, retryable) => {
    fake.faults = { status };
    const { error } = await collect(new EchoSTT({ baseUrl: fake.url }).stream({ sampleRate: 16_000 }));
    expect(error).toBeInstanceOf(APIStatusError);
    expect(error).toMatchObject({ statusCode: status, retryable });
  });

  it('a malformed message is a non-retryable APIError that names the problem', async () => {
    fake.faults = { malformed: true };
    const stream = new EchoSTT({ baseUrl: fake.url }).stream({ sampleRate: 16_000 });
    stream.pushFrame(frame(0));
    const { error } = await collect(stream);
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect(error).toMatchObject({ retryable: false, message: expect.stringContaining('malformed') });
  });

  it('a server too slow to accept the connection is a retryable APITimeoutError', async () => {
    fake.faults = { slowMs: 300 };
    const stt = new EchoSTT({ baseUrl: fake.url, timeoutMs: 50 });
    const { error } = await collect(stt.stream({ sampleRate: 16_000 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toMatchObject({ retryable: true });
  });

  it('abort ends iteration quietly, drops undelivered events and closes the socket', async () => {
    const controller = new AbortController();
    const stream = new EchoSTT({ baseUrl: fake.url }).stream({
      sampleRate: 16_000,
      signal: controller.signal,
    });
    const iterator = stream[Symbol.asyncIterator]();
    stream.pushFrame(frame(0));
    stream.pushFrame(frame(1));
    expect((await iterator.next()).value).toEqual({ type: 'start_of_speech' });
    controller.abort();

    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(await fake.sockets.at(-1)!.closed).toBe(1006);
  });

  it('close() ends iteration quietly and releases the socket; an already aborted signal never connects', async () => {
    const stream = new EchoSTT({ baseUrl: fake.url }).stream({ sampleRate: 16_000 });
    const iterator = stream[Symbol.asyncIterator]();
    stream.pushFrame(frame(0));
    expect((await iterator.next()).value).toEqual({ type: 'start_of_speech' });
    await stream.close();
    stream.pushFrame(frame(1)); // after close: ignored
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const socket = fake.sockets.at(-1)!;
    expect(await socket.closed).toBe(1006);
    expect(socket.audio).toHaveLength(1);

    const connections = fake.sockets.length;
    const aborted = new EchoSTT({ baseUrl: fake.url }).stream({
      sampleRate: 16_000,
      signal: AbortSignal.abort(),
    });
    expect(await collect(aborted)).toEqual({ events: [] });
    expect(fake.sockets.length).toBe(connections);
  });
});
