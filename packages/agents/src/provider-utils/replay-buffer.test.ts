import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from './replay-buffer.js';

describe('ReplayBuffer', () => {
  it('keeps what was pushed at running positions until it is acknowledged', () => {
    const buffer = new ReplayBuffer<string>({ capacity: 1_000, mode: 'acknowledged' });
    expect([buffer.push('a', 20, true), buffer.push('b', 20, true), buffer.push('c', 20, true)]).toEqual([
      20, 40, 60,
    ]);
    expect(buffer.start).toBe(0);
    buffer.acknowledge(30);
    // `b` ends at 40: only partly processed, so it is replayed whole.
    expect(buffer.replay()).toEqual(['b', 'c']);
    expect(buffer.start).toBe(20);
    expect(buffer.size).toBe(40);
    buffer.acknowledge(60);
    expect({ length: buffer.length, size: buffer.size, start: buffer.start }).toEqual({
      length: 0,
      size: 0,
      start: 60,
    });
    buffer.acknowledge(10);
    expect(buffer.acknowledged).toBe(60);
  });

  it('never holds more than its capacity or its entry bound', () => {
    const audio = new ReplayBuffer<number>({ capacity: 100 });
    for (let i = 0; i < 10_000; i++) audio.push(i, 20, true);
    expect(audio.replay()).toEqual([9_995, 9_996, 9_997, 9_998, 9_999]);
    expect(audio.size).toBe(100);

    const control = new ReplayBuffer<number>({ capacity: 100, maxEntries: 3 });
    for (let i = 0; i < 10; i++) control.push(i, 0, true);
    expect(control.replay()).toEqual([7, 8, 9]);

    const tiny = new ReplayBuffer<string>({ capacity: 10 });
    expect(tiny.push('too big', 11, true)).toBe(11);
    expect(tiny.length).toBe(0);
  });

  it('in window mode, counts as lost only what left before reaching any provider', () => {
    const buffer = new ReplayBuffer<number>({ capacity: 60 });
    for (let i = 0; i < 5; i++) buffer.push(i, 20, true);
    expect(buffer.takeLost()).toBe(0);
    expect(buffer.acknowledged).toBe(40);
    // Disconnected: new audio piles up undelivered and pushes out old and new alike.
    for (let i = 5; i < 10; i++) buffer.push(i, 20, false);
    expect(buffer.replay()).toEqual([7, 8, 9]);
    expect(buffer.takeLost()).toBe(40);
    expect(buffer.takeLost()).toBe(0);
  });

  it('in acknowledged mode, counts what left unacknowledged, once, unless acknowledged in time', () => {
    const buffer = new ReplayBuffer<number>({ capacity: 60, mode: 'acknowledged' });
    for (let i = 0; i < 5; i++) buffer.push(i, 20, true);
    // 0..40 left the buffer before the provider confirmed it; a confirmation that comes later saves it.
    buffer.acknowledge(20);
    expect(buffer.takeLost()).toBe(20);
    expect(buffer.takeLost()).toBe(0);
    for (let i = 5; i < 8; i++) buffer.push(i, 20, true);
    expect(buffer.start).toBe(100);
    buffer.acknowledge(110);
    expect(buffer.takeLost()).toBe(0);
    expect(buffer.replay()).toEqual([5, 6, 7]);
  });

  it('counts data that never left the buffer as nothing lost', () => {
    const buffer = new ReplayBuffer<number>({ capacity: 1_000, mode: 'acknowledged' });
    buffer.push(1, 20, false);
    buffer.push(2, 20, false);
    expect(buffer.takeLost()).toBe(0);
    expect(buffer.replay()).toEqual([1, 2]);
  });

  it('rejects sizes and bounds that make no sense, and forgets everything on clear', () => {
    expect(() => new ReplayBuffer({ capacity: -1 })).toThrow(RangeError);
    expect(() => new ReplayBuffer({ capacity: 1, maxEntries: 1.5 })).toThrow(RangeError);
    const buffer = new ReplayBuffer<number>({ capacity: 100 });
    expect(() => buffer.push(1, -5, true)).toThrow(RangeError);
    expect(() => buffer.push(1, Number.NaN, true)).toThrow(RangeError);
    buffer.push(1, 10, true);
    buffer.clear();
    expect({ length: buffer.length, size: buffer.size, position: buffer.position }).toEqual({
      length: 0,
      size: 0,
      position: 10,
    });
  });

  it('stays exact with fractional sizes', () => {
    const buffer = new ReplayBuffer<number>({ capacity: 1_000 });
    for (let i = 0; i < 3_000; i++) buffer.push(i, 21.333, true);
    buffer.acknowledge(buffer.position);
    expect(buffer.size).toBe(0);
    expect(buffer.length).toBe(0);
  });
});
