import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type { LLM, LLMChatOptions, LLMStreamPart } from '../../providers/llm.js';
import type { StreamingTTS, TTSStream } from '../../providers/tts.js';
import { FakeTTS, historyText, startSession } from '../../test-support/session-harness.js';
import type { Clock } from '../../time/clock.js';
import { ChatContext } from '../../llm/chat-context.js';
import { Agent } from '../agent/agent.js';

/** Streams its words, then fails `failAfterMs` later (a connection that breaks mid-reply). */
class BreakingLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'breaking-llm';
  readonly model = 'breaking';
  readonly supportsToolCalls = false;
  constructor(
    private readonly clock: Clock,
    private readonly text: string,
    private readonly failAfterMs: number,
  ) {}
  async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    await this.clock.sleep(100, options.signal);
    yield { type: 'text_delta', text: this.text };
    await this.clock.sleep(this.failAfterMs, options.signal);
    throw new Error('connection reset');
  }
}

type Errors = Array<{ source: string; error: unknown }>;

describe('a step that fails after some of its audio played', () => {
  it('keeps the played text of a failed LLM reply as an interrupted assistant message', async () => {
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'tell me a story' }],
      agent: new Agent({ instructions: '' }),
      // 50 ms of audio per character: about 3 s of speech, and the model breaks 1 s in.
      session: (clock) => ({
        llm: new BreakingLLM(clock, 'Once upon a time there was a tiny voice agent.', 1000),
      }),
      totalMs: 8000,
    });
    const errors: Errors = [];
    h.session.on('error', (e) => errors.push(e));
    await h.run(7000);
    const history = historyText(h.session);
    expect(history[0]).toBe('user: tell me a story');
    expect(history).toHaveLength(2);
    const heard = history[1]!;
    expect(heard).toMatch(/^assistant\(interrupted\): Once/);
    expect(heard.length).toBeLessThan(
      'assistant(interrupted): Once upon a time there was a tiny voice agent.'.length,
    );
    expect(errors.map((e) => e.source)).toEqual(['llm']);
    await h.session.close();
  });

  it("keeps the played part of a say() whose audio source fails, and reports it as the TTS's error", async () => {
    const h = await startSession({ agent: new Agent({ instructions: '' }), totalMs: 6000 });
    const errors: Errors = [];
    h.session.on('error', (e) => errors.push(e));
    const clock = h.clock;
    async function* audio(): AsyncGenerator<AudioFrame> {
      // One second of audio, in real time, then the source breaks.
      for (let i = 0; i < 50; i++) {
        await clock.sleep(20);
        yield AudioFrame.silence(16000, 1, 320);
      }
      throw new Error('file truncated');
    }
    const handle = h.session.say('one two three four five six seven eight nine ten', { audio: audio() });
    await h.run(5000);
    expect(handle.outcome).toBe('failed');
    expect(errors.map((e) => e.source)).toEqual(['tts']);
    const history = historyText(h.session);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatch(/^assistant\(interrupted\): one/);
    await h.session.close();
  });
});

describe('error sources', () => {
  it('a TTS whose stream() throws synchronously is reported with source tts', async () => {
    class ThrowingTTS extends FakeTTS {
      override stream(): TTSStream {
        throw new Error('no voice configured');
      }
    }
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'hello' }],
      replies: [{ text: 'Hi there.' }],
      agent: new Agent({ instructions: '' }),
      session: (clock) => ({ tts: new ThrowingTTS(clock) as StreamingTTS }),
      totalMs: 4000,
    });
    const errors: Errors = [];
    h.session.on('error', (e) => errors.push(e));
    await h.run(3500);
    expect(errors.map((e) => e.source)).toEqual(['tts']);
    await h.session.close();
  });
});

describe('a conversation restored from JSON', () => {
  it('keeps its place before the new items, and the new items get ids of their own', async () => {
    // Written by an earlier session whose clock had run for a minute; its ids start at msg_1 too.
    const stored = JSON.stringify({
      items: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'user',
          content: ['my name is Ana'],
          interrupted: false,
          createdAtMs: 60_000,
        },
        {
          type: 'message',
          id: 'msg_2',
          role: 'assistant',
          content: ['Hello Ana.'],
          interrupted: false,
          createdAtMs: 61_000,
        },
      ],
    });
    const agent = new Agent({ instructions: '', chatCtx: ChatContext.fromJSON(JSON.parse(stored)) });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'what is my name' }],
      replies: [{ text: 'Your name is Ana.' }],
      agent,
      totalMs: 4000,
    });
    await h.run(3500);
    const said = agent.chatCtx.items.map((i) =>
      i.type === 'message' ? `${i.role}: ${i.content.join('')}` : i.type,
    );
    expect(said).toEqual([
      'user: my name is Ana',
      'assistant: Hello Ana.',
      'user: what is my name',
      'assistant: Your name is Ana.',
    ]);
    const ids = agent.chatCtx.items.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    // The model was asked with the old conversation first.
    const asked = h.llm.requests[0]!.messages.map((m) => m.role);
    expect(asked).toEqual(['user', 'assistant', 'user']);
    // The session's own history holds its new items, with the same ids as the agent's context.
    expect(h.session.history.items.map((i) => i.id)).toEqual(ids.slice(2));
    await h.session.close();
  });
});

describe('what the recognizer said about the words', () => {
  it("keeps the final transcript's confidence on the user's message", async () => {
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'book a table', confidence: 0.82 }],
      agent: new Agent({ instructions: '' }),
      totalMs: 4000,
    });
    await h.run(3500);
    const user = h.session.history.items.find((i) => i.type === 'message' && i.role === 'user');
    expect(user).toMatchObject({ content: ['book a table'], transcriptConfidence: 0.82 });
  });
});
