import { Agent, AgentSession, VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { FakeAudioOutput } from './fakes/audio-io.js';
import { FakeLLM } from './fakes/llm.js';
import { FakeTTS } from './fakes/tts.js';
import { checkInvariants } from './invariants/index.js';
import { LogRecorder } from './log.js';

describe('LogRecorder', () => {
  it('records a session built by hand and the checker judges it', async () => {
    const clock = new VirtualClock();
    const recorder = new LogRecorder(clock);
    const session = new AgentSession({
      clock,
      llm: new FakeLLM({ clock, replies: [{ text: 'Hello there.' }] }),
      tts: new FakeTTS({ clock }),
      onTrace: recorder.onTrace,
    });
    recorder.attach(session);
    await session.start({
      agent: new Agent({ id: 'a', instructions: 'x' }),
      output: { audio: new FakeAudioOutput({ clock }) },
    });
    await session.generateReply({ userInput: 'hi' });
    await session.close();
    const types = recorder.entries.map((e) => e.type);
    expect(types).toContain('speech_created');
    expect(types).toContain('speech_frame');
    expect(types).toContain('conversation_item_added');
    expect(types.at(-1)).toBe('close');
    expect(JSON.parse(JSON.stringify(recorder.entries))).toEqual(recorder.entries);
    expect(checkInvariants(recorder.entries)).toEqual([]);
  });
});
