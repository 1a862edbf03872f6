import { describe, expect, it } from 'vitest';
import { controlledSource, items } from './async-source-test-helpers.js';
import { untilAborted } from './abortable.js';

describe('untilAborted', () => {
  it('passes every item through and ends with the source, without stopping it', async () => {
    const seen: number[] = [];
    for await (const n of untilAborted(items(1, 2, 3), new AbortController().signal)) seen.push(n);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('ends a pending next() at the abort even when the source never yields again, and stops the source', async () => {
    const { source, log, give } = controlledSource<number>();
    const controller = new AbortController();
    const iterator = untilAborted(source, controller.signal);
    const first = iterator.next();
    give(1);
    expect(await first).toEqual({ done: false, value: 1 });
    const pending = iterator.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(log.returned).toBe(1);
    // Finished for good: no further pulls from the source.
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(log.nexts).toBe(2);
  });

  it('drops an item that arrives after the abort answered', async () => {
    const { source, give } = controlledSource<string>();
    const controller = new AbortController();
    const iterator = untilAborted(source, controller.signal);
    const pending = iterator.next();
    controller.abort();
    give('late');
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('yields nothing from an already aborted signal', async () => {
    const { source, log } = controlledSource<number>();
    const iterator = untilAborted(source, AbortSignal.abort());
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(log.nexts).toBe(0);
  });

  it("rethrows the source's error, and does not ask a failed source to stop", async () => {
    const { source, log, fail } = controlledSource<number>();
    const iterator = untilAborted(source, new AbortController().signal);
    const pending = iterator.next();
    fail(new Error('socket closed'));
    await expect(pending).rejects.toThrow('socket closed');
    expect(log.returned).toBe(0);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('ends quietly when the source fails because of the abort', async () => {
    const { source, fail } = controlledSource<number>();
    const controller = new AbortController();
    const iterator = untilAborted(source, controller.signal);
    const pending = iterator.next();
    // A source that rejects in its own abort handler, before ours runs.
    controller.signal.addEventListener('abort', () => fail(new Error('aborted')));
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('stops the source when the consumer breaks out, and releases its abort listener', async () => {
    const { source, log, give } = controlledSource<number>();
    const controller = new AbortController();
    let removed = 0;
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.removeEventListener = (...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    };
    const loop = (async () => {
      for await (const n of untilAborted(source, controller.signal)) if (n === 2) break;
    })();
    give(1);
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    give(2);
    await loop;
    expect(log.returned).toBe(1);
    expect(removed).toBe(1);
  });
});
