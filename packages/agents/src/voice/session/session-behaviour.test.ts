import { describe, expect, it } from 'vitest';
import { APIConnectionError } from '../../errors.js';
import { tool } from '../tools/tool.js';
import { type ProviderCallOptions, SPECIFICATION_VERSION } from '../../providers/common.js';
import type { LLM } from '../../providers/llm.js';
import type { TTS } from '../../providers/tts.js';
import type { ConversationTurn, TurnDetector } from '../../providers/turn-detector.js';
import { Agent } from '../agent/agent.js';
import { AgentTask } from '../agent/agent-task.js';
import { SpeechDeadlockError } from '../speech/speech-handle.js';
import {
  FlakyVAD,
  type Harness,
  historyText,
  SilentSinkOutput,
  startSession,
} from '../../test-support/session-harness.js';
import type { TimedTraceRecord } from './trace.js';

const LONG =
  'This is a rather long answer that keeps going for several seconds so the user can talk over it.';

function records<T extends TimedTraceRecord['type']>(h: Harness, type: T) {
  return h.trace.filter((r): r is Extract<TimedTraceRecord, { type: T }> => r.type === type);
}

describe('interruptions', () => {
  it('pauses on a short noise and resumes with agent_false_interruption', async () => {
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'talk to me' },
        { startMs: 3000, endMs: 3150, transcript: '' },
      ],
      replies: [{ text: LONG }],
      agent: new Agent({ instructions: '' }),
    });
    await h.run(12_000);
    expect(records(h, 'speech_paused')).toHaveLength(1);
    expect(records(h, 'speech_resumed')).toMatchObject([{ falseInterruption: true }]);
    expect(h.events.filter((e) => e.name === 'agent_false_interruption')).toHaveLength(1);
    expect(records(h, 'speech_interrupted')).toEqual([]);
    expect(historyText(h.session)).toEqual(['user: talk to me', `assistant: ${LONG}`]);
    // No frame was sent while the user was speaking (S7).
    const userSpeaking = h.events.filter((e) => e.name === 'user_state_changed');
    const start = userSpeaking.find(
      (e) => e.atMs > 2000 && JSON.parse(e.detail).newState === 'speaking',
    )!.atMs;
    const end = userSpeaking.find(
      (e) => e.atMs > start && JSON.parse(e.detail).newState === 'listening',
    )!.atMs;
    expect(h.trace.filter((r) => r.type === 'speech_frame' && r.atMs > start && r.atMs < end)).toEqual([]);
    await h.session.close();
  });

  it('cuts at the minimum duration when false-interruption resume is off', async () => {
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'talk to me' },
        { startMs: 3000, endMs: 3800, transcript: '' },
      ],
      replies: [{ text: LONG }],
      agent: new Agent({ instructions: '' }),
      session: {
        turnHandling: {
          resumeFalseInterruption: false,
          minInterruptionDuration: 400,
          interruptionDetector: null,
        },
      },
    });
    await h.run(8000);
    const cut = records(h, 'speech_interrupted');
    expect(cut).toMatchObject([{ reason: 'user_speech' }]);
    expect(cut[0]?.userSpeechMs).toBeGreaterThanOrEqual(400);
    expect(historyText(h.session)[1]).toMatch(/^assistant\(interrupted\): This is/);
    await h.session.close();
  });

  it('never pauses or cuts an uninterruptible say, and the STT hears silence meanwhile', async () => {
    const h = await startSession({
      segments: [{ startMs: 1000, endMs: 1800, transcript: 'can you hear me' }],
      agent: new Agent({ instructions: '' }),
      totalMs: 8000,
    });
    const handle = h.session.say(LONG, { allowInterruptions: false });
    await h.run(8000);
    expect(handle.outcome).toBe('played');
    expect(records(h, 'speech_paused')).toEqual([]);
    // The VAD still heard the user: userState went speaking and back (L1).
    const states = h.events
      .filter((e) => e.name === 'user_state_changed')
      .map((e) => JSON.parse(e.detail).newState);
    expect(states).toEqual(['speaking', 'listening']);
    // The STT heard silence, so nothing was transcribed: the empty turn is skipped, visibly.
    expect(records(h, 'user_turn_skipped')).toMatchObject([{ reason: 'empty_transcript' }]);
    await h.session.close();
  });

  it('interrupts an uninterruptible speech only when forced', async () => {
    const h = await startSession({ agent: new Agent({ instructions: '' }), totalMs: 8000 });
    const handle = h.session.say(LONG, { allowInterruptions: false });
    await h.run(1000);
    expect(handle.interrupt()).toBe(false);
    await h.session.interrupt();
    expect(handle.interrupted).toBe(false);
    await h.session.interrupt({ force: true });
    expect(handle.done()).toBe(true);
    expect(handle.outcome).toBe('interrupted');
    expect(handle.interrupt({ force: true })).toBe(false);
    await h.session.close();
  });

  it('ends an interrupted speech in bounded time even if the sink never reports playout', async () => {
    const h = await startSession({
      agent: new Agent({ instructions: '' }),
      totalMs: 8000,
      output: (clock) => new SilentSinkOutput(clock),
    });
    const handle = h.session.say(LONG);
    await h.run(1000);
    const at = h.clock.now();
    handle.interrupt();
    await handle;
    expect(h.clock.now() - at).toBeLessThanOrEqual(1000);
    // And a speech played to the end is released by the watchdog: its audio + slack.
    const next = h.session.say('short one');
    const started = h.clock.now();
    await next;
    expect(next.outcome).toBe('played');
    expect(h.clock.now() - started).toBeLessThan(3000);
    expect(h.events.some((e) => e.name === 'error' && e.detail.includes('audio_output'))).toBe(true);
    await h.session.close();
  });
});

