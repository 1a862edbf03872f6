import { describe, expect, it } from 'vitest';
import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type { LLM, LLMChatOptions, LLMStreamPart } from '../../providers/llm.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { Agent } from '../agent/agent.js';
import { PreemptiveGeneration, type PreemptiveKey } from './preemptive-generation.js';

function slowLLM(clock: VirtualClock, fail?: Error) {
  const signals: AbortSignal[] = [];
  const llm: LLM = {
    specificationVersion: SPECIFICATION_VERSION,
    label: 'slow',
    model: 'slow',
    supportsToolCalls: true,
    async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
      signals.push(options.signal!);
      for (const word of ['one ', 'two ', 'three']) {
        await clock.sleep(100, options.signal);
        if (fail) throw fail;
        yield { type: 'text_delta', text: word };
      }
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return { llm, signals };
}

function keyFor(llm: LLM, agent: Agent): PreemptiveKey {
  return { agent, llm, instructions: agent.instructions, transcript: 'hi', contextIds: '' };
}

describe('PreemptiveGeneration', () => {
  it('hands what it buffered and what follows to one reply, once', async () => {
    const clock = new VirtualClock();
    const { llm } = slowLLM(clock);
    const agent = new Agent({ instructions: 'x' });
    const key = keyFor(llm, agent);
    const generation = new PreemptiveGeneration(key, { messages: [] });
    await clock.sleep(150);
    expect(generation.matches(key)).toBe(true);
    expect(generation.matches({ ...key, transcript: 'hi there' })).toBe(false);
    const parts: string[] = [];
    for await (const part of generation.take(new AbortController().signal))
      parts.push(part.type === 'text_delta' ? part.text : part.type);
    expect(parts).toEqual(['one ', 'two ', 'three', 'finish']);
    expect(generation.matches(key)).toBe(false);
  });

  it('cancel() and the reply signal abort the request; a failed one is not offered', async () => {
    const clock = new VirtualClock();
    const { llm, signals } = slowLLM(clock);
    const agent = new Agent({ instructions: 'x' });
    const cancelled = new PreemptiveGeneration(keyFor(llm, agent), { messages: [] });
    cancelled.cancel();
    expect(signals[0]!.aborted).toBe(true);
    expect(cancelled.matches(keyFor(llm, agent))).toBe(false);

    const taken = new PreemptiveGeneration(keyFor(llm, agent), { messages: [] });
    const reply = new AbortController();
    const iterator = taken.take(reply.signal)[Symbol.asyncIterator]();
    await iterator.next();
    reply.abort();
    expect(signals[1]!.aborted).toBe(true);
    expect((await iterator.next()).done).toBe(true);

    const failing = slowLLM(clock, new Error('boom'));
    const failed = new PreemptiveGeneration(keyFor(failing.llm, agent), { messages: [] });
    await clock.sleep(200);
    expect(failed.matches(keyFor(failing.llm, agent))).toBe(false);
  });
});
