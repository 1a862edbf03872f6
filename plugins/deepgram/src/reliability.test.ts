import { APIConnectionError, APIError, APITimeoutError } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeepgramSTT } from './stt.js';
import { silenceFrames, speechFrames } from './testing/coded-speech.js';
import { type FakeDeepgramServer, startFakeDeepgram } from './testing/fake-deepgram-server.js';
import { collect, finalText, pushPaced, recorder } from './testing/helpers.js';

const KEY = 'test-key-0123456789';
const SENTENCE = ['please', 'book', 'a', 'table', 'for', 'two', 'at', 'seven'];
let server: FakeDeepgramServer;
beforeEach(async () => {
  server = await startFakeDeepgram({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

const stt = (options: ConstructorParameters<typeof DeepgramSTT>[0] = {}) =>
  new DeepgramSTT({ apiKey: KEY, baseUrl: server.url, retry: { initialDelayMs: 10, jitter: 0 }, ...options });

/** Says the sentence, then enough silence for the last final, then ends the input. */
async function say(stream: ReturnType<DeepgramSTT['stream']>, words = SENTENCE): Promise<void> {
  await pushPaced(stream, [...speechFrames(words), ...silenceFrames(400)]);
  stream.endInput();
}

/** Every final word, in order, from the words of the finals (not their text). */
function finalWords(events: Awaited<ReturnType<typeof collect>>['events']): string[] {
  return events.flatMap((event) =>
    event.type === 'final_transcript'
      ? ((event.alternatives[0] as { words?: { word: string }[] }).words ?? []).map((w) => w.word)
      : [],
  );
}

describe('DeepgramSTT reliability', () => {
  it('a socket dropped mid-utterance reconnects, replays the unfinalized audio and loses no word', async () => {
    const { onProblem, problems, onMetrics, metrics } = recorder();
    server.liveFaults.push({ connection: 0, afterAudioMs: 1_500, action: 'drop' });
    // One long utterance: nothing is final before the drop, so all of it must be replayed.
    const stream = stt({ endpointingMs: 300, onMetrics }).stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    await say(stream);
    const { events, error } = await result;

    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(SENTENCE);
    expect(finalText(events)).toBe('Please book a table for two at seven');
    expect(server.connections).toHaveLength(2);
    // The second connection heard everything from the start: the first had finalized nothing.
    expect(server.connections[0]!.audioMs).toBeGreaterThanOrEqual(1_500);
    expect(server.connections[1]!.audioMs).toBe(3_500);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ type: 'reconnecting', attempt: 1 });
    expect((problems[0] as { error: Error }).error).toBeInstanceOf(APIConnectionError);
    const ended = metrics.find((m) => m.type === 'stream_ended');
    expect(ended).toMatchObject({ connections: 2, audioSentMs: 3_500, audioProcessedMs: 3_500 });
  });

  it('after a drop only the audio not yet finalized is sent again, and no word is reported twice', async () => {
    const { onProblem, problems } = recorder();
    server.liveFaults.push({ connection: 0, afterAudioMs: 1_700, action: 'drop' });
    // Endpointing shorter than the gaps: every word is its own final, so most audio is acknowledged.
    const stream = stt({ endpointingMs: 25 }).stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    await say(stream);
    const { events, error } = await result;

    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(SENTENCE);
    const [first, second] = server.connections;
    // 3.5 s in all; the replay did not start at 0: at least the first final (0.3 s) was acknowledged
    // long before the drop (how many more depends on how far the reader was when the socket broke).
    expect(first!.audioMs).toBeGreaterThanOrEqual(1_700);
    expect(second!.audioMs).toBeLessThanOrEqual(3_500 - 320);
    expect(problems.filter((p) => p.type === 'reconnecting')).toHaveLength(1);
    expect(problems.filter((p) => p.type === 'audio_dropped')).toEqual([]);
  });

  it('words of replayed audio that a final already reported are dropped (replay starts before the acknowledgement)', async () => {
    server.liveFaults.push({ connection: 0, afterAudioMs: 1_800, action: 'drop' });
    const stream = stt({ endpointingMs: 25 }).stream({ sampleRate: 16_000 });
    const result = collect(stream);
    // 200 ms frames: a final ends inside a frame, and that whole frame (with the end of a reported
    // word) is sent again.
    await pushPaced(
      stream,
      [...speechFrames(SENTENCE, { frameMs: 200 }), ...silenceFrames(400, { frameMs: 200 })],
      2,
    );
    stream.endInput();
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(SENTENCE);
    expect(finalText(events).toLowerCase()).toBe(SENTENCE.join(' '));
    const replayStartMs = 3_900 - server.connections[1]!.audioMs;
    // The replay began on a frame boundary before the last acknowledged position.
    expect(replayStartMs % 200).toBe(0);
    expect(replayStartMs).toBeGreaterThan(0);
  });

  it('a server close mid-utterance (1011) reconnects like a drop', async () => {
    const { onProblem, problems } = recorder();
    server.liveFaults.push({
      connection: 0,
      afterAudioMs: 1_200,
      action: { close: 1011, reason: 'NET-0001' },
    });
    const stream = stt({ endpointingMs: 300 }).stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    await say(stream);
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(SENTENCE);
    expect(problems[0]).toMatchObject({ type: 'reconnecting' });
    expect(String((problems[0] as { error: Error }).error.message)).toMatch(/1011: NET-0001/);
  });

  it('a close for bad data (1008) ends the stream with a non-retryable error', async () => {
    server.liveFaults.push({
      connection: 0,
      afterAudioMs: 500,
      action: { close: 1008, reason: 'DATA-0000' },
    });
    const stream = stt().stream({ sampleRate: 16_000 });
    const result = collect(stream);
    await pushPaced(stream, speechFrames(SENTENCE));
    const { error } = await result;
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(/1008: DATA-0000/);
    expect(server.connections).toHaveLength(1);
  });

  it('audio pushed while the server is closing does not turn its 1008 into a retryable break', async () => {
    server.liveFaults.push({
      connection: 0,
      afterAudioMs: 200,
      action: { close: 1008, reason: 'DATA-0000' },
    });
    const stream = stt().stream({ sampleRate: 16_000 });
    const result = collect(stream);
    let settled = false;
    void result.then(() => {
      settled = true;
    });
    // A frame every millisecond: some land between the server's close frame and the close event.
    const frame = silenceFrames(20)[0]!;
    for (let i = 0; i < 2_000 && !settled; i++) {
      stream.pushFrame(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    stream.endInput(); // were it still open, it would end now, and without the expected error
    const { error } = await result;
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(/1008: DATA-0000/);
    expect(server.connections).toHaveLength(1);
  });

  it('429 and 503 on the upgrade are retried with backoff, honouring retry-after', async () => {
    const { onProblem, problems } = recorder();
    server.refuseUpgrades.push(
      {
        status: 429,
        body: { err_code: 'TOO_MANY_REQUESTS', err_msg: 'slow down' },
        headers: { 'retry-after': '0' },
      },
      { status: 503, body: { err_msg: 'overloaded' } },
    );
    const stream = stt().stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    await say(stream, ['hello', 'world']);
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(['hello', 'world']);
    expect(server.upgradeAttempts).toBe(3);
    expect(problems.map((p) => p.type)).toEqual(['retrying', 'retrying']);
    expect((problems[0] as { error: Error }).error).toMatchObject({ statusCode: 429, retryable: true });
    expect((problems[0] as { error: Error }).error.message).toMatch(/HTTP 429: slow down/);
    expect((problems[1] as { error: Error }).error).toMatchObject({ statusCode: 503 });
  });

  it('gives up after the policy’s retries with an APIConnectionError', async () => {
    for (let i = 0; i < 5; i++) server.refuseUpgrades.push({ status: 500 });
    const stream = stt({ retry: { maxRetries: 2, initialDelayMs: 1, jitter: 0 } }).stream({
      sampleRate: 16_000,
    });
    const result = collect(stream);
    stream.pushFrame(silenceFrames(20)[0]!);
    const { error } = await result;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/could not connect in 3 attempt\(s\).*HTTP 500/);
    expect(server.upgradeAttempts).toBe(3);
  });

  it('a malformed message is reported as a warning and the stream goes on', async () => {
    const { onProblem, problems } = recorder();
    server.liveFaults.push({ connection: 0, afterAudioMs: 800, action: 'malformed' });
    const stream = stt({ endpointingMs: 300 }).stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    await say(stream);
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(SENTENCE);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ type: 'warning' });
    expect((problems[0] as { message: string }).message).toMatch(/malformed message: \{"type": "Results"/);
    expect(server.connections).toHaveLength(1);
  });

  it('a slow server still delivers every word; endInput() waits for it within the bound', async () => {
    server.slowMs = 150;
    const stream = stt({ endpointingMs: 300 }).stream({ sampleRate: 16_000 });
    const result = collect(stream);
    await say(stream, ['how', 'are', 'you', 'today']);
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(finalWords(events)).toEqual(['how', 'are', 'you', 'today']);
  });

  it('a server too slow to close after endInput() fails the stream with APITimeoutError', async () => {
    server.slowMs = 400;
    const stream = stt({ endInputTimeoutMs: 100 }).stream({ sampleRate: 16_000 });
    const result = collect(stream);
    stream.pushFrame(silenceFrames(20)[0]!);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stream.endInput();
    const { error } = await result;
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(/within 100 ms of endInput/);
  });

  it('a connection that stops draining is replaced instead of buffering audio without a bound', async () => {
    const { onProblem, problems } = recorder();
    server.liveFaults.push({ connection: 0, afterAudioMs: 100, action: 'stall' });
    const stream = stt({ replayCapacityMs: 1_000 }).stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    const second = silenceFrames(1_000, { frameMs: 1_000 })[0]!;
    // Far more than the kernel's socket buffers hold: the client's own buffer must start to grow.
    for (let i = 0; i < 400 && server.connections.length < 2; i++) {
      stream.pushFrame(second);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await stream.close();
    await result;
    const reconnecting = problems.find((p) => p.type === 'reconnecting') as { error: Error } | undefined;
    expect(reconnecting?.error.message).toMatch(/stopped draining/);
    expect(server.connections.length).toBeGreaterThanOrEqual(2);
  });

  it('audio that outgrows the replay buffer during an outage is reported as dropped', async () => {
    const { onProblem, problems } = recorder();
    server.liveFaults.push({ connection: 0, afterAudioMs: 1_500, action: 'drop' });
    // Nothing is final before the drop, and the buffer holds less than what was said.
    const stream = stt({ endpointingMs: 300, replayCapacityMs: 1_000 }).stream({
      sampleRate: 16_000,
      onProblem,
    });
    const result = collect(stream);
    await say(stream);
    const { events, error } = await result;
    expect(error).toBeUndefined();
    const dropped = problems.filter((p) => p.type === 'audio_dropped');
    expect(dropped).toHaveLength(1);
    expect((dropped[0] as { droppedMs: number }).droppedMs).toBeGreaterThan(0);
    // What is left is still in order and without duplicates.
    const words = finalWords(events);
    expect(words).toEqual(SENTENCE.slice(SENTENCE.length - words.length));
  });
});
