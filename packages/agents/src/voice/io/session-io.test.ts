import { describe, expect, it } from 'vitest';
import { SessionClosedError } from '../../errors.js';
import type { TextOutput } from '../../providers/audio-io.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { FakeLLM, historyText, scriptedInput, startSession } from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';
import { AgentSession } from '../session/agent-session.js';

describe('text-only sessions and audio on/off', () => {
  it('a session with no audio input or output answers chat in text, and never speaks', async () => {
    const clock = new VirtualClock();
    const pieces: string[] = [];
    const text: TextOutput = { captureText: (t) => pieces.push(t), flush: () => pieces.push('|') };
    const session = new AgentSession({ clock, llm: new FakeLLM(clock, [{ text: 'Hello in text.' }]) });
    const states: string[] = [];
    session.on('agent_state_changed', (e) => states.push(e.newState));
    await session.start({ agent: new Agent({ instructions: '' }), output: { text } });
    await session.generateReply({ userInput: 'hi' });
    expect(pieces.join('')).toBe('Hello in text.|');
    expect(historyText(session)).toEqual(['user: hi', 'assistant: Hello in text.']);
    await clock.sleep(10);
    expect(states).toEqual(['idle', 'thinking', 'idle']);
    expect(session.input.audio).toBeUndefined();
    expect(session.output.audio).toBeUndefined();
    await session.close();
  });

  it('input turned off before start drops every frame until it is turned on', async () => {
    const segments = [{ startMs: 200, endMs: 800, transcript: 'not heard' }];
    const h = await startSession({ agent: new Agent({ instructions: '' }), noInput: true, segments });
    // The harness session has no microphone yet: attach one, turned off.
    h.session.input.setAudioEnabled(false);
    h.session.input.audio = scriptedInput(h.clock, segments, 3000);
    await h.run(1500);
    expect(h.session.userState).toBe('listening');
    expect(h.session.agentState).toBe('idle');
    expect(h.trace.filter((r) => r.type === 'vad_start_of_speech')).toEqual([]);
    h.session.input.setAudioEnabled(true);
    await h.run(1700);
    expect(h.session.agentState).toBe('listening');
    expect(h.session.input.audioEnabled).toBe(true);
    await h.session.close();
    expect(() => h.session.input.setAudioEnabled(false)).toThrow(SessionClosedError);
    expect(() => h.session.output.setAudioEnabled(false)).toThrow(SessionClosedError);
  });
});
