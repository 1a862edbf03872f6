import { VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { FakeByteStream } from '../testing/fake-room.js';
import { ByteStreamRouter } from './byte-stream-router.js';
import { PRE_CONNECT_AUDIO_TOPIC } from './pre-connect-format.js';
import type { IncomingByteStream } from './room-connection.js';

const early = PRE_CONNECT_AUDIO_TOPIC;

function setup(options: { holdMs?: number; maxHeld?: number } = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const router = new ByteStreamRouter({ clock, ...options });
  return { clock, router };
}

describe('ByteStreamRouter', () => {
  it('holds a stream on an early topic until its handler registers, then hands it over', () => {
    const { router } = setup();
    const stream = new FakeByteStream(early, 'alice');
    router.deliver(stream);
    expect(router.heldCount).toBe(1);
    const got: IncomingByteStream[] = [];
    router.register(early, (s) => got.push(s));
    expect(got).toEqual([stream]);
    expect(router.heldCount).toBe(0);
    const later = new FakeByteStream(early, 'alice');
    router.deliver(later);
    expect(got).toEqual([stream, later]);
  });

  it('cancels streams on topics nobody listens to, and the held ones that wait too long', async () => {
    const { clock, router } = setup({ holdMs: 5000 });
    const other = new FakeByteStream('some.topic', 'alice');
    router.deliver(other);
    expect(other.cancelled).toBe(true);
    const held = new FakeByteStream(early, 'alice');
    router.deliver(held);
    await clock.advance(4999);
    expect(held.cancelled).toBe(false);
    await clock.advance(1);
    expect(held.cancelled).toBe(true);
    expect(router.heldCount).toBe(0);
  });

  it('holds a bounded number (the oldest goes), and cancels all of them on close', () => {
    const { router } = setup({ maxHeld: 2 });
    const streams = [1, 2, 3].map((i) => new FakeByteStream(early, `p${i}`));
    for (const s of streams) router.deliver(s);
    expect(streams.map((s) => s.cancelled)).toEqual([true, false, false]);
    router.close();
    expect(streams.map((s) => s.cancelled)).toEqual([true, true, true]);
    const late = new FakeByteStream(early, 'p4');
    router.deliver(late);
    expect(late.cancelled).toBe(true);
  });

  it('allows one handler per topic, cancels a stream whose handler throws, and unregisters', () => {
    const { router } = setup();
    const unregister = router.register('t', () => {
      throw new Error('boom');
    });
    expect(() => router.register('t', () => {})).toThrow(/already set/);
    const s = new FakeByteStream('t', 'alice');
    router.deliver(s);
    expect(s.cancelled).toBe(true);
    unregister();
    const got: IncomingByteStream[] = [];
    router.register('t', (x) => got.push(x));
    router.deliver(new FakeByteStream('t', 'alice'));
    expect(got).toHaveLength(1);
  });
});