describe('endpointing', () => {
  const segments = [{ startMs: 500, endMs: 1000, transcript: 'I was wondering' }];
  function detector(
    behaviour: 'slow' | 'fail' | 'unlikely' | 'likely',
    asked: Array<readonly ConversationTurn[]> = [],
    /** `null`: the detector does not support the language. */
    threshold: number | null = 0.5,
  ): TurnDetector {
    return {
      specificationVersion: SPECIFICATION_VERSION,
      label: 'test-detector',
      unlikelyThreshold: () => threshold ?? undefined,
      predictEndOfTurn: (turns: readonly ConversationTurn[], options?: ProviderCallOptions) => {
        asked.push(turns);
        if (behaviour === 'fail') return Promise.reject(new Error('model crashed'));
        if (behaviour === 'likely') return Promise.resolve(0.9);
        if (behaviour === 'unlikely') return Promise.resolve(0.1);
        return new Promise((_resolve, reject) =>
          options?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      },
    };
  }
  const cases = [
    ['likely', 500],
    ['unlikely', 3000],
    ['slow', 3000],
    ['fail', 500],
  ] as const;
  for (const [behaviour, delay] of cases) {
    it(`commits at last speech + ${delay} ms when the detector is ${behaviour} (L9)`, async () => {
      const asked: Array<readonly ConversationTurn[]> = [];
      const h = await startSession({
        segments,
        agent: new Agent({ instructions: '' }),
        session: {
          turnDetector: detector(behaviour, asked),
          turnHandling: { minEndpointingDelay: 500, maxEndpointingDelay: 3000 },
        },
        totalMs: 8000,
      });
      await h.run(6000);
      const commit = records(h, 'user_turn_committed')[0]!;
      expect(commit.lastSpeechMs).toBe(1000);
      expect(commit.atMs).toBe(1000 + delay);
      expect(h.events.some((e) => e.name === 'error')).toBe(behaviour === 'fail');
      // The detector hears the spoken turns, ending with the pending one.
      expect(asked[0]).toEqual([{ role: 'user', text: 'I was wondering' }]);
      await h.session.close();
    });
  }

  it('endpoints on silence alone, without asking, when the detector has no threshold for the language', async () => {
    const asked: Array<readonly ConversationTurn[]> = [];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: {
        turnDetector: detector('unlikely', asked, null),
        turnHandling: { minEndpointingDelay: 500, maxEndpointingDelay: 3000 },
      },
      totalMs: 8000,
    });
    await h.run(6000);
    expect(records(h, 'user_turn_committed')[0]!.atMs).toBe(1500);
    expect(asked).toEqual([]);
    await h.session.close();
  });

  it('commits only on commitUserTurn() in manual mode', async () => {
    const h = await startSession({
      segments,
      replies: [{ text: 'Yes?' }],
      agent: new Agent({ instructions: '' }),
      session: { turnHandling: { turnDetection: 'manual' } },
      totalMs: 8000,
    });
    await h.run(4000);
    expect(records(h, 'user_turn_committed')).toEqual([]);
    h.session.commitUserTurn();
    await h.run(6000);
    expect(historyText(h.session)).toEqual(['user: I was wondering', 'assistant: Yes?']);
    await h.session.close();
  });
});

