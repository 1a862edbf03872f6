import { describe, expect, it } from 'vitest';
import { Broadcast } from './broadcast.js';
import type { Channel } from './channel.js';

async function drain<T>(channel: Channel<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of channel) items.push(item);
  return items;
}

describe('Broadcast', () => {
  it('gives every subscriber every item when all keep up', async () => {
    const hub = new Broadcast<number>();
    const a = hub.subscribe({ capacity: 10, overflow: 'drop-oldest' });
    const b = hub.subscribe({ capacity: 10, overflow: 'drop-newest' });
    for (let i = 0; i < 5; i++) hub.publish(i);
    hub.close();
    expect(await drain(a)).toEqual([0, 1, 2, 3, 4]);
    expect(await drain(b)).toEqual([0, 1, 2, 3, 4]);
  });

  it('bounds each subscriber on its own: a stalled one drops only its own items', async () => {
    const hub = new Broadcast<number>();
    const stalled = hub.subscribe({ capacity: 3, overflow: 'drop-oldest', name: 'stalled' });
    const live = hub.subscribe({ capacity: 2, overflow: 'drop-oldest', name: 'live' });
    const received: number[] = [];
    const consumer = (async () => {
      for await (const item of live) received.push(item);
    })();
    for (let i = 0; i < 100; i++) {
      hub.publish(i);
      // Give the live consumer its turn, as a real producer paced by audio frames would.
      await Promise.resolve();
    }
    hub.close();
    await consumer;
    expect(received).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(live.droppedCount).toBe(0);
    expect(stalled.droppedCount).toBe(97);
    expect(await drain(stalled)).toEqual([97, 98, 99]);
  });

  it('drop-newest subscribers keep what they had', async () => {
    const hub = new Broadcast<number>();
    const sub = hub.subscribe({ capacity: 2, overflow: 'drop-newest' });
    for (let i = 0; i < 5; i++) hub.publish(i);
    hub.close();
    expect(sub.droppedCount).toBe(3);
    expect(await drain(sub)).toEqual([0, 1]);
  });

  it('refuses the block policy, which a synchronous publisher cannot honour', () => {
    const hub = new Broadcast<number>();
    // @ts-expect-error block is excluded from the subscriber options type as well.
    expect(() => hub.subscribe({ capacity: 2, overflow: 'block' })).toThrow(TypeError);
  });

  it('unsubscribes a consumer that breaks out of for-await, at once', async () => {
    const hub = new Broadcast<number>();
    const quitter = hub.subscribe({ capacity: 8, overflow: 'drop-oldest' });
    const stayer = hub.subscribe({ capacity: 8, overflow: 'drop-oldest' });
    hub.publish(1);
    hub.publish(2);
    for await (const item of quitter) {
      if (item === 1) break;
    }
    expect(hub.subscriberCount).toBe(1);
    expect(quitter.closed).toBe(true);
    expect(quitter.size).toBe(0);
    hub.publish(3);
    expect(quitter.size).toBe(0);
    hub.close();
    expect(await drain(stayer)).toEqual([1, 2, 3]);
  });

  it('unsubscribe() disposes the channel; a subscriber that closes itself is dropped too', async () => {
    const hub = new Broadcast<string>();
    const a = hub.subscribe({ capacity: 2, overflow: 'drop-oldest' });
    const b = hub.subscribe({ capacity: 2, overflow: 'drop-oldest' });
    hub.publish('x');
    hub.unsubscribe(a);
    expect(a.closed).toBe(true);
    expect(a.size).toBe(0);
    b.close();
    expect(hub.subscriberCount).toBe(0);
    hub.publish('y');
    // b closed itself, so it keeps what it had queued and gets nothing new.
    expect(await drain(b)).toEqual(['x']);
    hub.unsubscribe(a);
  });

  it('close() lets subscribers drain; later subscribers get a closed channel', async () => {
    const hub = new Broadcast<number>();
    const a = hub.subscribe({ capacity: 4, overflow: 'drop-oldest' });
    hub.publish(1);
    hub.close();
    hub.publish(2);
    hub.close();
    expect(await drain(a)).toEqual([1]);
    const late = hub.subscribe({ capacity: 4, overflow: 'drop-oldest' });
    expect(late.closed).toBe(true);
    expect(await drain(late)).toEqual([]);
    expect(hub.subscriberCount).toBe(0);
  });

  it('fail() passes the error to every subscriber after their queued items', async () => {
    const hub = new Broadcast<number>();
    const a = hub.subscribe({ capacity: 4, overflow: 'drop-oldest' });
    const b = hub.subscribe({ capacity: 4, overflow: 'drop-oldest' });
    hub.publish(1);
    const error = new Error('source failed');
    hub.fail(error);
    for (const sub of [a, b]) {
      expect((await sub.receive()).value).toBe(1);
      await expect(sub.receive()).rejects.toBe(error);
    }
    const late = hub.subscribe({ capacity: 1, overflow: 'drop-oldest' });
    await expect(late.receive()).rejects.toBe(error);
  });

  it('a subscriber added later sees only later items', async () => {
    const hub = new Broadcast<number>();
    hub.publish(1);
    const sub = hub.subscribe({ capacity: 4, overflow: 'drop-oldest' });
    hub.publish(2);
    hub.close();
    expect(await drain(sub)).toEqual([2]);
  });
});
