import { describe, expect, it } from 'vitest';
import { AllProvidersFailedError, APIConnectionError, APIStatusError, APITimeoutError } from '../errors.js';
import { type ProviderProblem, SPECIFICATION_VERSION } from '../providers/common.js';
import type { LLM, LLMChatOptions, LLMMessage, LLMStreamPart } from '../providers/llm.js';
import { VirtualClock } from '../time/virtual-clock.js';
import type { AvailabilityChangedEvent } from './fallback-core.js';
import { LLMFallbackAdapter } from './fallback-llm.js';

type Mode =
  | { kind: 'ok' }
  | { kind: 'fail'; error: Error }
  | { kind: 'fail-after'; parts: number; error: Error }
  | { kind: 'hang' };

/** Replies with its label's words after a time to first token; its mode scripts failures. */
class FakeLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly model: string;
  supportsToolCalls = true;
  readonly calls: Array<{ at: number; signal: AbortSignal | undefined; options: LLMChatOptions }> = [];
  mode: Mode = { kind: 'ok' };
  closed = false;
  constructor(
    readonly label: string,
    private readonly clock: VirtualClock,
    private readonly ttftMs = 100,
  ) {
    this.model = `${label}-model`;
  }

  async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    const signal = options.signal;
    this.calls.push({ at: this.clock.now(), signal, options });
    try {
      await this.clock.sleep(this.ttftMs, signal);
      const mode = this.mode;
      if (mode.kind === 'fail') throw mode.error;
      if (mode.kind === 'hang') await this.clock.sleep(1e9, signal);
      const words = [`${this.label}:`, ' hello', ' there'];
      for (let i = 0; i < words.length; i++) {
        if (mode.kind === 'fail-after' && i === mode.parts) throw mode.error;
        yield { type: 'text_delta', text: words[i]! };
        await this.clock.sleep(10, signal);
      }
      yield { type: 'finish', reason: 'stop' };
    } catch (error) {
      if (signal?.aborted) return; // the contract: aborting ends the stream quietly
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function messages(): LLMMessage[] {
  return [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
}

async function text(llm: LLM, signal?: AbortSignal): Promise<string> {
  let out = '';
  for await (const part of llm.chat({ messages: messages(), ...(signal ? { signal } : {}) })) {
    if (part.type === 'text_delta') out += part.text;
  }
  return out;
}

function setup(options: { attemptTimeoutMs?: number; retryIntervalMs?: number } = {}) {
  const clock = new VirtualClock();
  const a = new FakeLLM('a', clock);
  const b = new FakeLLM('b', clock);
  const adapter = new LLMFallbackAdapter([a, b], { clock, retryIntervalMs: 60_000, ...options });
  const events: Array<AvailabilityChangedEvent & { at: number }> = [];
  adapter.on('availability_changed', (e) => events.push({ ...e, at: clock.now() }));
  return { clock, a, b, adapter, events };
}

describe('LLMFallbackAdapter', () => {
  it('serves from the first provider while it works', async () => {
    const { a, b, adapter, events } = setup();
    expect(await text(adapter)).toBe('a: hello there');
    expect([a.calls.length, b.calls.length]).toEqual([1, 0]);
    expect(events).toEqual([]);
    expect(adapter.label).toBe('FallbackAdapter(a, b)');
    expect(adapter.model).toBe('a-model');
    await adapter.close();
  });

  it('moves to the next provider when one fails before any output', async () => {
    const { a, adapter, events } = setup();
    const error = new APIConnectionError('down');
    a.mode = { kind: 'fail', error };
    expect(await text(adapter)).toBe('b: hello there');
    expect(events).toEqual([{ provider: 'a', index: 0, available: false, error, at: 100 }]);
    expect(adapter.availability()).toEqual([
      { provider: 'a', index: 0, available: false },
      { provider: 'b', index: 1, available: true },
    ]);
    expect(adapter.model).toBe('b-model');
    // The next request goes straight to the healthy provider.
    expect(await text(adapter)).toBe('b: hello there');
    expect(a.calls).toHaveLength(1);
    await adapter.close();
  });

  it('surfaces a failure after partial output instead of repeating the text elsewhere', async () => {
    const { a, b, adapter, events } = setup();
    const error = new APIStatusError('stream broke', { statusCode: 502 });
    a.mode = { kind: 'fail-after', parts: 1, error };
    const received: string[] = [];
    const outcome = (async () => {
      for await (const part of adapter.chat({ messages: messages() })) {
        if (part.type === 'text_delta') received.push(part.text);
      }
    })();
    await expect(outcome).rejects.toBe(error);
    expect(received).toEqual(['a:']);
    expect(b.calls).toHaveLength(0);
    expect(events.map((e) => [e.provider, e.available])).toEqual([['a', false]]);
    await adapter.close();
  });

  it('gives up on a silent provider after attemptTimeoutMs', async () => {
    const { clock, a, adapter, events } = setup({ attemptTimeoutMs: 500 });
    a.mode = { kind: 'hang' };
    let firstPartAt: number | undefined;
    for await (const part of adapter.chat({ messages: messages() })) {
      firstPartAt ??= clock.now();
      expect(part).toEqual({ type: 'text_delta', text: 'b:' });
      break;
    }
    expect(firstPartAt).toBe(600);
    expect(events[0]!.error).toBeInstanceOf(APITimeoutError);
    expect(a.calls[0]!.signal?.aborted).toBe(true);
    await adapter.close();
  });

  it('throws AllProvidersFailedError with every error when all fail', async () => {
    const { a, b, adapter } = setup();
    const errors = [new APIConnectionError('a down'), new APIStatusError('b down', { statusCode: 500 })];
    a.mode = { kind: 'fail', error: errors[0]! };
    b.mode = { kind: 'fail', error: errors[1]! };
    const failure = await text(adapter).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AllProvidersFailedError);
    expect((failure as AllProvidersFailedError).errors).toEqual(errors);
    expect((failure as Error).message).toBe('All LLM providers failed: a down; b down');
    await adapter.close();
  });

  it('probes an unavailable provider in the background and brings it back', async () => {
    const { clock, a, adapter, events } = setup({ retryIntervalMs: 1_000 });
    a.mode = { kind: 'fail', error: new APIConnectionError('down') };
    clock.setTimer(2_500, () => {
      a.mode = { kind: 'ok' };
    });
    await text(adapter); // a fails at 100 ms
    while (!adapter.availability()[0]!.available) await clock.sleep(100);
    // Probes start 1 s after each failure and take the 100 ms time to first token: 1100-1200 fails,
    // 2200-2300 fails, 3300-3400 succeeds.
    expect(events.map((e) => [e.provider, e.available, e.at])).toEqual([
      ['a', false, 100],
      ['a', true, 3_400],
    ]);
    expect(a.calls.map((c) => c.at)).toEqual([0, 1_100, 2_200, 3_300]);
    expect(await text(adapter)).toBe('a: hello there');
    await adapter.close();
  });

  it('gives unavailable providers a last chance before failing', async () => {
    const { a, b, adapter, events } = setup();
    a.mode = { kind: 'fail', error: new APIConnectionError('down') };
    await text(adapter);
    a.mode = { kind: 'ok' };
    b.mode = { kind: 'fail', error: new APIConnectionError('b down too') };
    expect(await text(adapter)).toBe('a: hello there');
    expect(events.map((e) => [e.provider, e.available])).toEqual([
      ['a', false],
      ['b', false],
      ['a', true],
    ]);
    await adapter.close();
  });

  it('ends quietly when the caller aborts, without blaming the provider', async () => {
    const { clock, a, b, adapter, events } = setup();
    const controller = new AbortController();
    clock.setTimer(50, () => controller.abort());
    expect(await text(adapter, controller.signal)).toBe('');
    expect(a.calls[0]!.signal?.aborted).toBe(true);
    expect(b.calls).toHaveLength(0);
    expect(events).toEqual([]);
    await adapter.close();
  });

  it('releases the provider when the consumer stops early', async () => {
    const { a, adapter } = setup();
    for await (const _part of adapter.chat({ messages: messages() })) break;
    expect(a.calls[0]!.signal?.aborted).toBe(true);
    await adapter.close();
  });

  it('close() stops the probes and closes the providers', async () => {
    const { clock, a, b, adapter } = setup({ retryIntervalMs: 1_000 });
    a.mode = { kind: 'fail', error: new APIConnectionError('down') };
    await text(adapter);
    expect(clock.pendingTimers).toBeGreaterThan(0);
    await adapter.close();
    expect(clock.pendingTimers).toBe(0);
    expect([a.closed, b.closed]).toEqual([true, true]);
  });

  it('a throwing listener does not change which provider serves', async () => {
    const { a, adapter } = setup();
    const listenerErrors: unknown[] = [];
    adapter.onListenerError = (error) => listenerErrors.push(error);
    adapter.on('availability_changed', () => {
      throw new Error('listener bug');
    });
    a.mode = { kind: 'fail', error: new APIConnectionError('down') };
    expect(await text(adapter)).toBe('b: hello there');
    expect(listenerErrors).toHaveLength(1);
    await adapter.close();
  });

  it('passes the request to the serving provider as it is, with its own signal', async () => {
    const { a, b, adapter } = setup();
    a.mode = { kind: 'fail', error: new APIConnectionError('down') };
    const problems: ProviderProblem[] = [];
    const request: LLMChatOptions = {
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      ],
      tools: [{ name: 'weather', description: 'the weather', parameters: { type: 'object' } }],
      toolChoice: 'required',
      extra: { seed: 7 },
      onProblem: (problem) => problems.push(problem),
    };
    for await (const _part of adapter.chat(request)) {
      // drained
    }
    for (const provider of [a, b]) {
      const { signal, onProblem, ...rest } = provider.calls[0]!.options;
      expect(rest).toEqual({
        messages: request.messages,
        tools: request.tools,
        toolChoice: 'required',
        extra: { seed: 7 },
      });
      expect(signal).toBeInstanceOf(AbortSignal);
      onProblem?.({ type: 'warning', message: `from ${provider.label}` });
    }
    // A provider's recoverable problems reach the caller's channel.
    expect(problems).toEqual([
      { type: 'warning', message: 'from a' },
      { type: 'warning', message: 'from b' },
    ]);
    await adapter.close();
  });

  it('advertises only what every provider supports and needs a provider', () => {
    const clock = new VirtualClock();
    const both = new LLMFallbackAdapter([new FakeLLM('a', clock), new FakeLLM('b', clock)], { clock });
    expect(both.supportsToolCalls).toBe(true);
    expect(both.specificationVersion).toBe('v1');
    const plain = Object.assign(new FakeLLM('c', clock), { supportsToolCalls: false });
    const adapter = new LLMFallbackAdapter([new FakeLLM('a', clock), plain], { clock });
    expect(adapter.supportsToolCalls).toBe(false);
    expect(() => new LLMFallbackAdapter([], { clock })).toThrow(TypeError);
    expect(() => new LLMFallbackAdapter([plain], { clock, retryIntervalMs: 0 })).toThrow(RangeError);
  });
});