describe('tools and agents', () => {
  it('runs parallel calls, reports a throwing tool as an error output, and bounds steps', async () => {
    const ok = tool({ name: 'ok', description: '', execute: () => 'fine' });
    const boom = tool({
      name: 'boom',
      description: '',
      execute: () => {
        throw new Error('database down');
      },
    });
    const loop = {
      toolCalls: [
        { name: 'ok', args: {} },
        { name: 'boom', args: {} },
        { name: 'nope', args: {} },
      ],
    };
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'go' }],
      replies: [loop, loop, loop, loop],
      agent: new Agent({ instructions: '', tools: [ok, boom] }),
      session: { maxToolSteps: 2 },
      totalMs: 8000,
    });
    await h.run(6000);
    const outputs = h.session.history.items.filter((i) => i.type === 'function_call_output');
    expect(outputs).toHaveLength(6);
    expect(outputs.filter((o) => o.type === 'function_call_output' && o.isError)).toHaveLength(4);
    expect(h.llm.requests).toHaveLength(2);
    expect(h.events.filter((e) => e.name === 'function_tools_executed')).toHaveLength(2);
    expect(h.events.some((e) => e.name === 'error' && e.detail.includes('"source":"tool"'))).toBe(true);
    await h.session.close();
  });

  it('hands off to the agent a tool returns', async () => {
    const entered: string[] = [];
    class Billing extends Agent {
      constructor() {
        super({ instructions: 'billing', id: 'billing' });
      }
      override async onEnter() {
        entered.push('billing');
        this.session.say('Billing here.');
      }
    }
    class Front extends Agent {
      constructor() {
        super({
          instructions: 'front',
          id: 'front',
          tools: [tool({ name: 'transfer', description: '', execute: () => new Billing() })],
        });
      }
      override async onExit() {
        entered.push('front exit');
      }
    }
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'billing please' }],
      replies: [{ toolCalls: [{ name: 'transfer', args: {} }] }],
      agent: new Front(),
      totalMs: 8000,
    });
    await h.run(6000);
    expect(entered).toEqual(['front exit', 'billing']);
    expect(h.session.currentAgent?.id).toBe('billing');
    expect(historyText(h.session)).toContain('handoff front -> billing');
    expect(historyText(h.session)).toContain('assistant: Billing here.');
    expect(h.llm.requests).toHaveLength(1);
    await h.session.close();
  });

  it('rejects a tool awaiting its own speech instead of deadlocking', async () => {
    let caught: unknown;
    const selfWait = tool({
      name: 'self_wait',
      description: '',
      execute: async (_args, ctx) => {
        try {
          await ctx.speechHandle;
        } catch (error) {
          caught = error;
        }
        await ctx.waitForPlayout();
        return 'done';
      },
    });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'go' }],
      replies: [{ text: 'Working on it.', toolCalls: [{ name: 'self_wait', args: {} }] }, { text: 'Done.' }],
      agent: new Agent({ instructions: '', tools: [selfWait] }),
      totalMs: 8000,
    });
    await h.run(7000);
    expect(caught).toBeInstanceOf(SpeechDeadlockError);
    expect(historyText(h.session)).toContain('assistant: Done.');
    await h.session.close();
  });
});

