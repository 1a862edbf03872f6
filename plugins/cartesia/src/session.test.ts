import { Agent, AgentSession, realClock } from '@voxwire/agents';
import { FakeAudioOutput, FakeLLM } from '@voxwire/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeCartesiaServer } from './testing/fake-cartesia-server.js';
import { KEY, ttsFor, until } from './testing/helpers.js';

/**
 * A real AgentSession speaking through CartesiaTTS to the loopback fake, on the real clock (real
 * sockets): the reply's audio reaches the audio output, and an interruption cancels the context.
 */

let server: FakeCartesiaServer;
let session: AgentSession | undefined;

beforeEach(async () => {
  server = await FakeCartesiaServer.start({ apiKey: KEY, msPerChar: 10, chunkMs: 40 });
});
afterEach(async () => {
  await session?.close();
  session = undefined;
  await server.close();
});

async function startSession(reply: string) {
  const clock = realClock();
  const { tts, metrics } = ttsFor(server);
  const output = new FakeAudioOutput({ clock, bufferMs: 100 });
  const errors: unknown[] = [];
  session = new AgentSession({
    clock,
    llm: new FakeLLM({ clock, replies: [{ text: reply, ttftMs: 5, tokenMs: 2 }] }),
    tts,
  });
  session.on('error', (event) => errors.push(event.error));
  await session.start({ agent: new Agent({ instructions: 'Be brief.' }), output: { audio: output } });
  return { session, tts, metrics, output, errors };
}

const playedMs = (output: FakeAudioOutput): number => output.frames.reduce((sum, f) => sum + f.durationMs, 0);

describe('CartesiaTTS in an AgentSession', () => {
  it('speaks the reply: its audio reaches the output and the context is ended', async () => {
    const reply = 'Hello there. How can I help you today?';
    const { session, output, errors, metrics } = await startSession(reply);
    const handle = session.generateReply({ userInput: 'hi' });
    await handle.waitForPlayout();
    expect(errors).toEqual([]);
    expect(handle.interrupted).toBe(false);
    expect(playedMs(output)).toBeCloseTo(reply.length * 10, 0);
    const [context] = server.contextList();
    expect(context!.transcript).toBe(reply);
    expect(server.messages.at(-1)).toMatchObject({ context_id: context!.id, continue: false });
    expect(metrics).toMatchObject([{ characters: reply.length, cancelled: false, error: undefined }]);
  });

  it('cancels the context when the user interrupts, and no more of its audio is played', async () => {
    server.faults.chunksAfterCancel = 10;
    const reply = `${'This is a very long answer that nobody wants to hear to the end. '.repeat(6)}The end.`;
    const { session, output, metrics } = await startSession(reply);
    const handle = session.generateReply({ userInput: 'tell me everything' });
    await until(() => output.frames.length > 0);
    await session.interrupt();
    await until(() => server.messages.some((m) => m.cancel === true));
    const [context] = server.contextList();
    expect(server.messages.find((m) => m.cancel === true)).toEqual({ context_id: context!.id, cancel: true });
    const framesAtCancel = output.frames.length;
    // The chunks still in flight arrive at the socket and go no further.
    await until(() => context!.chunksSent >= 10 || server.connections[0]!.socket.readyState !== 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output.frames.length).toBe(framesAtCancel);
    expect(handle.interrupted).toBe(true);
    expect(playedMs(output)).toBeLessThan(reply.length * 10);
    await until(() => metrics.length === 1);
    expect(metrics[0]).toMatchObject({ cancelled: true, error: undefined });
  });
});
