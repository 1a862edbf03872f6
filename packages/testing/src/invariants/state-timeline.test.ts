import { describe, expect, it } from 'vitest';
import { Rng } from '../prng.js';
import { StateTimeline } from './model.js';

type Point = { index: number; atMs: number; value: string };

/** The lookups by definition, scanning every point. */
const reference = {
  beforeIndex: (points: Point[], initial: string, index: number) =>
    points.filter((p) => p.index < index).at(-1)?.value ?? initial,
  at: (points: Point[], initial: string, t: number, strict: boolean) => {
    let value = initial;
    for (const p of points) {
      if (strict ? p.atMs >= t : p.atMs > t) break;
      value = p.value;
    }
    return value;
  },
  wasDuring: (points: Point[], initial: string, t: number, value: string) =>
    reference.at(points, initial, t, true) === value || points.some((p) => p.atMs === t && p.value === value),
};

function timeline(points: Point[]): StateTimeline<string> {
  const t = new StateTimeline('idle');
  for (const p of points) t.set(p.index, p.atMs, p.value);
  return t;
}

describe('StateTimeline lookups', () => {
  it('answer as a scan of every point would, on logs in order (several changes in one millisecond included)', () => {
    const rng = new Rng(7);
    for (let round = 0; round < 200; round++) {
      const points: Point[] = [];
      let index = 0;
      let atMs = 0;
      for (let i = rng.int(0, 12); i > 0; i--) {
        index += rng.int(1, 3);
        atMs += rng.int(0, 2) * 10;
        points.push({ index, atMs, value: ['idle', 'speaking', 'thinking'][rng.int(0, 2)]! });
      }
      const t = timeline(points);
      for (let q = -5; q <= atMs + 15; q += 5) {
        for (const strict of [false, true])
          expect(t.at(q, strict)).toBe(reference.at(points, 'idle', q, strict));
        for (const v of ['idle', 'speaking', 'thinking']) {
          expect(t.wasDuring(q, v)).toBe(reference.wasDuring(points, 'idle', q, v));
        }
      }
      for (let i = 0; i <= index + 2; i++)
        expect(t.beforeIndex(i)).toBe(reference.beforeIndex(points, 'idle', i));
    }
  });

  it('still scans a hand-made log whose times go back', () => {
    const points: Point[] = [
      { index: 1, atMs: 100, value: 'speaking' },
      { index: 2, atMs: 50, value: 'thinking' },
      { index: 3, atMs: 200, value: 'idle' },
    ];
    const t = timeline(points);
    for (const q of [0, 50, 75, 100, 150, 200, 250]) {
      expect(t.at(q)).toBe(reference.at(points, 'idle', q, false));
      expect(t.wasDuring(q, 'thinking')).toBe(reference.wasDuring(points, 'idle', q, 'thinking'));
    }
  });
});
