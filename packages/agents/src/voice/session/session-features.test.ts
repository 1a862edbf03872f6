import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import type { ChatContext, ChatMessage } from '../../llm/chat-context.js';
import { tool } from '../tools/tool.js';
import { Agent, StopResponse } from '../agent/agent.js';
import { AgentTask } from '../agent/agent-task.js';
import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type { BatchSTT } from '../../providers/stt.js';
import type { TextOutput } from '../../providers/audio-io.js';
import type { SessionMetrics } from './session-events.js';
import { type Harness, historyText, startSession } from '../../test-support/session-harness.js';

const LONG =
  'This is a rather long answer that keeps going for several seconds so the user can talk over it.';

function trace<T extends Harness['trace'][number]['type']>(h: Harness, type: T) {
  return h.trace.filter((r): r is Extract<Harness['trace'][number], { type: T }> => r.type === type);
}

function states(h: Harness, name: 'user_state_changed' | 'agent_state_changed') {
  return h.events
    .filter((e) => e.name === name)
    .map((e) => ({ atMs: e.atMs, state: JSON.parse(e.detail).newState }));
}

describe('speech API', () => {
  it('reveals the agent transcript as audio plays, and only the played part when cut', async () => {
    const pieces: string[] = [];
    let flushes = 0;
    const text: TextOutput = { captureText: (t) => pieces.push(t), flush: () => flushes++ };
    const h = await startSession({ agent: new Agent({ instructions: '' }), text, totalMs: 10_000 });
    const first = h.session.say('One two three four.');
    await first;
    expect(pieces.join('')).toBe('One two three four.');
    expect(flushes).toBe(1);
    expect(pieces.length).toBeGreaterThan(1);
    pieces.length = 0;
    const second = h.session.say(LONG);
    await h.clock.sleep(1500);
    second.interrupt();
    await second;
    const heard = pieces.join('');
    expect(LONG.startsWith(heard)).toBe(true);
    expect(heard.length).toBeGreaterThan(5);
    expect(heard.length).toBeLessThan(LONG.length / 2);
    expect(historyText(h.session).at(-1)).toBe(`assistant(interrupted): ${heard.trim()}`);
    await h.session.close();
  });

  it('without a text output runs no caption tick, and an interrupted message still holds what was heard', async () => {
    const timersDuringPlayout = async (text: TextOutput | undefined) => {
      const h = await startSession({ agent: new Agent({ instructions: '' }), text, totalMs: 10_000 });
      const speech = h.session.say(LONG);
      await h.clock.sleep(1500);
      const pending = h.clock.pendingTimers;
      speech.interrupt();
      await speech;
      const last = historyText(h.session).at(-1) ?? '';
      await h.session.close();
      return { pending, last };
    };
    const shown = await timersDuringPlayout({ captureText: () => {}, flush: () => {} });
    const hidden = await timersDuringPlayout(undefined);
    expect(hidden.pending).toBe(shown.pending - 1);
    // The played part comes from the playout itself, not from the caption tick.
    expect(hidden.last).toBe(shown.last);
    expect(hidden.last).toMatch(/^assistant\(interrupted\): This is a rather/);
    expect(hidden.last.length).toBeLessThan(`assistant(interrupted): ${LONG}`.length);
  });

  it('says streamed text and pre-rendered audio, and can keep them out of the history', async () => {
    const h = await startSession({ agent: new Agent({ instructions: '' }), totalMs: 10_000 });
    async function* words() {
      yield 'Streamed ';
      await h.clock.sleep(100);
      yield 'words.';
    }
    await h.session.say(words());
    async function* audio() {
      for (let i = 0; i < 50; i++) yield AudioFrame.silence(16000, 1, 320);
    }
    const started = h.clock.now();
    const handle = h.session.say('A recorded prompt.', { audio: audio() });
    await handle;
    expect(h.clock.now() - started).toBeGreaterThanOrEqual(1000);
    await h.session.say('Not recorded.', { addToChatCtx: false });
    expect(historyText(h.session)).toEqual(['assistant: Streamed words.', 'assistant: A recorded prompt.']);
    await h.session.close();
  });

  it('generateReply adds the user input and passes instructions and tool choice to the LLM', async () => {
    const h = await startSession({
      agent: new Agent({ instructions: 'base' }),
      replies: [{ text: 'Hello!' }],
      totalMs: 5000,
    });
    await h.session.generateReply({ userInput: 'hi', instructions: 'greet warmly', toolChoice: 'none' });
    expect(historyText(h.session)).toEqual(['user: hi', 'assistant: Hello!']);
    const request = h.llm.requests[0]!;
    expect(request.messages[0]).toEqual({ role: 'system', content: 'base\n\ngreet warmly' });
    expect(request.toolChoice).toBe('none');
    await h.session.close();
  });

  it('plays speeches in order, skips one interrupted while queued, and honours priority', async () => {
    const h = await startSession({ agent: new Agent({ instructions: '' }), totalMs: 15_000 });
    const a = h.session.say('First one.');
    const b = h.session.say('Second one.');
    const c = h.session.say('Third one.');
    b.interrupt();
    await Promise.all([a, b, c]);
    expect(b.outcome).toBe('interrupted');
    expect(trace(h, 'speech_frame').some((r) => r.speechId === b.id)).toBe(false);
    expect(historyText(h.session)).toEqual(['assistant: First one.', 'assistant: Third one.']);
    await h.session.close();
  });
});

