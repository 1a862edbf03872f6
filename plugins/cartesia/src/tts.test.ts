import { APIConnectionError, APIError, APIStatusError, APITimeoutError } from '@voxwire/agents';
import type { ProviderProblem } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CartesiaConfigError } from './errors.js';
import { FakeCartesiaServer } from './testing/fake-cartesia-server.js';
import { distinct, drain, KEY, speak, ttsFor, until } from './testing/helpers.js';
import { CartesiaTTS } from './tts.js';

let server: FakeCartesiaServer;
const opened: CartesiaTTS[] = [];

beforeEach(async () => {
  server = await FakeCartesiaServer.start({ apiKey: KEY });
});
afterEach(async () => {
  for (const tts of opened.splice(0)) await tts.close();
  await server.close();
});

function make(options: Parameters<typeof ttsFor>[1] = {}) {
  const made = ttsFor(server, options);
  opened.push(made.tts);
  return made;
}

describe('CartesiaTTS.stream()', () => {
  it('streams text as it arrives, flushes at sentence ends, ends the context, and yields its audio in order', async () => {
    const { tts, metrics } = make();
    const text = ['Hello', ' there', ', how are', ' you today?', ' I am', ' fine', ' thanks.'];
    const { stream, done } = speak(tts, text);
    const spoken = await done;
    expect(spoken.error).toBeUndefined();

    const [connection] = server.connections;
    expect(server.connections).toHaveLength(1);
    expect(connection!.headers['x-api-key']).toBe(KEY);
    expect(connection!.headers['cartesia-version']).toBe('2025-04-16');
    const sent = connection!.messages;
    // Every message of the context carries the same generation fields and the same context id.
    expect(distinct(sent.map((m) => m.context_id as unknown as number))).toEqual([stream.contextId]);
    for (const m of sent) {
      expect(m).toMatchObject({
        model_id: 'sonic-3',
        language: 'en',
        voice: { mode: 'id' },
        output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 },
      });
    }
    const shape = sent.map((m) => (m.flush ? 'flush' : m.continue === false ? 'end' : 'text'));
    expect(shape.at(-1)).toBe('end');
    expect(shape.filter((s) => s === 'flush')).toHaveLength(1);
    expect(shape.slice(0, shape.indexOf('flush'))).toEqual(['text', 'text', 'text', 'text', 'text']);
    expect(sent.every((m) => m.add_timestamps === true)).toBe(true);
    // What Cartesia heard is exactly what was pushed, and the flush fell right after the question mark.
    const beforeFlush = sent
      .slice(0, shape.indexOf('flush'))
      .map((m) => m.transcript)
      .join('');
    expect(beforeFlush).toBe('Hello there, how are you today?');
    expect(sent.map((m) => m.transcript).join('')).toBe(text.join(''));

    // 10 ms of audio per character, in 20 ms frames, all from this context.
    const chars = text.join('').length;
    expect(spoken.ms).toBeCloseTo(chars * 10, 5);
    expect(distinct(spoken.tags)).toEqual([1000]);
    expect(spoken.chunks.every((c) => c.frame.sampleRate === 24_000 && c.frame.channels === 1)).toBe(true);

    // Word timestamps, in ms from the start of the speech, on the chunks and on the stream.
    expect(stream.words.map((w) => w.word)).toEqual(text.join('').trim().split(/\s+/));
    expect(stream.words[0]).toEqual({ word: 'Hello', startMs: 0, endMs: 50 });
    const second = stream.words.find((w) => w.word === 'I')!;
    expect(second.startMs).toBe(' Hello there, how are you today? '.length * 10 - 10);
    // Each chunk carries the words that arrived before it; the last ones ride on the final partial frame.
    expect(spoken.chunks.flatMap((c) => c.words ?? [])).toEqual(stream.words);
    expect(spoken.chunks[0]!.words).toBeUndefined();

    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({
      endpoint: 'websocket',
      label: 'cartesia/sonic-3',
      contextId: stream.contextId,
      characters: chars,
      audioDurationMs: spoken.ms,
      attempts: 1,
      cancelled: false,
      error: undefined,
    });
    expect(metrics[0]!.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(metrics[0]!.durationMs).toBeGreaterThanOrEqual(metrics[0]!.ttfbMs!);
  });

  it('sends voice embeddings, language, generation controls and buffer delay as Cartesia names them', async () => {
    const { tts } = make({
      voice: [0.1, 0.2],
      language: 'fr',
      model: 'sonic-2',
      generationConfig: { speed: 1.2, emotion: 'calm' },
      experimentalControls: { speed: 'fast' },
      maxBufferDelayMs: 250,
      sampleRate: 16_000,
      apiVersion: '2024-11-13',
    });
    const spoken = await speak(tts, ['Bonjour.']).done;
    expect(spoken.chunks[0]!.frame.sampleRate).toBe(16_000);
    expect(server.connections[0]!.headers['cartesia-version']).toBe('2024-11-13');
    expect(server.messages[0]).toMatchObject({
      model_id: 'sonic-2',
      language: 'fr',
      voice: { mode: 'embedding', embedding: [0.1, 0.2], __experimental_controls: { speed: 'fast' } },
      generation_config: { speed: 1.2, emotion: 'calm' },
      max_buffer_delay_ms: 250,
      output_format: { sample_rate: 16_000 },
    });
  });

  it('converts pcm_f32le to 16-bit frames', async () => {
    const { tts } = make({ encoding: 'pcm_f32le' });
    const spoken = await speak(tts, ['Float audio.']).done;
    expect(server.messages[0]).toMatchObject({ output_format: { encoding: 'pcm_f32le' } });
    expect(spoken.ms).toBeCloseTo('Float audio.'.length * 10, 5);
    expect(distinct(spoken.tags)).toEqual([1000]);
  });

  it('shares one socket between speeches, even concurrent ones, each in its own context', async () => {
    const { tts } = make();
    const a = speak(tts, ['First speech, ', 'a little longer than the other.']);
    const b = speak(tts, ['Second one.']);
    const [first, second] = await Promise.all([a.done, b.done]);
    expect(server.connections).toHaveLength(1);
    expect(a.stream.contextId).not.toBe(b.stream.contextId);
    const tags = server.contextList().map((c) => c.id);
    expect(tags).toHaveLength(2);
    // Each speech got its own context's audio, none of the other's.
    expect(distinct(first.tags)).toEqual([1000 + tags.indexOf(a.stream.contextId!)]);
    expect(distinct(second.tags)).toEqual([1000 + tags.indexOf(b.stream.contextId!)]);
    const third = await speak(tts, ['Third.']).done;
    expect(third.error).toBeUndefined();
    expect(server.connections).toHaveLength(1);
    expect(server.contexts.size).toBe(3);
  });

  it('prewarm() opens the shared socket before the first speech', async () => {
    const { tts } = make();
    tts.prewarm();
    await until(() => server.connections.length === 1);
    expect(server.connections[0]!.messages).toHaveLength(0);
    const spoken = await speak(tts, ['Ready.']).done;
    expect(spoken.error).toBeUndefined();
    expect(server.connections).toHaveLength(1);
  });

  it('cancels the context on close(): nothing more of it comes out, not even chunks already in flight', async () => {
    server.faults.chunksAfterCancel = 5;
    const { tts, metrics } = make();
    const stream = tts.stream();
    stream.pushText('A long answer that goes on and on. ');
    stream.pushText('And on, for many more seconds of audio than anyone wants to hear.');
    stream.endInput();
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    await stream.close();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    await until(() => server.messages.some((m) => m.cancel === true));
    expect(server.messages.find((m) => m.cancel === true)).toEqual({
      context_id: stream.contextId,
      cancel: true,
    });
    // The in-flight chunks arrive on the socket, and are dropped there.
    await until(() => server.contextList()[0]!.chunksSent >= 2);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(metrics).toMatchObject([{ cancelled: true, error: undefined }]);

    // The socket goes on serving: the next speech hears only its own audio.
    const next = await speak(tts, ['Next speech.']).done;
    expect(next.error).toBeUndefined();
    expect(distinct(next.tags)).toEqual([1001]);
    expect(server.connections).toHaveLength(1);
  });

  it('cancels on abort, ending the iteration quietly', async () => {
    server.faults.chunksAfterCancel = 3;
    const { tts } = make();
    const controller = new AbortController();
    const stream = tts.stream({ signal: controller.signal });
    stream.pushText('Some speech that will be interrupted by the user.');
    stream.endInput();
    let frames = 0;
    let error: unknown;
    try {
      for await (const _ of stream) {
        frames++;
        if (frames === 1) controller.abort();
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeUndefined();
    expect(frames).toBe(1);
    await until(() => server.messages.some((m) => m.cancel === true));
    // A stream aborted before it started opens nothing.
    const early = tts.stream({ signal: AbortSignal.abort() });
    early.pushText('never said');
    early.endInput();
    expect((await drain(early)).chunks).toHaveLength(0);
    expect(server.contexts.size).toBe(1);
  });

  it('opens no context for a speech without text', async () => {
    const { tts, metrics } = make();
    const stream = tts.stream();
    stream.endInput();
    expect((await drain(stream)).chunks).toHaveLength(0);
    expect(server.connections).toHaveLength(0);
    expect(metrics).toHaveLength(0);
  });

  it('starts over on a new socket when the socket drops before the first audio', async () => {
    server.faults.dropOnFirstMessage = true;
    const { tts, metrics } = make();
    const problems: ProviderProblem[] = [];
    const { stream, done } = speak(tts, ['Hello after a drop.'], problems);
    const spoken = await done;
    expect(spoken.error).toBeUndefined();
    expect(spoken.ms).toBeCloseTo('Hello after a drop.'.length * 10, 5);
    expect(server.connections).toHaveLength(2);
    expect(problems).toMatchObject([{ type: 'retrying', attempt: 1, error: expect.any(APIConnectionError) }]);
    // The new attempt is a new context, with all the text sent again.
    expect(server.connections[1]!.messages.map((m) => m.transcript).join('')).toBe('Hello after a drop.');
    expect(server.connections[1]!.messages[0]!.context_id).toBe(stream.contextId);
    expect(server.connections[0]!.messages[0]!.context_id).not.toBe(stream.contextId);
    expect(metrics[0]).toMatchObject({ attempts: 2, error: undefined });
  });

  it('fails a speech whose socket drops after audio, and the next speech reconnects', async () => {
    server.faults.dropAfterChunks = 2;
    const { tts, metrics } = make();
    const problems: ProviderProblem[] = [];
    const spoken = await speak(tts, ['This one is cut off in the middle of its audio.'], problems).done;
    expect(spoken.chunks.length).toBeGreaterThan(0);
    expect(spoken.error).toBeInstanceOf(APIConnectionError);
    expect((spoken.error as Error).message).toMatch(/broke after \d+ ms of audio/);
    expect(problems).toHaveLength(0);
    expect(metrics[0]!.error).toBe(spoken.error);
    const next = await speak(tts, ['Back again.']).done;
    expect(next.error).toBeUndefined();
    expect(server.connections).toHaveLength(2);
  });

  it('fails only the speech Cartesia reports an error for; the next one works on the same socket', async () => {
    server.faults.errorOn = { text: 'forbidden', statusCode: 400, message: 'Invalid voice' };
    const { tts } = make();
    const problems: ProviderProblem[] = [];
    const bad = await speak(tts, ['Say something forbidden.'], problems).done;
    expect(bad.error).toBeInstanceOf(APIStatusError);
    expect(bad.error).toMatchObject({ statusCode: 400, retryable: false });
    expect((bad.error as Error).message).toContain('Invalid voice');
    expect(problems).toHaveLength(0);
    const good = await speak(tts, ['Say something nice.']).done;
    expect(good.error).toBeUndefined();
    expect(good.ms).toBeGreaterThan(0);
    expect(server.connections).toHaveLength(1);
  });

  it('retries a 5xx error before the first audio, then gives up with it', async () => {
    server.faults.errorOn = { text: 'busy', statusCode: 503, message: 'Overloaded', newShape: true };
    const { tts } = make({ retry: { maxRetries: 2, initialDelayMs: 1, jitter: 0 } });
    const problems: ProviderProblem[] = [];
    const spoken = await speak(tts, ['The server is busy.'], problems).done;
    expect(spoken.error).toBeInstanceOf(APIStatusError);
    expect(spoken.error).toMatchObject({ statusCode: 503, retryable: true });
    expect((spoken.error as Error).message).toContain('Bad request: Overloaded (bad_request)');
    expect(problems.map((p) => p.type)).toEqual(['retrying', 'retrying']);
    expect(server.contexts.size).toBe(3);
  });

  it('fails at once and clearly when the key is refused, without retrying', async () => {
    const { tts } = make({ apiKey: 'wrong-key-0123' });
    const problems: ProviderProblem[] = [];
    const spoken = await speak(tts, ['Hello.'], problems).done;
    expect(spoken.error).toBeInstanceOf(APIStatusError);
    expect(spoken.error).toMatchObject({ statusCode: 401, retryable: false });
    expect((spoken.error as Error).message).toMatch(
      /refused the API key \(HTTP 401\); check CARTESIA_API_KEY/,
    );
    expect(problems).toHaveLength(0);
    expect(server.connections).toHaveLength(0);
  });

  it('times a stalled context out and poisons a socket that went silent', async () => {
    server.faults.stallOn = 'stall';
    const { tts, metrics } = make({ idleTimeoutMs: 150, retry: { maxRetries: 0 } });
    const stalled = await speak(tts, ['Please stall here.']).done;
    expect(stalled.error).toBeInstanceOf(APITimeoutError);
    expect((stalled.error as Error).message).toContain('no audio from Cartesia for 150 ms');
    expect(metrics[0]!.error).toBe(stalled.error);
    await until(() => server.messages.some((m) => m.cancel === true));
    // The socket sent nothing at all for that long, so it is not trusted again.
    const after = await speak(tts, ['Fine now.']).done;
    expect(after.error).toBeUndefined();
    expect(server.connections).toHaveLength(2);
  });

  it('waits without a timeout while no audio is owed (the LLM is slow to write)', async () => {
    const { tts } = make({ idleTimeoutMs: 100 });
    const stream = tts.stream();
    stream.pushText('Thinking');
    const reading = drain(stream);
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.pushText(' done.');
    stream.endInput();
    const spoken = await reading;
    expect(spoken.error).toBeUndefined();
    expect(spoken.ms).toBeCloseTo('Thinking done.'.length * 10, 5);
  });

  it('goes on in a new context when the LLM paused long enough for Cartesia to expire the first', async () => {
    await server.close();
    server = await FakeCartesiaServer.start({ apiKey: KEY, contextExpiryMs: 150 });
    const { tts, metrics } = make({ contextIdleLimitMs: 80 });
    const stream = tts.stream();
    stream.pushText('The first sentence is spoken. Then');
    const reading = drain(stream);
    await until(() => (server.contextList()[0]?.chunksSent ?? 0) > 0 && stream.words.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.pushText(' the rest comes, much later.');
    stream.endInput();
    const spoken = await reading;
    expect(spoken.error).toBeUndefined();
    const text = 'The first sentence is spoken. Then the rest comes, much later.';
    expect(spoken.ms).toBeCloseTo(text.length * 10, 5);
    const [first, second] = server.contextList();
    // " Then" had reached the first context but was never asked for: it moves to the second one.
    expect(first!.transcript).toBe('The first sentence is spoken. Then');
    expect(first!.cancelled).toBe(true);
    expect(second!.transcript).toBe(' Then the rest comes, much later.');
    expect(stream.contextId).toBe(second!.id);
    // The second context's timestamps continue where the first one's audio ended.
    expect(stream.words.map((w) => w.word)).toEqual(text.split(' '));
    const then = stream.words.find((w) => w.word === 'Then')!;
    expect(then.startMs).toBe('The first sentence is spoken. '.length * 10);
    expect(metrics[0]).toMatchObject({ characters: text.length, error: undefined });
  });

  it('without that, the expired context refuses the rest (the fake models the expiry)', async () => {
    await server.close();
    server = await FakeCartesiaServer.start({ apiKey: KEY, contextExpiryMs: 150 });
    const { tts } = make({ contextIdleLimitMs: 10_000 });
    const stream = tts.stream();
    stream.pushText('The first sentence is spoken. Then');
    const reading = drain(stream);
    await until(() => stream.words.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.pushText(' the rest.');
    stream.endInput();
    const spoken = await reading;
    expect((spoken.error as Error).message).toContain('context has expired');
  });

  it('after such a pause, a flush or the end carries the unspoken text to a new context', async () => {
    await server.close();
    server = await FakeCartesiaServer.start({ apiKey: KEY, contextExpiryMs: 150 });
    const { tts } = make({ contextIdleLimitMs: 80 });
    const stream = tts.stream();
    stream.pushText('A first sentence, spoken. And');
    const reading = drain(stream);
    await until(() => stream.words.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.flush();
    await until(() => stream.words.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.pushText(' then');
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.endInput();
    const spoken = await reading;
    expect(spoken.error).toBeUndefined();
    expect(spoken.ms).toBeCloseTo('A first sentence, spoken. And then'.length * 10, 5);
    expect(server.contextList().map((c) => c.transcript)).toEqual([
      'A first sentence, spoken. And',
      ' And',
      ' then',
    ]);
  });

  it('ends a speech whose audio all came, after a pause, without touching its expired context', async () => {
    await server.close();
    server = await FakeCartesiaServer.start({ apiKey: KEY, contextExpiryMs: 150 });
    const { tts } = make({ contextIdleLimitMs: 80 });
    const stream = tts.stream();
    stream.pushText('Just this.');
    stream.flush();
    const reading = drain(stream);
    await until(() => stream.words.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 250));
    stream.endInput();
    const spoken = await reading;
    expect(spoken.error).toBeUndefined();
    expect(spoken.ms).toBeCloseTo(100, 5);
    expect(server.messages.some((m) => m.continue === false)).toBe(false);
  });

  it('fails every speech on a socket that sends a frame that is not Cartesia JSON', async () => {
    const { tts } = make();
    const stream = tts.stream();
    stream.pushText('Waiting for more');
    const reading = drain(stream);
    await until(() => server.connections[0]?.messages.length === 1);
    server.sendRaw('<html>proxy error</html>');
    const spoken = await reading;
    expect(spoken.error).toBeInstanceOf(APIError);
    expect(spoken.error).toMatchObject({ retryable: false });
    expect((spoken.error as Error).message).toContain('not JSON');
  });

  it('ignores message types it does not know', async () => {
    const { tts } = make();
    const stream = tts.stream();
    stream.pushText('Hello');
    const reading = drain(stream);
    await until(() => server.connections[0]?.messages.length === 1);
    server.sendRaw(JSON.stringify({ type: 'phoneme_timestamps', context_id: stream.contextId }));
    server.sendRaw(JSON.stringify({ type: 'something_new', context_id: stream.contextId }));
    stream.endInput();
    expect((await reading).error).toBeUndefined();
  });

  it('fails every speech on the socket for an error that names no context, and keeps the socket', async () => {
    const { tts } = make();
    const a = tts.stream();
    const b = tts.stream();
    a.pushText('One');
    b.pushText('Two');
    const [readA, readB] = [drain(a), drain(b)];
    await until(() => server.messages.length === 2);
    server.sendRaw(
      JSON.stringify({ type: 'error', done: true, error: 'Malformed request', status_code: 400 }),
    );
    for (const spoken of await Promise.all([readA, readB])) {
      expect(spoken.error).toBeInstanceOf(APIStatusError);
      expect((spoken.error as Error).message).toContain('Malformed request');
    }
    expect((await speak(tts, ['Three.']).done).error).toBeUndefined();
    expect(server.connections).toHaveLength(1);
  });

  it('retries a refused handshake that may pass later, then gives up with it', async () => {
    server.faults.rejectStatus = 503;
    const { tts } = make({ retry: { maxRetries: 2, initialDelayMs: 1, jitter: 0 } });
    const problems: ProviderProblem[] = [];
    const spoken = await speak(tts, ['Hello.'], problems).done;
    expect(spoken.error).toMatchObject({ statusCode: 503, retryable: true });
    expect(problems.map((p) => p.type)).toEqual(['retrying', 'retrying']);
    server.faults.rejectStatus = undefined;
    expect((await speak(tts, ['Hello again.']).done).error).toBeUndefined();
  });

  it('stops a speech whose unread audio exceeds maxBufferedAudioMs, after the audio that fit', async () => {
    const { tts } = make({ maxBufferedAudioMs: 100 });
    const stream = tts.stream();
    stream.pushText('Nobody reads this audio while it is being generated.');
    stream.endInput();
    await until(() => server.messages.some((m) => m.cancel === true));
    const spoken = await drain(stream);
    expect(spoken.ms).toBeLessThanOrEqual(100);
    expect(spoken.ms).toBeGreaterThan(0);
    expect(spoken.error).toBeInstanceOf(APIError);
    expect((spoken.error as Error).message).toContain('more than 100 ms of audio were waiting');
  });

  it('fails pending speeches when the TTS is closed', async () => {
    const { tts } = make();
    const stream = tts.stream();
    stream.pushText('Never finished');
    const reading = drain(stream);
    await until(() => server.connections[0]?.messages.length === 1);
    await tts.close();
    expect((await reading).error).toBeInstanceOf(APIConnectionError);
  });
});

describe('configuration', () => {
  it('needs a key, from the option or CARTESIA_API_KEY', () => {
    const saved = process.env.CARTESIA_API_KEY;
    delete process.env.CARTESIA_API_KEY;
    try {
      expect(() => new CartesiaTTS()).toThrow(CartesiaConfigError);
      expect(() => new CartesiaTTS()).toThrow(/CARTESIA_API_KEY/);
      process.env.CARTESIA_API_KEY = 'from-env';
      const tts = new CartesiaTTS();
      expect(tts.label).toBe('cartesia/sonic-3');
      expect(tts.sampleRate).toBe(24_000);
      expect(tts.kind).toBe('streaming');
    } finally {
      if (saved === undefined) delete process.env.CARTESIA_API_KEY;
      else process.env.CARTESIA_API_KEY = saved;
    }
  });

  it('rejects options that cannot work', () => {
    expect(() => new CartesiaTTS({ apiKey: 'k', idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
    expect(() => new CartesiaTTS({ apiKey: 'k', baseURL: 'ftp://x' })).toThrow(/baseURL/);
    expect(() => new CartesiaTTS({ apiKey: 'k', sampleRate: 1.5 })).toThrow(/sampleRate/);
    expect(() => new CartesiaTTS({ apiKey: 'k', voice: [] })).toThrow(/voice/);
  });
});
