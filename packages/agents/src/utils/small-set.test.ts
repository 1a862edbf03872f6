import { describe, expect, it } from 'vitest';
import { SmallSet } from './small-set.js';

describe('SmallSet', () => {
  it('behaves as a Set of objects: no duplicates, size, delete, insertion order', () => {
    const [a, b, c, d] = [{ n: 'a' }, { n: 'b' }, { n: 'c' }, { n: 'd' }];
    const set = new SmallSet<{ n: string }>();
    const reference = new Set<{ n: string }>();
    const both = (op: 'add' | 'delete', member: { n: string }) => {
      const got = op === 'add' ? set.add(member) : set.delete(member);
      const want = op === 'add' ? reference.add(member) && undefined : reference.delete(member);
      expect(got).toBe(want);
      expect(set.size).toBe(reference.size);
      expect(set.toArray()).toEqual([...reference]);
    };
    both('add', a);
    both('add', a);
    both('add', b);
    both('delete', a);
    // With b still held in the overflow, c must come after it, not take the first place.
    both('add', c);
    both('add', a);
    both('delete', b);
    both('delete', b);
    both('delete', c);
    both('delete', a);
    both('add', d);
    both('add', b);
    expect(set.toArray().map((m) => m.n)).toEqual(['d', 'b']);
  });

  it('gives a copy that callbacks may change the set during', () => {
    const set = new SmallSet<() => void>();
    const calls: string[] = [];
    const one = () => {
      calls.push('one');
      set.delete(two);
    };
    const two = () => calls.push('two');
    set.add(one);
    set.add(two);
    for (const f of set.toArray()) f();
    expect(calls).toEqual(['one', 'two']);
    expect(set.size).toBe(1);
  });
});