describe('turns', () => {
  it('skips the reply when onUserTurnCompleted throws StopResponse, and logs it', async () => {
    class Quiet extends Agent {
      override async onUserTurnCompleted(_ctx: ChatContext, message: ChatMessage): Promise<void> {
        if (message.content.join('').includes('shh')) throw new StopResponse('user asked for silence');
      }
    }
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'shh now' }],
      agent: new Quiet({ instructions: '' }),
      totalMs: 5000,
    });
    await h.run(4000);
    expect(historyText(h.session)).toEqual(['user: shh now']);
    expect(trace(h, 'user_turn_skipped')).toMatchObject([
      { reason: 'stop_response: user asked for silence' },
    ]);
    expect(h.llm.requests).toHaveLength(0);
    await h.session.close();
  });

  it('commits only when told in manual mode, and forgets speech on clearUserTurn()', async () => {
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'forget this' },
        { startMs: 3000, endMs: 3500, transcript: 'keep this' },
      ],
      replies: [{ text: 'Kept.' }],
      agent: new Agent({ instructions: '' }),
      session: { turnHandling: { turnDetection: 'manual' } },
      totalMs: 7000,
    });
    await h.run(2000);
    h.session.clearUserTurn();
    await h.run(4500);
    h.session.commitUserTurn();
    await h.run(6000);
    expect(historyText(h.session)).toEqual(['user: keep this', 'assistant: Kept.']);
    await h.session.close();
  });

  it('goes away after mutual silence, never while a tool runs, and comes back on speech', async () => {
    const slow = tool({
      name: 'slow',
      description: '',
      execute: async (_a, ctx) => {
        await ctx.session.clock.sleep(5000);
        return 'done';
      },
    });
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'run it' },
        { startMs: 14_000, endMs: 14_500, transcript: 'hello' },
      ],
      replies: [{ toolCalls: [{ name: 'slow', args: {} }] }, { text: '' }, { text: 'Hi.' }],
      agent: new Agent({ instructions: '', tools: [slow] }),
      session: { userAwayTimeout: 3000 },
      totalMs: 16_000,
    });
    await h.run(15_500);
    const user = states(h, 'user_state_changed');
    const away = user.filter((s) => s.state === 'away');
    expect(away).toHaveLength(1);
    // Away comes only 3 s after the tool (and the reply step after it) finished.
    const toolEnd = trace(h, 'tool_finished')[0]!.atMs;
    expect(away[0]!.atMs).toBeGreaterThanOrEqual(toolEnd + 3000);
    expect(user.find((s) => s.atMs > away[0]!.atMs)?.state).toBe('speaking');
    await h.session.close();
  });

  it('never goes away while an AgentTask awaited from an agent hook runs', async () => {
    class QuietTask extends AgentTask<string> {
      override async onEnter(): Promise<void> {
        this.session.clock.setTimer(10_000, () => this.complete('done'));
      }
    }
    class Delegating extends Agent {
      override async onUserTurnCompleted(): Promise<void> {
        await new QuietTask({ instructions: '' });
      }
    }
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'hi' }],
      agent: new Delegating({ instructions: '' }),
      session: { userAwayTimeout: 3000 },
      totalMs: 16_000,
    });
    await h.run(15_500);
    const taskEnd = trace(h, 'task_finished')[0]!.atMs;
    const away = states(h, 'user_state_changed').filter((s) => s.state === 'away');
    // The away timer counts from the end of the task (and of the reply after it), not across it.
    expect(away).toHaveLength(1);
    expect(away[0]!.atMs).toBeGreaterThanOrEqual(taskEnd + 3000);
    await h.session.close();
  });

  it('reports per-turn metrics', async () => {
    const metrics: SessionMetrics[] = [];
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'measure me' }],
      replies: [{ text: 'Measured twice today.', ttftMs: 120 }],
      agent: new Agent({ instructions: '' }),
      totalMs: 5000,
    });
    h.session.on('metrics_collected', (e) => metrics.push(e.metrics));
    await h.run(4000);
    const byType = Object.fromEntries(metrics.map((m) => [m.type, m]));
    // The STT hears the end of speech with the first silent frame (delivered at 1020 ms) and answers 100 ms later.
    expect(byType.eou).toMatchObject({ endOfUtteranceDelayMs: 500, transcriptionDelayMs: 120 });
    expect(byType.llm).toMatchObject({ ttftMs: 120, tokensPerSecond: 75, usage: { completionTokens: 3 } });
    expect(byType.tts).toMatchObject({ ttfbMs: 50 });
    // 500 ms endpointing + 120 ms first token + 50 ms first audio.
    expect(byType.turn).toMatchObject({ endToEndLatencyMs: 670 });
    await h.session.close();
  });

  it('returns userState to listening at once when audio input ends', async () => {
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 5000, transcript: 'cut off' }],
      agent: new Agent({ instructions: '' }),
      totalMs: 2000,
    });
    await h.run(3000);
    const user = states(h, 'user_state_changed');
    expect(user.at(-1)).toEqual({ atMs: 2000, state: 'listening' });
    expect(h.session.agentState).toBe('idle');
    await h.session.close();
  });
});