describe('faults', () => {
  it('turns an LLM failure into a failed speech and an error event, then answers the next turn (S11)', async () => {
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'first' },
        { startMs: 4000, endMs: 4500, transcript: 'second' },
      ],
      replies: [{ error: new APIConnectionError('socket hang up') }, { text: 'Back online.' }],
      agent: new Agent({ instructions: '' }),
      totalMs: 9000,
    });
    await h.run(8000);
    expect(records(h, 'speech_done')[0]).toMatchObject({ outcome: 'failed' });
    expect(h.events.some((e) => e.name === 'error' && e.detail.includes('"source":"llm"'))).toBe(true);
    expect(historyText(h.session)).toEqual(['user: first', 'user: second', 'assistant: Back online.']);
    await h.session.close();
  });

  it('restarts a failed VAD stream, reports it, and returns userState to listening (L1)', async () => {
    const vad = new FlakyVAD(60);
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 2000, transcript: 'hello' },
        { startMs: 4000, endMs: 4500, transcript: 'again' },
      ],
      replies: [{ text: 'Hi.' }, { text: 'Hi again.' }],
      agent: new Agent({ instructions: '' }),
      session: { vad },
      totalMs: 8000,
    });
    await h.run(7000);
    expect(vad.streams).toBe(2);
    expect(records(h, 'vad_restarted')).toHaveLength(1);
    const crash = records(h, 'vad_restarted')[0]!;
    const listening = h.events.find(
      (e) =>
        e.name === 'user_state_changed' &&
        e.atMs >= crash.atMs &&
        JSON.parse(e.detail).newState === 'listening',
    );
    expect(listening?.atMs).toBe(crash.atMs);
    expect(historyText(h.session)).toContain('assistant: Hi again.');
    await h.session.close();
  });

  it('closes within its deadline with a tool ignoring its signal and an AgentTask awaited (L7)', async () => {
    let taskError: unknown;
    class Never extends AgentTask<string> {
      constructor() {
        super({ instructions: 'never ends' });
      }
    }
    const stubborn = tool({
      name: 'stubborn',
      description: '',
      execute: async (_args, ctx) => {
        ctx.disallowInterruptions();
        await ctx.session.clock.sleep(60_000);
        return 'late';
      },
    });
    const waits = tool({
      name: 'waits',
      description: '',
      execute: async () => {
        try {
          return await new Never();
        } catch (error) {
          taskError = error;
          throw error;
        }
      },
    });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'go' }],
      replies: [
        {
          text: 'Let me see.',
          toolCalls: [
            { name: 'stubborn', args: {} },
            { name: 'waits', args: {} },
          ],
        },
      ],
      agent: new Agent({ instructions: '', tools: [stubborn, waits] }),
      session: { closeTimeout: 2000 },
    });
    await h.run(3000);
    const at = h.clock.now();
    await h.session.close();
    expect(h.clock.now() - at).toBeLessThanOrEqual(2000);
    expect(String(taskError)).toMatch(/SessionClosedError/);
    const calls = h.session.history.items.filter((i) => i.type === 'function_call').length;
    const outputs = h.session.history.items.filter((i) => i.type === 'function_call_output').length;
    expect(outputs).toBe(calls);
  });
});

describe('misbehaving providers', () => {
  it('ends an interrupted speech promptly even when the LLM and TTS ignore their abort signals (L2)', async () => {
    const hungLLM: LLM = {
      specificationVersion: SPECIFICATION_VERSION,
      label: 'hung-llm',
      model: 'hung',
      supportsToolCalls: false,
      async *chat() {
        yield { type: 'text_delta', text: 'I will never finish this sentence' };
        await new Promise(() => {});
      },
    };
    const h = await startSession({
      agent: new Agent({ instructions: '' }),
      session: { llm: hungLLM },
      totalMs: 6000,
    });
    const reply = h.session.generateReply();
    await h.run(2000);
    expect(reply.done()).toBe(false);
    const at = h.clock.now();
    reply.interrupt();
    await reply;
    expect(h.clock.now() - at).toBeLessThanOrEqual(1000);
    expect(reply.outcome).toBe('interrupted');

    const hungTTS: TTS = {
      specificationVersion: SPECIFICATION_VERSION,
      kind: 'streaming',
      label: 'hung-tts',
      sampleRate: 16000,
      numChannels: 1,
      synthesize: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) }),
      stream: () => ({
        pushText: () => {},
        flush: () => {},
        endInput: () => {},
        close: () => new Promise(() => {}),
        [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }),
      }),
    };
    const h2 = await startSession({
      agent: new Agent({ instructions: '' }),
      session: { tts: hungTTS },
      totalMs: 6000,
    });
    const say = h2.session.say('hello');
    await h2.run(1000);
    say.interrupt();
    await say;
    expect(say.outcome).toBe('interrupted');
    const closing = h2.clock.now();
    await h2.session.close();
    expect(h2.clock.now() - closing).toBeLessThanOrEqual(5000);
    await h.session.close();
  });
});
