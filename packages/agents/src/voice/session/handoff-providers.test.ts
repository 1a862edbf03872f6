import { describe, expect, it } from 'vitest';
import { FakeVAD, historyText, startSession } from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';

describe('an agent change that changes how the user is heard', () => {
  it('ends turns on the recognizer once the new agent has no VAD, though the first one had its own', async () => {
    const withVad = new Agent({ instructions: '', vad: new FakeVAD() });
    const withoutVad = new Agent({ instructions: '' });
    const h = await startSession({
      segments: [{ startMs: 800, endMs: 1400, transcript: 'hello there' }],
      agent: withVad,
      replies: [{ text: 'Hi.' }],
      session: { vad: undefined },
      totalMs: 6000,
    });
    await h.run(300);
    await h.session.updateAgent(withoutVad);
    await h.run(5000);
    expect(historyText(h.session).slice(1)).toEqual(['user: hello there', 'assistant: Hi.']);
  });

  it('waits for the VAD again once the new agent brings one', async () => {
    const withoutVad = new Agent({ instructions: '' });
    const withVad = new Agent({ instructions: '', vad: new FakeVAD() });
    const h = await startSession({
      segments: [{ startMs: 800, endMs: 1400, transcript: 'hello there' }],
      agent: withoutVad,
      replies: [{ text: 'Hi.' }],
      session: { vad: undefined },
      totalMs: 6000,
    });
    await h.run(300);
    await h.session.updateAgent(withVad);
    await h.run(5000);
    expect(historyText(h.session).slice(1)).toEqual(['user: hello there', 'assistant: Hi.']);
    const speaking = h.events.filter(
      (e) => e.name === 'user_state_changed' && e.detail.includes('"newState":"speaking"'),
    );
    // The VAD says when the user speaks: once, from the start of the segment.
    expect(speaking).toHaveLength(1);
    expect(speaking[0]!.atMs).toBeLessThan(1000);
  });
});