describe('tools', () => {
  it('cancels an interruptible tool through its signal when the user cuts in, and records the cancellation', async () => {
    let aborted = false;
    const wait = tool({
      name: 'long_lookup',
      description: '',
      execute: async (_a, ctx) => {
        await ctx.session.clock.sleep(10_000, ctx.signal).catch(() => {
          aborted = ctx.signal.aborted;
        });
        return 'late';
      },
    });
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'look it up' },
        { startMs: 2500, endMs: 3500, transcript: 'never mind' },
      ],
      replies: [{ toolCalls: [{ name: 'long_lookup', args: {}, callId: 'c1' }] }, { text: 'Okay.' }],
      agent: new Agent({ instructions: '', tools: [wait] }),
      totalMs: 8000,
    });
    await h.run(7000);
    expect(aborted).toBe(true);
    expect(trace(h, 'tool_finished')).toMatchObject([{ outcome: 'cancelled' }]);
    const history = historyText(h.session);
    expect(history.filter((l) => l.startsWith('output long_lookup'))).toHaveLength(1);
    expect(history.at(-1)).toBe('assistant: Okay.');
    await h.session.close();
  });

  it('holds interruptions while parallel tools await tasks, releasing only when the last one ends', async () => {
    class Ask extends AgentTask<string> {
      constructor(
        readonly answer: string,
        readonly afterMs: number,
      ) {
        super({ instructions: `task ${answer}` });
      }
      override async onEnter(): Promise<void> {
        await this.session.clock.sleep(this.afterMs);
        this.complete(this.answer);
      }
    }
    const holds: number[] = [];
    const ask = (name: string, answer: string, afterMs: number) =>
      tool({ name, description: '', execute: async () => await new Ask(answer, afterMs) });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'both please' }],
      replies: [
        {
          toolCalls: [
            { name: 'a', args: {} },
            { name: 'b', args: {} },
          ],
        },
        { text: 'All done.' },
      ],
      agent: new Agent({ instructions: '', tools: [ask('a', 'A', 1000), ask('b', 'B', 3000)] }),
      totalMs: 9000,
    });
    await h.run(8000);
    for (const r of trace(h, 'interruption_hold')) holds.push(r.holds);
    expect(holds).toEqual([1, 2, 1, 0]);
    expect(historyText(h.session).filter((l) => l.startsWith('output'))).toEqual([
      'output a: A',
      'output b: B',
    ]);
    expect(h.events.filter((e) => e.name === 'error')).toEqual([]);
    await h.session.close();
  });
});

describe('providers', () => {
  it('drives a recognizer that cannot stream through the session VAD, and refuses one without a VAD', async () => {
    const segments = [{ startMs: 500, endMs: 1200, transcript: 'batch recognized' }];
    const batch: BatchSTT = {
      specificationVersion: SPECIFICATION_VERSION,
      kind: 'batch',
      label: 'batch-stt',
      inputSampleRates: [16000],
      recognize: async (frames) => {
        const code = frames.map((f) => f.data[0] ?? 0).find((v) => v >= 1000);
        const text = code === undefined ? '' : (segments[code - 1000]?.transcript ?? '');
        return [{ text }];
      },
    };
    const h = await startSession({
      segments,
      replies: [{ text: 'Heard you.' }],
      agent: new Agent({ instructions: '' }),
      session: { stt: batch },
      totalMs: 6000,
    });
    await h.run(5000);
    expect(historyText(h.session)).toEqual(['user: batch recognized', 'assistant: Heard you.']);
    await h.session.close();

    const errors: string[] = [];
    const noVad = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: (clock) => ({ stt: batch, vad: undefined, clock }),
      totalMs: 2000,
    });
    noVad.session.on('error', (e) => errors.push(String(e.error)));
    await noVad.run(2000);
    expect(noVad.events.filter((e) => e.name === 'error').map((e) => e.detail)).toEqual([
      expect.stringContaining('MissingVADError'),
    ]);
    await noVad.session.close();
  });
});

