import { Agent, AgentSession, type AudioFrame, type ChatItem, realClock } from '@voxwire/agents';
import { FakeAudioOutput, FakeLLM, FakeTTS } from '@voxwire/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeepgramFluxSTT } from './flux.js';
import { DeepgramSTT } from './stt.js';
import { silenceFrames, speechFrames } from './testing/coded-speech.js';
import { type FakeDeepgramServer, startFakeDeepgram } from './testing/fake-deepgram-server.js';
import { until } from './testing/helpers.js';

const KEY = 'test-key-0123456789';
let server: FakeDeepgramServer;
beforeEach(async () => {
  server = await startFakeDeepgram({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

/** A microphone: the words at about real speed, then silence until the test is done. */
function microphone(words: string[], done: Promise<void>): AsyncIterable<AudioFrame> {
  return (async function* () {
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    for (const frame of [...speechFrames(words), ...silenceFrames(200)]) {
      yield frame;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    while (!finished) {
      yield silenceFrames(20)[0]!;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
}

const textOf = (item: ChatItem): string =>
  item.type === 'message' ? item.content.filter((c): c is string => typeof c === 'string').join('') : '';

async function converse(stt: DeepgramSTT | DeepgramFluxSTT, words: string[]): Promise<ChatItem[]> {
  const clock = realClock();
  const session = new AgentSession({
    clock,
    stt,
    llm: new FakeLLM({
      clock,
      replies: [{ match: { user: 'table for two' }, text: 'Your table is booked.', ttftMs: 10, tokenMs: 5 }],
    }),
    tts: new FakeTTS({ clock, ttfbMs: 5, msPerChar: 5 }),
    turnHandling: { turnDetection: 'stt', minEndpointingDelay: 50, maxEndpointingDelay: 500 },
  });
  const items: ChatItem[] = [];
  session.on('conversation_item_added', ({ item }) => items.push(item));
  let stop!: () => void;
  const done = new Promise<void>((resolve) => {
    stop = resolve;
  });
  await session.start({
    agent: new Agent({ id: 'host', instructions: 'Book tables.' }),
    input: { audio: microphone(words, done) },
    output: { audio: new FakeAudioOutput({ clock }) },
  });
  try {
    await until(
      () => items.some((item) => item.type === 'message' && item.role === 'assistant'),
      10_000,
      'the reply',
    );
  } finally {
    stop();
    await session.close();
  }
  return items;
}

describe('a real AgentSession with Deepgram', () => {
  it('commits the user turn from the live transcript (turnDetection stt) and answers it', async () => {
    const items = await converse(new DeepgramSTT({ apiKey: KEY, baseUrl: server.url, endpointingMs: 300 }), [
      'please',
      'book',
      'a',
      'table',
      'for',
      'two',
    ]);
    const messages = items.filter((item) => item.type === 'message');
    expect(messages.map((item) => [item.type === 'message' ? item.role : '', textOf(item)])).toEqual([
      ['user', 'Please book a table for two'],
      ['assistant', 'Your table is booked.'],
    ]);
    expect(server.connections[0]!.authorization).toBe(`Token ${KEY}`);
  });

  it('commits on Flux’s EndOfTurn and answers it', async () => {
    const items = await converse(new DeepgramFluxSTT({ apiKey: KEY, baseUrl: server.url }), [
      'book',
      'a',
      'table',
      'for',
      'two',
    ]);
    const messages = items.filter((item) => item.type === 'message');
    expect(messages.map((item) => [item.type === 'message' ? item.role : '', textOf(item)])).toEqual([
      ['user', 'book a table for two'],
      ['assistant', 'Your table is booked.'],
    ]);
    expect(server.connections[0]!.path).toBe('/v2/listen');
  });
});
