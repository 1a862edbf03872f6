import { describe, expect, it } from 'vitest';
import { Agent } from './agent.js';
import { TaskQueue } from './task-queue.js';

const agent = (id: string) => new Agent({ instructions: '', id });

describe('TaskQueue', () => {
  it('lets sibling tasks take turns in the order they were awaited, and nests a task awaited by the one in charge', async () => {
    const queue = new TaskQueue();
    const parent = agent('parent');
    const [a, b, c, nested] = ['a', 'b', 'c', 'nested'].map(agent) as [Agent, Agent, Agent, Agent];
    const never = new AbortController().signal;
    const started: string[] = [];
    const turn = (task: Agent, requester: Agent) =>
      queue.turn(task, requester, never).then(() => started.push(task.id));
    await turn(a, parent);
    const waiting = [turn(b, parent), turn(c, parent)];
    await turn(nested, a);
    expect(started).toEqual(['a', 'nested']);
    queue.ended(nested);
    await Promise.resolve();
    expect(started).toEqual(['a', 'nested']);
    queue.ended(a);
    await waiting[0];
    expect(started).toEqual(['a', 'nested', 'b']);
    expect(queue.isActive(b)).toBe(true);
    queue.ended(b);
    await waiting[1];
    expect(started).toEqual(['a', 'nested', 'b', 'c']);
  });

  it('a waiter whose signal aborts leaves the line with the reason, and the next one moves up', async () => {
    const queue = new TaskQueue();
    const parent = agent('parent');
    const [a, b, c] = ['a', 'b', 'c'].map(agent) as [Agent, Agent, Agent];
    const never = new AbortController().signal;
    await queue.turn(a, parent, never);
    const cut = new AbortController();
    const second = queue.turn(b, parent, cut.signal);
    const third = queue.turn(c, parent, never);
    cut.abort(new Error('speech cut'));
    await expect(second).rejects.toThrow('speech cut');
    queue.ended(a);
    await third;
    expect(queue.isActive(c)).toBe(true);
    expect(queue.isActive(b)).toBe(false);
  });
});
