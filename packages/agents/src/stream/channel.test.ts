import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ChannelClosedError } from '../errors.js';
import { Channel } from './channel.js';

function listeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

async function drain<T>(channel: Channel<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of channel) items.push(item);
  return items;
}

/** Resolves after every queued microtask ran, to tell "still waiting" from "settled". */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('Channel basics', () => {
  it('rejects a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new Channel({ capacity, overflow: 'block' })).toThrow(RangeError);
    }
  });

  it('delivers in order, handing items straight to a waiting receiver', async () => {
    const channel = new Channel<number>({ capacity: 2, overflow: 'block' });
    const first = channel.receive();
    expect(channel.trySend(1)).toBe(true);
    expect(channel.size).toBe(0);
    await expect(first).resolves.toEqual({ value: 1, done: false });
    channel.trySend(2);
    channel.trySend(3);
    expect(channel.size).toBe(2);
    channel.close();
    expect(await drain(channel)).toEqual([2, 3]);
  });

  it('serves concurrent receivers in call order', async () => {
    const channel = new Channel<string>({ capacity: 1, overflow: 'block' });
    const a = channel.receive();
    const b = channel.receive();
    channel.trySend('x');
    channel.trySend('y');
    expect((await a).value).toBe('x');
    expect((await b).value).toBe('y');
  });
});

describe('Channel overflow policies', () => {
  it('drop-oldest keeps the newest items and counts every drop', async () => {
    const channel = new Channel<number>({ capacity: 3, overflow: 'drop-oldest' });
    for (let i = 1; i <= 10; i++) expect(channel.trySend(i)).toBe(true);
    expect(channel.size).toBe(3);
    expect(channel.droppedCount).toBe(7);
    await channel.send(11);
    expect(channel.droppedCount).toBe(8);
    channel.close();
    expect(await drain(channel)).toEqual([9, 10, 11]);
  });

  it('drop-newest keeps the oldest items, refuses the rest and counts them', async () => {
    const channel = new Channel<number>({ capacity: 3, overflow: 'drop-newest' });
    const accepted = [1, 2, 3, 4, 5].map((i) => channel.trySend(i));
    expect(accepted).toEqual([true, true, true, false, false]);
    // send() never waits under a drop policy, even when the item is dropped.
    await channel.send(6);
    expect(channel.droppedCount).toBe(3);
    channel.close();
    expect(await drain(channel)).toEqual([1, 2, 3]);
  });

  it('block makes send() wait for room and trySend() refuse, without counting drops', async () => {
    const channel = new Channel<number>({ capacity: 2, overflow: 'block' });
    await channel.send(1);
    await channel.send(2);
    expect(channel.trySend(99)).toBe(false);
    let thirdSent = false;
    const third = channel.send(3).then(() => {
      thirdSent = true;
    });
    let fourthSent = false;
    const fourth = channel.send(4).then(() => {
      fourthSent = true;
    });
    await flush();
    expect(thirdSent).toBe(false);
    expect(channel.size).toBe(2);

    expect((await channel.receive()).value).toBe(1);
    await third;
    expect(thirdSent).toBe(true);
    expect(fourthSent).toBe(false);
    expect(channel.size).toBe(2);

    expect((await channel.receive()).value).toBe(2);
    await fourth;
    channel.close();
    expect(await drain(channel)).toEqual([3, 4]);
    expect(channel.droppedCount).toBe(0);
  });

  it('block: an aborted send() rejects with the reason, leaves the queue alone and its listener gone', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    await channel.send(1);
    const controller = new AbortController();
    const blocked = channel.send(2, controller.signal);
    const after = channel.send(3);
    expect(listeners(controller.signal)).toBe(1);
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(blocked).rejects.toBe(reason);
    expect(listeners(controller.signal)).toBe(0);
    expect((await channel.receive()).value).toBe(1);
    await after;
    expect((await channel.receive()).value).toBe(3);
  });

  it('block: send() with an already aborted signal rejects at once when it would wait', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    const signal = AbortSignal.abort(new Error('no'));
    await channel.send(1, signal);
    await expect(channel.send(2, signal)).rejects.toThrow('no');
    expect(channel.size).toBe(1);
  });

  it('block: a send that got room removes its abort listener', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    await channel.send(1);
    const controller = new AbortController();
    const pending = channel.send(2, controller.signal);
    await channel.receive();
    await pending;
    expect(listeners(controller.signal)).toBe(0);
  });
});

