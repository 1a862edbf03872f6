import { describe, expect, it } from 'vitest';
import type { AgentSession } from '../session/agent-session.js';
import { currentRunScope, type RunScope, runInScope, runOutsideScopes } from './run-scope.js';

const session = {} as AgentSession;
const scope = (name: string): RunScope => ({ session, runContext: undefined, agent: { name } as never });
const nameOf = (s: RunScope | undefined) => (s?.agent as { name: string } | undefined)?.name;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('run scopes', () => {
  it('is visible to everything the scoped code awaits, until it settles', async () => {
    const seen: Array<string | undefined> = [];
    await runInScope(scope('a'), async () => {
      seen.push(nameOf(currentRunScope()));
      await tick();
      seen.push(nameOf(currentRunScope()));
      await Promise.all([1, 2].map(async () => seen.push(nameOf(currentRunScope()))));
    });
    seen.push(nameOf(currentRunScope()));
    expect(seen).toEqual(['a', 'a', 'a', 'a', undefined]);
  });

  it('keeps concurrent and nested scopes apart', async () => {
    const seen: string[] = [];
    const a = runInScope(scope('a'), async () => {
      await tick();
      seen.push(`a:${nameOf(currentRunScope())}`);
      await runInScope(scope('inner'), async () => {
        await tick();
        seen.push(`inner:${nameOf(currentRunScope())}`);
      });
      seen.push(`a again:${nameOf(currentRunScope())}`);
    });
    const b = runInScope(scope('b'), async () => {
      await tick();
      await tick();
      seen.push(`b:${nameOf(currentRunScope())}`);
    });
    await Promise.all([a, b]);
    expect(seen.sort()).toEqual(['a again:a', 'a:a', 'b:b', 'inner:inner']);
  });

  it('is gone for work the scoped code left behind, even while another scope runs', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let seenLater: RunScope | undefined = scope('unset');
    let leftBehind: Promise<void> | undefined;
    await runInScope(scope('done'), async () => {
      leftBehind = released.then(() => {
        seenLater = currentRunScope();
      });
    });
    await runInScope(scope('other'), async () => {
      release();
      await leftBehind;
    });
    expect(seenLater).toBeUndefined();
  });

  it('hides the scope from a speech a tool starts', async () => {
    let inSpeech: RunScope | undefined = scope('unset');
    await runInScope(scope('tool'), async () => {
      await runOutsideScopes(async () => {
        await tick();
        inSpeech = currentRunScope();
      });
    });
    expect(inSpeech).toBeUndefined();
  });

  it('settles with what a throwing function threw, and ends its scope', async () => {
    await expect(
      runInScope(scope('x'), () => {
        throw new Error('sync throw');
      }),
    ).rejects.toThrow('sync throw');
    await expect(runInScope(scope('y'), async () => Promise.reject(new Error('async')))).rejects.toThrow(
      'async',
    );
    expect(currentRunScope()).toBeUndefined();
  });
});
