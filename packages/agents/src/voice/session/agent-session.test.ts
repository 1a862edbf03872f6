import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionClosedError } from '../../errors.js';
import { tool } from '../tools/tool.js';
import { Agent } from '../agent/agent.js';
import { dumpTimeline, historyText, startSession } from '../../test-support/session-harness.js';

describe('AgentSession', () => {
  it('answers a user turn: VAD end, endpointing, LLM, TTS, playout', async () => {
    const h = await startSession({
      segments: [{ startMs: 1000, endMs: 2000, transcript: 'hello there' }],
      replies: [{ text: 'Hi! How can I help?' }],
      agent: new Agent({ instructions: 'be nice' }),
    });
    await h.run(8000);
    expect(historyText(h.session)).toEqual(['user: hello there', 'assistant: Hi! How can I help?']);
    if (process.env.DUMP) console.log(dumpTimeline(h));
    const states = h.events
      .filter((e) => e.name === 'agent_state_changed')
      .map((e) => JSON.parse(e.detail).newState);
    expect(states).toEqual(['listening', 'thinking', 'speaking', 'listening']);
    const committed = h.trace.find((r) => r.type === 'user_turn_committed')!;
    // Speech ends at 2000; the VAD needs 300 ms of silence; min endpointing delay is 500 ms from the last speech.
    expect(committed.atMs).toBeGreaterThanOrEqual(2500);
    expect(committed.atMs).toBeLessThanOrEqual(2540);
    const frames = h.trace.filter((r) => r.type === 'speech_frame');
    expect(frames.length).toBeGreaterThan(10);
    await h.session.close();
  });

  it('interrupts an interruptible reply when the user talks over it with words', async () => {
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'tell me a story' },
        { startMs: 2500, endMs: 3500, transcript: 'stop please' },
      ],
      replies: [
        { text: 'Once upon a time there was a very long story that goes on and on and on for many seconds.' },
        { text: 'Sure.' },
      ],
      agent: new Agent({ instructions: '' }),
    });
    await h.run(9000);
    const history = historyText(h.session);
    expect(history[0]).toBe('user: tell me a story');
    expect(history[1]).toMatch(/^assistant\(interrupted\): Once/);
    expect(history[2]).toBe('user: stop please');
    expect(history[3]).toBe('assistant: Sure.');
    const interrupted = h.trace.find((r) => r.type === 'speech_interrupted');
    expect(interrupted).toMatchObject({ reason: 'user_words' });
    // No frame of the interrupted speech after the interrupt.
    const speechId = (interrupted as { speechId: string }).speechId;
    const lateFrames = h.trace.filter(
      (r) => r.type === 'speech_frame' && r.speechId === speechId && r.atMs > interrupted!.atMs,
    );
    expect(lateFrames).toEqual([]);
    await h.session.close();
  });

  it('runs a tool and replies with its output', async () => {
    const getWeather = tool({
      name: 'get_weather',
      description: 'weather for a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1200, transcript: 'weather in paris' }],
      replies: [
        { toolCalls: [{ name: 'get_weather', args: { city: 'Paris' }, callId: 'c1' }] },
        { text: 'It is sunny in Paris.' },
      ],
      agent: new Agent({ instructions: '', tools: [getWeather] }),
    });
    await h.run(8000);
    expect(historyText(h.session)).toEqual([
      'user: weather in paris',
      'call get_weather({"city":"Paris"})',
      'output get_weather: sunny in Paris',
      'assistant: It is sunny in Paris.',
    ]);
    await h.session.close();
  });

  it('sends malformed tool arguments back to the LLM as a tool error', async () => {
    const add = tool({
      name: 'add',
      description: 'adds',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1200, transcript: 'add' }],
      replies: [{ toolCalls: [{ name: 'add', args: { a: 'one' }, callId: 'c1' }] }, { text: 'Sorry.' }],
      agent: new Agent({ instructions: '', tools: [add] }),
    });
    await h.run(6000);
    const output = h.session.history.items.find((i) => i.type === 'function_call_output');
    expect(output).toMatchObject({ isError: true });
    expect((output as { output: string }).output).toMatch(/Invalid arguments for tool "add"/);
    expect(historyText(h.session).at(-1)).toBe('assistant: Sorry.');
    await h.session.close();
  });

  it('rejects calls on a closed session with SessionClosedError', async () => {
    const h = await startSession({
      segments: [],
      replies: [],
      agent: new Agent({ instructions: '' }),
      totalMs: 1000,
    });
    await h.session.close();
    expect(() => h.session.say('hi')).toThrow(SessionClosedError);
    expect(() => h.session.generateReply()).toThrow(SessionClosedError);
  });
});
