import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { APIStatusError, APITimeoutError } from '../errors.js';
import type { ProviderProblem } from '../providers/common.js';
import { drain, scriptedSource, settle } from '../test-support/scripted-source.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { withIdleTimeout } from './idle-timeout.js';
import { retryBeforeFirstItem } from './retry-stream.js';

describe('withIdleTimeout', () => {
  it('passes items through and leaves no timer, the source signal released', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<number>(clock, [
      [{ waitMs: 90 }, { item: 1 }, { waitMs: 90 }, { item: 2 }],
    ]);
    const { items, error } = await drain(withIdleTimeout(source.open, { clock, idleTimeoutMs: 100 }));
    expect({ items, error }).toEqual({ items: [1, 2], error: undefined });
    expect(clock.pendingTimers).toBe(0);
    expect(source.signals[0]!.aborted).toBe(true);
  });

  it('fails a source that sends nothing within firstItemTimeoutMs, aborting it with the timeout', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<number>(clock, [[{ waitMs: 10_000 }, { item: 1 }]]);
    const { items, error } = await drain(
      withIdleTimeout(source.open, {
        clock,
        idleTimeoutMs: 100,
        firstItemTimeoutMs: 2_000,
        label: 'acme.TTS',
      }),
    );
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as APITimeoutError).retryable).toBe(true);
    expect((error as Error).message).toBe('acme.TTS: nothing received within 2000 ms');
    expect(clock.now()).toBe(2_000);
    expect(source.signals[0]!.reason).toBe(error);
    await settle();
    expect(source.cleanups()).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails a stream that stalls after its first items, counting from the last one', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<string>(clock, [
      [{ waitMs: 1_500 }, { item: 'a' }, { waitMs: 250 }, { item: 'b' }, { waitMs: 60_000 }, { item: 'c' }],
    ]);
    const { items, error } = await drain(
      withIdleTimeout(source.open, { clock, idleTimeoutMs: 300, firstItemTimeoutMs: 2_000 }),
    );
    expect(items).toEqual(['a', 'b']);
    expect((error as Error).message).toBe('stream: no data for 300 ms');
    expect(clock.now()).toBe(1_500 + 250 + 300);
    expect(clock.pendingTimers).toBe(0);
  });

  it('does not count the time the consumer spends on an item', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<number>(clock, [[{ item: 1 }, { item: 2 }, { item: 3 }]]);
    const items: number[] = [];
    for await (const item of withIdleTimeout(source.open, { clock, idleTimeoutMs: 100 })) {
      await clock.sleep(5_000);
      items.push(item);
    }
    expect(items).toEqual([1, 2, 3]);
  });

  it('times out a source that ignores its abort, and keeps the timeout over its own abort error', async () => {
    const clock = new VirtualClock();
    const stuck = scriptedSource<number>(clock, [[{ item: 1 }, { hang: true }]]);
    const first = await drain(withIdleTimeout(stuck.open, { clock, idleTimeoutMs: 100 }));
    expect(first.items).toEqual([1]);
    expect(first.error).toBeInstanceOf(APITimeoutError);

    const sdkLike = withIdleTimeout(
      (signal) => ({
        [Symbol.asyncIterator]: () => ({
          next: () =>
            new Promise<IteratorResult<number>>((_, reject) => {
              signal.addEventListener('abort', () => reject(new Error('Request was aborted.')));
            }),
        }),
      }),
      { clock, idleTimeoutMs: 100 },
    );
    expect((await drain(sdkLike)).error).toBeInstanceOf(APITimeoutError);
    expect(clock.pendingTimers).toBe(0);
  });

  it('passes on what the source throws', async () => {
    const clock = new VirtualClock();
    const failure = new APIStatusError('bad gateway', { statusCode: 502 });
    const source = scriptedSource<number>(clock, [[{ item: 1 }, { fail: failure }]]);
    const { items, error } = await drain(withIdleTimeout(source.open, { clock, idleTimeoutMs: 100 }));
    expect({ items, error }).toEqual({ items: [1], error: failure });
  });

  it('ends quietly on the caller abort, even mid-wait, and leaves no timer or listener', async () => {
    const clock = new VirtualClock();
    const caller = new AbortController();
    const source = scriptedSource<number>(clock, [[{ item: 1 }, { hang: true }]]);
    clock.setTimer(40, () => caller.abort());
    const { items, error } = await drain(
      withIdleTimeout(source.open, { clock, idleTimeoutMs: 1_000, signal: caller.signal }),
    );
    expect({ items, error }).toEqual({ items: [1], error: undefined });
    expect(clock.now()).toBe(40);
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(source.signals[0]!.aborted).toBe(true);
    const none = await drain(
      withIdleTimeout(source.open, { clock, idleTimeoutMs: 1, signal: caller.signal }),
    );
    expect(none).toEqual({ items: [], error: undefined });
  });

  it('leaves no timer after the consumer breaks, and stops the source', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<number>(clock, [[{ item: 1 }, { waitMs: 50 }, { item: 2 }]]);
    for await (const item of withIdleTimeout(source.open, { clock, idleTimeoutMs: 100 })) {
      expect(item).toBe(1);
      break;
    }
    expect(clock.pendingTimers).toBe(0);
    await settle();
    expect(source.cleanups()).toBe(1);
  });

  it('has no deadline with Infinity, and refuses zero or negative timeouts', async () => {
    const clock = new VirtualClock();
    const slow = scriptedSource<number>(clock, [[{ waitMs: 3_600_000 }, { item: 1 }]]);
    const { items } = await drain(
      withIdleTimeout(slow.open, { clock, idleTimeoutMs: Number.POSITIVE_INFINITY }),
    );
    expect(items).toEqual([1]);
    await expect(drain(withIdleTimeout(slow.open, { clock, idleTimeoutMs: 0 }))).resolves.toMatchObject({
      error: expect.any(RangeError),
    });
    await expect(
      drain(withIdleTimeout(slow.open, { clock, idleTimeoutMs: 10, firstItemTimeoutMs: -1 })),
    ).resolves.toMatchObject({ error: expect.any(RangeError) });
  });

  it('composes with retryBeforeFirstItem: a stall before the first item is retried, after it surfaces', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<string>(clock, [
      [{ hang: true }],
      [{ item: 'fresh' }, { waitMs: 10_000 }, { item: 'late' }],
    ]);
    const problems: ProviderProblem[] = [];
    const stream = retryBeforeFirstItem(
      (_attempt, signal) => withIdleTimeout(source.open, { clock, idleTimeoutMs: 400, signal }),
      { clock, policy: { jitter: 0 }, onProblem: (p) => problems.push(p) },
    );
    const { items, error } = await drain(stream);
    expect(items).toEqual(['fresh']);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 100, error: expect.any(APITimeoutError) },
    ]);
    expect(clock.now()).toBe(400 + 100 + 400);
    expect(clock.pendingTimers).toBe(0);
  });
  it("keeps one listener on the caller's signal for the whole stream, and ends quietly on an abort between items", async () => {
    const clock = new VirtualClock();
    const caller = new AbortController();
    const source = scriptedSource<number>(clock, [[{ item: 1 }, { item: 2 }, { item: 3 }, { item: 4 }]]);
    const counts: number[] = [];
    const items: number[] = [];
    for await (const item of withIdleTimeout(source.open, {
      clock,
      idleTimeoutMs: 100,
      signal: caller.signal,
    })) {
      items.push(item);
      counts.push(getEventListeners(caller.signal, 'abort').length);
      // Aborted while the consumer works on an item: no read is pending, the next wait ends at once.
      if (item === 2) caller.abort();
    }
    expect(items).toEqual([1, 2]);
    // The caller's own listener from the stream's link, and the stream's waits' one: the same two
    // whichever item it is.
    expect(counts).toEqual([2, 2]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
    await settle();
    expect(source.cleanups()).toBe(1);
  });
});
