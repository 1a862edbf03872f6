import { getEventListeners } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ChannelClosedError } from '../errors.js';
import { Broadcast } from './broadcast.js';
import { Channel } from './channel.js';

/**
 * Memory checks for S12 ("a slow or absent consumer causes counted drops, never unbounded buffering").
 * Each item carries a small sample buffer, so keeping even a tenth of a million of them would show as
 * tens of megabytes; the 10 MB bound leaves room for the runner's own noise and nothing more.
 */

const TOTAL = 1_000_000;
const MAX_GROWTH_BYTES = 10 * 1024 * 1024;

interface Item {
  seq: number;
  samples: Int16Array;
}

function exposeGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const gc = exposeGc();

/** WeakRefs and finalizers only let go after the current job, hence a macrotask between collections. */
async function settledHeapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

function yieldToHost(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function makeItem(seq: number): Item {
  return { seq, samples: new Int16Array(32) };
}

describe('stream memory stays bounded', { timeout: 20_000 }, () => {
  it('a drop-oldest channel with a consumer that stalls then resumes', async () => {
    const controller = new AbortController();
    const runThrough = async (ch: Channel<Item>) => {
      // Warm the code paths so the baseline already holds the compiled code.
      for (let i = 0; i < 10_000; i++) ch.trySend(makeItem(i));
      while (ch.size > 0) await ch.receive();
      const dropsBefore = ch.droppedCount;
      const baseline = await settledHeapUsed();

      // Stalled consumer: half the items arrive while nobody reads.
      let seq = 0;
      for (; seq < TOTAL / 2; seq++) ch.trySend(makeItem(seq));
      expect(ch.size).toBe(100);
      const duringStall = await settledHeapUsed();

      // The consumer resumes, waiting with a long-lived signal as session tasks do.
      let received = 0;
      let lastSeq = -1;
      let ordered = true;
      const consumer = (async () => {
        for (;;) {
          const next = await ch.receive(controller.signal);
          if (next.done) return;
          if (next.value.seq <= lastSeq) ordered = false;
          lastSeq = next.value.seq;
          received++;
        }
      })();
      for (; seq < TOTAL; seq++) {
        ch.trySend(makeItem(seq));
        if (seq % 50 === 0) await yieldToHost();
      }
      ch.close();
      await consumer;
      const after = await settledHeapUsed();
      return {
        ordered,
        lastSeq,
        received,
        dropped: ch.droppedCount - dropsBefore,
        stallGrowth: duringStall - baseline,
        growth: after - baseline,
      };
    };

    let channel: Channel<Item> | undefined = new Channel<Item>({ capacity: 100, overflow: 'drop-oldest' });
    const ref = new WeakRef(channel);
    const result = await runThrough(channel);
    expect(result.ordered).toBe(true);
    expect(result.lastSeq).toBe(TOTAL - 1);
    expect(result.received + result.dropped).toBe(TOTAL);
    expect(result.dropped).toBeGreaterThanOrEqual(TOTAL / 2 - 100);
    expect(result.stallGrowth).toBeLessThan(MAX_GROWTH_BYTES);
    expect(result.growth).toBeLessThan(MAX_GROWTH_BYTES);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    // Nothing outside the test (not the signal, not a settled promise) may keep the channel alive.
    channel = undefined;
    await settledHeapUsed();
    expect(channel).toBeUndefined();
    expect(ref.deref()).toBeUndefined();
  });

  it('a closed channel with a pending receive and a blocked send retains nothing', async () => {
    const controller = new AbortController();
    const refs: Array<WeakRef<object>> = [];
    const outcomes: Array<Promise<string>> = [];
    // In a function of its own so no local of the test body keeps the last pair reachable.
    const openAndClose = (): void => {
      const receiving = new Channel<Item>({ capacity: 1, overflow: 'block' });
      outcomes.push(receiving.receive(controller.signal).then((r) => (r.done ? 'done' : 'item')));
      receiving.close();
      const sending = new Channel<Item>({ capacity: 1, overflow: 'block' });
      sending.trySend(makeItem(0));
      // Only the error's class is kept: an error's unformatted stack holds its frames' receivers alive.
      outcomes.push(
        sending.send(makeItem(1), controller.signal).then(
          () => 'sent',
          (e: unknown) => (e instanceof ChannelClosedError ? 'closed' : 'other'),
        ),
      );
      sending.close();
      refs.push(new WeakRef(receiving), new WeakRef(sending));
    };
    for (let i = 0; i < 100; i++) openAndClose();
    const results = await Promise.all(outcomes);
    expect(new Set(results)).toEqual(new Set(['done', 'closed']));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await settledHeapUsed();
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });

  it('a broadcast with one stalled subscriber and one live one', async () => {
    const hub = new Broadcast<Item>();
    const stalled = hub.subscribe({ capacity: 100, overflow: 'drop-oldest', name: 'stalled' });
    const live = hub.subscribe({ capacity: 128, overflow: 'drop-oldest', name: 'live' });
    let received = 0;
    let ordered = true;
    let lastSeq = -1;
    const consumer = (async () => {
      for await (const item of live) {
        if (item.seq !== lastSeq + 1) ordered = false;
        lastSeq = item.seq;
        received++;
      }
    })();

    const WARMUP = 10_000;
    let seq = 0;
    const publishUpTo = async (end: number): Promise<void> => {
      for (; seq < end; seq++) {
        hub.publish(makeItem(seq));
        if (seq % 100 === 99) await yieldToHost();
      }
    };
    await publishUpTo(WARMUP);
    const baseline = await settledHeapUsed();
    await publishUpTo(WARMUP + TOTAL);
    const peak = await settledHeapUsed();
    hub.close();
    await consumer;

    expect(ordered).toBe(true);
    expect(received).toBe(WARMUP + TOTAL);
    expect(live.droppedCount).toBe(0);
    expect(stalled.size).toBe(100);
    expect(stalled.droppedCount).toBe(WARMUP + TOTAL - 100);
    expect(peak - baseline).toBeLessThan(MAX_GROWTH_BYTES);

    // The stalled subscriber finally walks away: everything it held goes.
    for await (const _ of stalled) break;
    expect(stalled.size).toBe(0);
    expect(hub.subscriberCount).toBe(0);
    const after = await settledHeapUsed();
    expect(after - baseline).toBeLessThan(MAX_GROWTH_BYTES);
  });
});
