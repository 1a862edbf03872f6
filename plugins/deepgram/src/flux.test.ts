import { APIError } from '@voxwire/agents/provider-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeepgramFluxSTT } from './flux.js';
import { silenceFrames, speechFrames } from './testing/coded-speech.js';
import { type FakeDeepgramServer, startFakeDeepgram } from './testing/fake-deepgram-server.js';
import { collect, pushPaced, recorder, show, until } from './testing/helpers.js';

const KEY = 'test-key-0123456789';
let server: FakeDeepgramServer;
beforeEach(async () => {
  server = await startFakeDeepgram({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

const flux = (options: ConstructorParameters<typeof DeepgramFluxSTT>[0] = {}) =>
  new DeepgramFluxSTT({
    apiKey: KEY,
    baseUrl: server.url,
    retry: { initialDelayMs: 10, jitter: 0 },
    ...options,
  });

describe('DeepgramFluxSTT', () => {
  it('maps StartOfTurn / Update / EndOfTurn to speech events and a final transcript', async () => {
    const stream = flux({ eotThreshold: 0.8, eotTimeoutMs: 3000, keyterms: ['Voxwire'] }).stream({
      sampleRate: 16_000,
    });
    const result = collect(stream);
    await pushPaced(stream, [...speechFrames(['hello', 'voxwire']), ...silenceFrames(600)]);
    stream.endInput();
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(events.map(show)).toEqual([
      'start_of_speech',
      'interim_transcript:hello',
      'interim_transcript:hello voxwire',
      'final_transcript:hello voxwire',
      'end_of_speech',
    ]);
    const connection = server.connections[0]!;
    expect(connection.path).toBe('/v2/listen');
    expect(connection.authorization).toBe(`Token ${KEY}`);
    expect(Object.fromEntries(connection.query)).toMatchObject({
      model: 'flux-general-en',
      encoding: 'linear16',
      sample_rate: '16000',
      eot_threshold: '0.8',
      eot_timeout_ms: '3000',
      keyterm: 'Voxwire',
    });
    expect(connection.query.has('eager_eot_threshold')).toBe(false);
    expect(connection.closeStreams).toBe(1);
  });

  it('an eager end of turn is a preflight transcript; a resumed turn ends once, with every word', async () => {
    const stream = flux({ eagerEotThreshold: 0.5 }).stream({ sampleRate: 16_000 });
    const result = collect(stream);
    // A 300 ms pause: past the fake's eager point (200 ms), before its end of turn (500 ms).
    await pushPaced(stream, [
      ...speechFrames(['book', 'a'], { trailingSilenceMs: 300 }),
      ...speechFrames(['table'], { trailingSilenceMs: 600 }),
    ]);
    stream.endInput();
    const { events } = await result;
    expect(server.connections[0]!.sent.some((m) => m.includes('"EagerEndOfTurn"'))).toBe(true);
    expect(server.connections[0]!.sent.some((m) => m.includes('"TurnResumed"'))).toBe(true);
    // Eager at each pause: the first is taken back by TurnResumed, the second is confirmed by EndOfTurn.
    expect(events.filter((e) => e.type === 'preflight_transcript').map(show)).toEqual([
      'preflight_transcript:book a',
      'preflight_transcript:book a table',
    ]);
    expect(events.filter((e) => e.type === 'final_transcript').map(show)).toEqual([
      'final_transcript:book a table',
    ]);
    expect(events.filter((e) => e.type === 'end_of_speech')).toHaveLength(1);
  });

  it('flush() sends ForceEndTurn; endInput() reports the last Update of an unfinished turn as final', async () => {
    const { onMetrics, metrics } = recorder();
    const stream = flux({ onMetrics }).stream({ sampleRate: 16_000 });
    const events: string[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(show(event));
    })();
    await pushPaced(stream, speechFrames(['two', 'at']));
    stream.flush();
    await until(() => events.includes('final_transcript:two at'), 5_000, 'the forced end of turn');
    expect(server.connections[0]!.controls).toContainEqual({ type: 'ForceEndTurn' });
    expect(metrics.find((m) => m.type === 'final_transcript')).toMatchObject({ fromFinalize: true });
    await pushPaced(stream, speechFrames(['seven']));
    stream.endInput();
    await reading;
    // Flux's CloseStream ends no turn: the last Update stands as the final.
    expect(events.slice(-4)).toEqual([
      'start_of_speech',
      'interim_transcript:seven',
      'final_transcript:seven',
      'end_of_speech',
    ]);
  });

  it('a socket dropped mid-turn reconnects and the turn comes out complete', async () => {
    const { onProblem, problems } = recorder();
    server.liveFaults.push({ connection: 0, afterAudioMs: 900, action: 'drop' });
    const stream = flux().stream({ sampleRate: 16_000, onProblem });
    const result = collect(stream);
    await pushPaced(stream, [...speechFrames(['please', 'book', 'a', 'table']), ...silenceFrames(600)]);
    stream.endInput();
    const { events, error } = await result;
    expect(error).toBeUndefined();
    expect(problems.map((p) => p.type)).toEqual(['reconnecting']);
    expect(events.filter((e) => e.type === 'final_transcript').map(show)).toEqual([
      'final_transcript:please book a table',
    ]);
    expect(events.filter((e) => e.type === 'start_of_speech')).toHaveLength(1);
  });

  it('an Error message from Flux ends the stream with a non-retryable APIError', async () => {
    server.liveFaults.push({
      connection: 0,
      afterAudioMs: 300,
      action: {
        send: { type: 'Error', sequence_id: 3, code: 'INVALID_AUDIO', description: 'cannot decode' },
      },
    });
    const stream = flux().stream({ sampleRate: 16_000 });
    const result = collect(stream);
    await pushPaced(stream, speechFrames(['hello', 'world']));
    const { error } = await result;
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toBe(
      'deepgram/flux-general-en: Flux reported INVALID_AUDIO: cannot decode',
    );
    await until(() => server.connections[0]!.closed, 2_000, 'the connection released');
  });
});