describe('endpointing with a slow recognizer', () => {
  it('waits for a late final transcript instead of committing an empty turn, up to the max delay (L9)', async () => {
    const segments = [{ startMs: 500, endMs: 1200, transcript: 'slow words' }];
    const make = (delayMs: number): BatchSTT => ({
      specificationVersion: SPECIFICATION_VERSION,
      kind: 'batch',
      label: 'slow-batch-stt',
      inputSampleRates: [16000],
      recognize: async () => {
        await h.clock.sleep(delayMs);
        return [{ text: 'slow words' }];
      },
    });
    let h = await startSession({
      segments,
      replies: [{ text: 'Got it.' }],
      agent: new Agent({ instructions: '' }),
      session: { stt: make(800), turnHandling: { minEndpointingDelay: 500, maxEndpointingDelay: 4000 } },
      totalMs: 8000,
    });
    await h.run(7000);
    const commit = trace(h, 'user_turn_committed')[0]!;
    // The VAD ends the utterance at 1500 (300 ms of silence); its final lands 800 ms later.
    expect(commit).toMatchObject({ transcript: 'slow words', atMs: 2300 });
    expect(historyText(h.session)).toEqual(['user: slow words', 'assistant: Got it.']);
    await h.session.close();

    h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: { stt: make(60_000), turnHandling: { minEndpointingDelay: 500, maxEndpointingDelay: 4000 } },
      totalMs: 8000,
    });
    await h.run(7000);
    expect(trace(h, 'user_turn_committed')[0]).toMatchObject({ transcript: '', atMs: 1200 + 4000 });
    expect(trace(h, 'user_turn_skipped')).toHaveLength(1);
    await h.session.close();
  });
});

describe('cut tools', () => {
  it('refuses to start an AgentTask from a tool whose speech was cut; what it returns after all replaces the cancellation', async () => {
    let taskError: unknown;
    class Later extends AgentTask<string> {
      constructor() {
        super({ instructions: 'later' });
      }
    }
    const stubborn = tool({
      name: 'stubborn',
      description: '',
      execute: async (_a, ctx) => {
        // Ignores its signal on purpose, then tries to take the conversation over.
        await ctx.session.clock.sleep(2000);
        try {
          await new Later();
        } catch (error) {
          taskError = error;
        }
        return 'too late';
      },
    });
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'go' }],
      replies: [{ toolCalls: [{ name: 'stubborn', args: {}, callId: 'c1' }] }],
      agent: new Agent({ instructions: '', tools: [stubborn] }),
      totalMs: 8000,
    });
    await h.run(2000);
    await h.session.interrupt();
    await h.run(6000);
    expect(String(taskError)).toMatch(/SpeechInterruptedError.*was interrupted/);
    expect(h.session.currentAgent?.instructions).toBe('');
    // Recorded as cancelled at the cut (the model heard why), then replaced by what the tool returned
    // (issue #13: a tool result is never silently dropped); still one output for the call.
    expect(trace(h, 'tool_finished')).toMatchObject([{ outcome: 'cancelled' }]);
    const outputs = h.session.history.items.filter((i) => i.type === 'function_call_output');
    expect(outputs).toMatchObject([{ callId: 'c1', output: 'too late', isError: false }]);
    expect(trace(h, 'tool_result_after_cut')).toMatchObject([{ callId: 'c1' }]);
    expect(trace(h, 'speech_interrupted')).toMatchObject([{ reason: 'api' }]);
    await h.session.close();
  });
});

describe('stt turn detection', () => {
  it('ends turns on the recognizer final, the min delay after it', async () => {
    const h = await startSession({
      segments: [{ startMs: 500, endMs: 1000, transcript: 'by the recognizer' }],
      replies: [{ text: 'Yes.' }],
      agent: new Agent({ instructions: '' }),
      session: { turnHandling: { turnDetection: 'stt', minEndpointingDelay: 300 } },
      totalMs: 5000,
    });
    await h.run(4000);
    // The final lands at 1120 (first silent frame + 100 ms); the VAD does not end the turn here.
    expect(trace(h, 'user_turn_committed')[0]).toMatchObject({
      atMs: 1120 + 300,
      transcript: 'by the recognizer',
    });
    expect(historyText(h.session)).toEqual(['user: by the recognizer', 'assistant: Yes.']);
    await h.session.close();
  });
});
