import { APIStatusError, VirtualClock } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeepgramSpeechAlternative } from './transcript.js';
import { DeepgramSTT } from './stt.js';
import { silenceFrames, speechFrames } from './testing/coded-speech.js';
import { type FakeDeepgramServer, startFakeDeepgram } from './testing/fake-deepgram-server.js';
import { collect, finalText, pushPaced, recorder, show, until } from './testing/helpers.js';

const KEY = 'test-key-0123456789';
let server: FakeDeepgramServer;
beforeEach(async () => {
  server = await startFakeDeepgram({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

const stt = (options: ConstructorParameters<typeof DeepgramSTT>[0] = {}) =>
  new DeepgramSTT({ apiKey: KEY, baseUrl: server.url, ...options });

describe('DeepgramSTT live', () => {
  it('sends the documented query and header, and maps Results to interim, final and speech events', async () => {
    const stream = stt({ keyterms: ['Voxwire', 'nova three'], utteranceEndMs: 1000 }).stream({
      sampleRate: 16_000,
      language: 'en-US',
    });
    const result = collect(stream);
    await pushPaced(stream, [...speechFrames(['hello', 'world'], { gapMs: 20 }), ...silenceFrames(200)]);
    stream.endInput();
    const { events, error } = await result;
    expect(error).toBeUndefined();

    const connection = server.connections[0]!;
    expect(connection.path).toBe('/v1/listen');
    expect(connection.authorization).toBe(`Token ${KEY}`);
    expect(Object.fromEntries(connection.query)).toMatchObject({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
      punctuate: 'true',
      smart_format: 'false',
      vad_events: 'true',
      endpointing: '25',
      utterance_end_ms: '1000',
      language: 'en-US',
    });
    expect(connection.query.getAll('keyterm')).toEqual(['Voxwire', 'nova three']);
    expect(connection.closeStreams).toBe(1);
    expect(connection.audioMs).toBe(820);

    expect(events.map(show)).toEqual([
      'start_of_speech',
      'interim_transcript:Hello',
      'interim_transcript:Hello world',
      'final_transcript:Hello world',
      'end_of_speech',
    ]);
    const final = events[3]!;
    const best = ('alternatives' in final ? final.alternatives[0] : undefined) as DeepgramSpeechAlternative;
    expect(best).toMatchObject({ text: 'Hello world', confidence: 0.9, language: 'en-US', startMs: 0 });
    expect(best.words.map((w) => [w.word, w.punctuatedWord, w.startMs, w.endMs, w.confidence])).toEqual([
      ['hello', 'Hello', 0, 300, 0.9],
      ['world', 'world', 320, 620, 0.9],
    ]);
  });

  it('reports without interim results and punctuation when they are off', async () => {
    const stream = stt({
      interimResults: false,
      punctuate: false,
      vadEvents: false,
      endpointingMs: 50,
    }).stream({
      sampleRate: 16_000,
    });
    const result = collect(stream);
    await pushPaced(stream, [...speechFrames(['book', 'a', 'table'], { gapMs: 20 }), ...silenceFrames(200)]);
    stream.endInput();
    const { events } = await result;
    expect(events.map(show)).toEqual(['start_of_speech', 'final_transcript:book a table', 'end_of_speech']);
    const query = server.connections[0]!.query;
    expect(query.get('interim_results')).toBe('false');
    expect(query.get('endpointing')).toBe('50');
    expect(query.has('language')).toBe(false);
  });

  it('SpeechStarted and UtteranceEnd bound the utterance when endpointing is off', async () => {
    const stream = stt({ endpointingMs: false, utteranceEndMs: 1000 }).stream({ sampleRate: 16_000 });
    const result = collect(stream);
    await pushPaced(stream, [...speechFrames(['how', 'are', 'you']), ...silenceFrames(1_200)]);
    stream.endInput();
    const { events } = await result;
    // The fake finalizes the words only at CloseStream: UtteranceEnd ended the speech before that,
    // and the late final belongs to the utterance that ended rather than starting a new one.
    expect(events.map(show)).toEqual([
      'start_of_speech',
      'interim_transcript:How',
      'interim_transcript:How are',
      'interim_transcript:How are you',
      'end_of_speech',
      'final_transcript:How are you',
    ]);
    expect(server.connections[0]!.sent.some((m) => m.includes('"UtteranceEnd"'))).toBe(true);
  });

  it('flush() sends Finalize and the turn comes back final at once, without waiting for endpointing', async () => {
    const { onMetrics, metrics } = recorder();
    const stream = stt({ endpointingMs: false, onMetrics }).stream({ sampleRate: 16_000 });
    const events: string[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(show(event));
    })();
    await pushPaced(stream, speechFrames(['two', 'at', 'seven']));
    stream.flush();
    await until(() => events.includes('final_transcript:Two at seven'), 5_000, 'the finalized transcript');
    expect(server.connections[0]!.finalizes).toBe(1);
    stream.endInput();
    await reading;
    const final = metrics.find((m) => m.type === 'final_transcript');
    expect(final).toMatchObject({ type: 'final_transcript', fromFinalize: true, label: 'deepgram/nova-3' });
    expect(
      final && final.type === 'final_transcript' ? final.endOfSpeechToFinalMs : -1,
    ).toBeGreaterThanOrEqual(0);
    const ended = metrics.find((m) => m.type === 'stream_ended');
    expect(ended).toMatchObject({
      audioSentMs: 1_100,
      audioProcessedMs: 1_100,
      connections: 1,
      error: undefined,
    });
    expect(ended && ended.type === 'stream_ended' ? ended.requestIds : []).toEqual([
      server.connections[0]!.requestId,
    ]);
  });

  it('measures the time from the end of speech to its final on the Clock', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const { onMetrics, metrics } = recorder();
    const stream = stt({ clock, endpointingMs: 100, onMetrics }).stream({ sampleRate: 16_000 });
    const events: string[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(show(event));
    })();
    // The words end at 300 ms of audio, pushed at clock time 0; the silence that lets Deepgram
    // endpoint comes 240 ms later on the clock.
    for (const frame of speechFrames(['hello'])) stream.pushFrame(frame);
    await until(() => server.connections[0]?.audioMs === 300, 2_000, 'the speech at the server');
    await clock.advance(240);
    for (const frame of silenceFrames(200)) stream.pushFrame(frame);
    await until(() => events.includes('final_transcript:Hello'), 2_000, 'the final');
    stream.endInput();
    await reading;
    expect(metrics.find((m) => m.type === 'final_transcript')).toMatchObject({
      endOfSpeechToFinalMs: 240,
      fromFinalize: false,
      audioProcessedMs: 400,
    });
    expect(metrics.find((m) => m.type === 'stream_ended')).toMatchObject({
      audioSentMs: 500,
      audioProcessedMs: 500,
      durationMs: 240,
    });
  });

  it('sends KeepAlive on the Clock while no audio flows, and none while audio flows', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const stream = stt({ clock, keepAliveIntervalMs: 3_000 }).stream({ sampleRate: 16_000 });
    const result = collect(stream);
    stream.pushFrame(silenceFrames(20)[0]!);
    await until(() => server.connections.length === 1 && server.connections[0]!.binaryFrames === 1);
    await clock.advance(3_000); // audio flowed in this interval
    await clock.advance(3_000);
    await clock.advance(3_000);
    await until(() => server.connections[0]!.keepAlives === 2, 2_000, 'two keep-alives');
    stream.pushFrame(silenceFrames(20)[0]!);
    await clock.advance(3_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections[0]!.keepAlives).toBe(2);
    stream.endInput();
    await result;
    expect(server.connections[0]!.controls).toContainEqual({ type: 'KeepAlive' });
  });

  it('declares its sample rate and sends at the rate the session chose', async () => {
    const recognizer = stt({ sampleRate: 8_000 });
    expect(recognizer.inputSampleRates).toEqual([8_000]);
    expect(recognizer.label).toBe('deepgram/nova-3');
    const stream = recognizer.stream({ sampleRate: 8_000 });
    const result = collect(stream);
    await pushPaced(stream, [
      ...speechFrames(['thanks'], { sampleRate: 8_000 }),
      ...silenceFrames(100, { sampleRate: 8_000 }),
    ]);
    stream.endInput();
    expect(finalText((await result).events)).toBe('Thanks');
    expect(server.connections[0]!.query.get('sample_rate')).toBe('8000');
    expect(() => recognizer.stream({ sampleRate: 8_000 }).pushFrame(silenceFrames(20)[0]!)).toThrow(
      /8000 Hz/,
    );
  });

  it('close() and abort end the iteration quietly and release the connection', async () => {
    const stream = stt().stream({ sampleRate: 16_000 });
    const result = collect(stream);
    await pushPaced(stream, speechFrames(['hello']));
    await until(() => server.connections.length === 1);
    await stream.close();
    expect((await result).error).toBeUndefined();
    await until(() => server.connections[0]!.closed, 2_000, 'server sees the close');

    const controller = new AbortController();
    const aborted = stt().stream({ sampleRate: 16_000, signal: controller.signal });
    const abortedResult = collect(aborted);
    aborted.pushFrame(silenceFrames(20)[0]!);
    await until(() => server.connections.length === 2);
    controller.abort();
    expect((await abortedResult).error).toBeUndefined();
    await until(() => server.connections[1]!.closed, 2_000, 'server sees the abort');
  });

  it('rejects bad options at construction', () => {
    expect(() => stt({ utteranceEndMs: 500 })).toThrow(RangeError);
    expect(() => stt({ utteranceEndMs: 1000, interimResults: false })).toThrow(/interimResults/);
    expect(() => stt({ keepAliveIntervalMs: 0 })).toThrow(RangeError);
    expect(() => stt({ sampleRate: 44_100.5 })).toThrow(RangeError);
    expect(() => stt({ retry: { maxRetries: -1 } })).toThrow(RangeError);
    const saved = process.env.DEEPGRAM_API_KEY;
    delete process.env.DEEPGRAM_API_KEY;
    try {
      expect(() => new DeepgramSTT({ baseUrl: server.url })).toThrow(/DEEPGRAM_API_KEY/);
      process.env.DEEPGRAM_API_KEY = KEY;
      expect(new DeepgramSTT({ baseUrl: server.url }).label).toBe('deepgram/nova-3');
    } finally {
      if (saved === undefined) delete process.env.DEEPGRAM_API_KEY;
      else process.env.DEEPGRAM_API_KEY = saved;
    }
  });

  it('a refused key is a non-retryable APIStatusError, tried once', async () => {
    const { onProblem, problems } = recorder();
    const stream = new DeepgramSTT({ apiKey: 'wrong-key-abcdefgh', baseUrl: server.url }).stream({
      sampleRate: 16_000,
      onProblem,
    });
    const result = collect(stream);
    stream.pushFrame(silenceFrames(20)[0]!);
    const { error } = await result;
    expect(error).toBeInstanceOf(APIStatusError);
    expect(error).toMatchObject({ statusCode: 401, retryable: false });
    expect((error as Error).message).toMatch(/HTTP 401: Invalid credentials.*DEEPGRAM_API_KEY/);
    expect(server.upgradeAttempts).toBe(1);
    expect(problems).toEqual([]);
  });
});
