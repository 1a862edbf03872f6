import { describe, expect, it } from 'vitest';
import type { LLMMessage } from '../../providers/llm.js';
import { historyText, startSession } from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';
import { tool } from './tool.js';

describe('a tool that finishes after its speech was cut', () => {
  it('has what it returned recorded once, in place of the cancellation, for the next reply to use', async () => {
    let placed = 0;
    const placeOrder = tool({
      name: 'place_order',
      description: 'Places the order.',
      // A payment call that cannot be taken back: it ignores the signal and finishes its work.
      execute: async (_args, ctx) => {
        await ctx.session.clock.sleep(3000);
        placed++;
        return 'order 42 placed';
      },
    });
    const seen: LLMMessage[][] = [];
    const h = await startSession({
      segments: [
        { startMs: 500, endMs: 1000, transcript: 'place the order' },
        { startMs: 2200, endMs: 3200, transcript: 'hold on' },
        { startMs: 7000, endMs: 7500, transcript: 'did it go through' },
      ],
      respond: (messages) => {
        seen.push([...messages]);
        if (seen.length === 1) return { toolCalls: [{ name: 'place_order', args: {}, callId: 'c1' }] };
        return { text: 'Yes.' };
      },
      agent: new Agent({ instructions: '', tools: [placeOrder] }),
      totalMs: 10_000,
    });
    await h.run(9500);
    expect(placed).toBe(1);
    const outputs = historyText(h.session).filter((l) => l.startsWith('output place_order'));
    expect(outputs).toEqual(['output place_order: order 42 placed']);
    const last = seen.at(-1)!;
    const toolMessages = last.filter((m) => m.role === 'tool');
    expect(JSON.stringify(toolMessages)).toContain('order 42 placed');
    expect(JSON.stringify(last)).not.toContain('cancelled');
    expect(h.trace.filter((t) => t.type === 'tool_result_after_cut')).toHaveLength(1);
  });
});
