import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionNotStartedError, ToolError } from '../../errors.js';
import { startSession } from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';
import { AgentSession } from '../session/agent-session.js';
import { tool } from './tool.js';

/** Runs one turn whose reply calls `broken`, and returns the tool's output and the session's errors. */
async function callTool(execute: () => unknown) {
  const broken = tool({ name: 'broken', description: '', execute });
  const h = await startSession({
    segments: [{ startMs: 500, endMs: 1000, transcript: 'use the tool' }],
    replies: [{ toolCalls: [{ name: 'broken', args: {} }] }, { text: 'Sorry about that.' }],
    agent: new Agent({ instructions: '', tools: [broken] }),
    totalMs: 5000,
  });
  const errors: Array<{ source: string; error: unknown; recoverable: boolean }> = [];
  h.session.on('error', (e) => errors.push(e));
  await h.run(4500);
  const outputs = h.session.history.items.filter((i) => i.type === 'function_call_output');
  const spoken = h.session.history.items.filter((i) => i.type === 'message' && i.role === 'assistant');
  await h.session.close();
  return { outputs, errors, spoken };
}

describe('tool failures', () => {
  it.each([
    ['undefined', undefined],
    ['a string', 'out of stock'],
  ])('a tool that throws %s is a tool error for the LLM and an error event', async (_name, thrown) => {
    const r = await callTool(() => {
      throw thrown;
    });
    expect(r.outputs).toEqual([
      expect.objectContaining({
        name: 'broken',
        isError: true,
        output: 'The tool "broken" failed unexpectedly.',
      }),
    ]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ source: 'tool', recoverable: true });
    expect(r.errors[0]!.error).toBeInstanceOf(Error);
    expect((r.errors[0]!.error as Error).cause).toBe(thrown);
    expect(r.spoken).toHaveLength(1);
  });

  it.each([
    [
      'a cycle',
      () => {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      },
    ],
    ['a BigInt', () => ({ total: 10n })],
    ['a function', () => () => 1],
  ])(
    'a result holding %s is a clear tool error, not "[object Object]" marked success',
    async (_name, result) => {
      const r = await callTool(result);
      expect(r.outputs).toEqual([
        expect.objectContaining({
          name: 'broken',
          isError: true,
          output: expect.stringMatching(
            /^The tool "broken" returned a result that cannot be sent to the model \(.+\)\.$/,
          ),
        }),
      ]);
      expect(r.errors).toMatchObject([{ source: 'tool', recoverable: true, error: expect.any(ToolError) }]);
    },
  );

  it('refuses, when tool() is called, a schema with an async refinement or transform', () => {
    const refined = z.object({ sku: z.string().refine(async (v) => v.length > 0) });
    const transformed = z.object({ sku: z.string().transform(async (v) => v.trim()) });
    const nested = z.object({ items: z.array(z.object({ sku: z.string().refine(async () => true) })) });
    for (const parameters of [refined, transformed, nested]) {
      expect(() => tool({ name: 'order', description: '', parameters, execute: () => 'ok' })).toThrow(
        /Tool "order": parameters use an async/,
      );
    }
    // Sync refinements stay allowed.
    const sync = z.object({ sku: z.string().refine((v) => v.length > 0) });
    expect(tool({ name: 'order', description: '', parameters: sync, execute: () => 'ok' }).name).toBe(
      'order',
    );
  });

  it('a refinement that returns a promise without being async is a schema error, not a model error', () => {
    const sneaky = z.object({ sku: z.string().refine((v) => Promise.resolve(v.length > 0)) });
    const t = tool({ name: 'order', description: '', parameters: sneaky, execute: () => 'ok' });
    expect(() => t.parseArguments('{"sku":"a"}')).toThrow(TypeError);
    expect(() => t.parseArguments('{"sku":"a"}')).not.toThrow(ToolError);
  });
});

describe('AgentSession before start()', () => {
  it('throws SessionNotStartedError from the methods that need a running session', async () => {
    const session = new AgentSession({});
    const calls: Array<() => unknown> = [
      () => session.say('hello'),
      () => session.generateReply(),
      () => session.commitUserTurn(),
      () => session.clearUserTurn(),
    ];
    for (const call of calls) expect(call).toThrow(SessionNotStartedError);
    await expect(session.interrupt()).rejects.toBeInstanceOf(SessionNotStartedError);
    await expect(session.updateAgent(new Agent({ instructions: '' }))).rejects.toBeInstanceOf(
      SessionNotStartedError,
    );
  });
});
