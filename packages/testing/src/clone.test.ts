import { describe, expect, it } from 'vitest';
import { clonePlain } from './clone.js';

describe('clonePlain', () => {
  it('copies plain data deeply, as structuredClone does', () => {
    const value = {
      a: 1,
      b: 'x',
      c: [1, { d: null, e: undefined }, [2, 3]],
      f: { g: { h: -0, i: Number.NaN, j: true } },
      k: 10n,
    };
    const copy = clonePlain(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy).not.toBe(value);
    expect(copy.c[1]).not.toBe(value.c[1]);
    expect(Object.is(copy.f.g.h, -0)).toBe(true);
    expect('e' in (copy.c[1] as object)).toBe(true);
    expect(Object.keys(copy)).toEqual(Object.keys(value));
  });

  it('keeps holes of sparse arrays', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point.
    const copy = clonePlain([1, , 3]);
    expect(1 in copy).toBe(false);
    expect(copy).toHaveLength(3);
  });

  it('leaves anything but plain data to structuredClone', () => {
    const shared = { n: 1 };
    const withShared = { x: shared, y: shared };
    const copy = clonePlain(withShared);
    expect(copy.x).toBe(copy.y);
    expect(copy.x).not.toBe(shared);
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    const c = clonePlain(cyclic);
    expect(c.self).toBe(c);
    const date = new Date(5);
    expect(clonePlain({ date }).date).toEqual(date);
    expect(clonePlain({ m: new Map([[1, 2]]) }).m).toEqual(new Map([[1, 2]]));
    class Point {
      constructor(readonly x: number) {}
    }
    const p = clonePlain({ p: new Point(2) }).p;
    expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
    expect(p).toStrictEqual(structuredClone({ p: new Point(2) }).p);
    expect(() => clonePlain({ f: () => 1 })).toThrow();
  });
});