describe('Channel end of stream', () => {
  it('close() lets queued items drain, then reports done, forever', async () => {
    const channel = new Channel<number>({ capacity: 4, overflow: 'block' });
    channel.trySend(1);
    channel.trySend(2);
    channel.close();
    expect(channel.closed).toBe(true);
    expect(channel.trySend(3)).toBe(false);
    await expect(channel.send(3)).rejects.toBeInstanceOf(ChannelClosedError);
    expect(await drain(channel)).toEqual([1, 2]);
    await expect(channel.receive()).resolves.toEqual({ value: undefined, done: true });
  });

  it('close() ends waiting receivers and rejects blocked senders', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    const receiver = new Channel<number>({ capacity: 1, overflow: 'block' });
    const waiting = receiver.receive();
    receiver.close();
    await expect(waiting).resolves.toEqual({ value: undefined, done: true });

    await channel.send(1);
    const blocked = channel.send(2);
    channel.close();
    await expect(blocked).rejects.toThrow(ChannelClosedError);
    expect(await drain(channel)).toEqual([1]);
  });

  it('fail() delivers queued items first, then the error to every later receive', async () => {
    const channel = new Channel<number>({ capacity: 4, overflow: 'drop-oldest' });
    channel.trySend(1);
    channel.trySend(2);
    const error = new Error('stt dropped');
    channel.fail(error);
    channel.close();
    expect((await channel.receive()).value).toBe(1);
    expect((await channel.receive()).value).toBe(2);
    await expect(channel.receive()).rejects.toBe(error);
    await expect(channel.receive()).rejects.toBe(error);
  });

  it('fail() rejects a waiting receiver and ends a for-await loop with the error', async () => {
    const channel = new Channel<number>({ capacity: 4, overflow: 'block' });
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const item of channel) seen.push(item);
    })();
    channel.trySend(1);
    await flush();
    channel.fail(new Error('boom'));
    await expect(consumer).rejects.toThrow('boom');
    expect(seen).toEqual([1]);
  });

  it('dispose() discards queued items and ends iteration at once', async () => {
    const channel = new Channel<number>({ capacity: 4, overflow: 'block' });
    channel.trySend(1);
    channel.trySend(2);
    channel.dispose();
    expect(channel.size).toBe(0);
    expect(await drain(channel)).toEqual([]);
  });

  it('breaking out of for-await disposes the channel and releases a blocked producer', async () => {
    const channel = new Channel<number>({ capacity: 2, overflow: 'block' });
    const producer = (async () => {
      for (let i = 0; ; i++) await channel.send(i);
    })();
    const seen: number[] = [];
    for await (const item of channel) {
      seen.push(item);
      if (item === 4) break;
    }
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    await expect(producer).rejects.toBeInstanceOf(ChannelClosedError);
    expect(channel.closed).toBe(true);
    expect(channel.size).toBe(0);
  });

  it('an exception inside for-await also disposes the channel', async () => {
    const channel = new Channel<number>({ capacity: 2, overflow: 'drop-oldest' });
    channel.trySend(1);
    channel.trySend(2);
    await expect(
      (async () => {
        for await (const _ of channel) throw new Error('consumer crashed');
      })(),
    ).rejects.toThrow('consumer crashed');
    expect(channel.closed).toBe(true);
    expect(channel.size).toBe(0);
  });
});

describe('Channel receive with a signal', () => {
  it('rejects with the reason and removes its listener when aborted', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    const controller = new AbortController();
    const waiting = channel.receive(controller.signal);
    expect(listeners(controller.signal)).toBe(1);
    controller.abort(new Error('interrupted'));
    await expect(waiting).rejects.toThrow('interrupted');
    expect(listeners(controller.signal)).toBe(0);
    // The aborted receiver must not swallow the next item.
    channel.trySend(7);
    expect((await channel.receive()).value).toBe(7);
  });

  it('removes its listener when an item arrives or the channel closes', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    const controller = new AbortController();
    const first = channel.receive(controller.signal);
    channel.trySend(1);
    await first;
    expect(listeners(controller.signal)).toBe(0);
    const second = channel.receive(controller.signal);
    channel.close();
    await expect(second).resolves.toMatchObject({ done: true });
    expect(listeners(controller.signal)).toBe(0);
  });

  it('prefers a queued item over an already aborted signal, and rejects only when it would wait', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    const signal = AbortSignal.abort();
    channel.trySend(1);
    expect((await channel.receive(signal)).value).toBe(1);
    await expect(channel.receive(signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(listeners(signal)).toBe(0);
  });

  it('reuses one long-lived signal across many receives without accumulating listeners', async () => {
    const channel = new Channel<number>({ capacity: 1, overflow: 'block' });
    const controller = new AbortController();
    for (let i = 0; i < 1000; i++) {
      const next = channel.receive(controller.signal);
      channel.trySend(i);
      await next;
    }
    expect(listeners(controller.signal)).toBe(0);
  });
});
