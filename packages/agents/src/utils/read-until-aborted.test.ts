import { describe, expect, it } from 'vitest';
import { controlledSource, items } from './async-source-test-helpers.js';
import { readUntilAborted, STOP_READING } from './read-until-aborted.js';

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('readUntilAborted', () => {
  it('hands over every item in order and resolves when the source ends, without stopping it', async () => {
    const seen: number[] = [];
    const { source, log, give, end } = controlledSource<number>();
    const reading = readUntilAborted(source, new AbortController().signal, (n) => {
      seen.push(n);
    });
    for (const n of [1, 2, 3]) {
      give(n);
      await settled();
    }
    end();
    await reading;
    expect(seen).toEqual([1, 2, 3]);
    expect(log.returned).toBe(0);
  });

  it('reads a generator and a source that answers next() with plain values', async () => {
    const seen: string[] = [];
    await readUntilAborted(items('a', 'b'), new AbortController().signal, (s) => {
      seen.push(s);
    });
    let n = 0;
    const plain = {
      [Symbol.asyncIterator]: () => ({
        next: () => (n < 2 ? { done: false, value: `p${n++}` } : { done: true, value: undefined }),
      }),
    } as unknown as AsyncIterable<string>;
    await readUntilAborted(plain, new AbortController().signal, (s) => {
      seen.push(s);
    });
    expect(seen).toEqual(['a', 'b', 'p0', 'p1']);
  });

  it('gives the item to the callback in the microtask its promise settles in', async () => {
    const { source, give } = controlledSource<number>();
    const seen: number[] = [];
    void readUntilAborted(source, new AbortController().signal, (n) => {
      seen.push(n);
    });
    give(7);
    // One reaction on the source's promise: the item is there after a single microtask hop.
    await Promise.resolve();
    expect(seen).toEqual([7]);
  });

  it('resolves at the abort although the source never yields again, stops it, and drops a late item', async () => {
    const { source, log, give } = controlledSource<number>();
    const controller = new AbortController();
    const seen: number[] = [];
    const reading = readUntilAborted(source, controller.signal, (n) => {
      seen.push(n);
    });
    give(1);
    await settled();
    controller.abort();
    await reading;
    expect(log.returned).toBe(1);
    give(2);
    await settled();
    expect(seen).toEqual([1]);
    expect(log.nexts).toBe(2);
  });

  it('never pulls a source whose signal has already aborted', async () => {
    const { source, log } = controlledSource<number>();
    await readUntilAborted(source, AbortSignal.abort(), () => {});
    expect(log.nexts).toBe(0);
    expect(log.returned).toBe(1);
  });

  it('stops when the callback returns STOP_READING, and does not pull again', async () => {
    const { source, log, give } = controlledSource<number>();
    const seen: number[] = [];
    const reading = readUntilAborted(source, new AbortController().signal, (n) => {
      seen.push(n);
      return n === 2 ? STOP_READING : undefined;
    });
    give(1);
    await settled();
    give(2);
    await reading;
    expect(seen).toEqual([1, 2]);
    expect(log.returned).toBe(1);
    expect(log.nexts).toBe(2);
  });

  it("rejects with the source's error, and with what the callback threw (stopping the source)", async () => {
    const broken = controlledSource<number>();
    const failing = readUntilAborted(broken.source, new AbortController().signal, () => {});
    broken.fail(new Error('socket dropped'));
    await expect(failing).rejects.toThrow('socket dropped');
    expect(broken.log.returned).toBe(0);

    const healthy = controlledSource<number>();
    const throwing = readUntilAborted(healthy.source, new AbortController().signal, () => {
      throw new TypeError('bad item');
    });
    healthy.give(1);
    await expect(throwing).rejects.toThrow(TypeError);
    expect(healthy.log.returned).toBe(1);
  });

  it('ends quietly when the source throws because it was aborted', async () => {
    const { source, fail } = controlledSource<number>();
    const controller = new AbortController();
    const reading = readUntilAborted(source, controller.signal, () => {});
    // The source's rejection is already queued when the abort lands in the same turn.
    fail(new Error('aborted'));
    controller.abort();
    await expect(reading).resolves.toBeUndefined();
  });

  it('rejects when next() itself throws', async () => {
    const source = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          throw new RangeError('cannot read');
        },
      }),
    } as unknown as AsyncIterable<number>;
    await expect(readUntilAborted(source, new AbortController().signal, () => {})).rejects.toThrow(
      RangeError,
    );
  });
});
