import { describe, expect, it } from 'vitest';
import { createIdGenerator, processId } from './ids.js';

describe('ids', () => {
  it('counts per prefix, deterministically per generator', () => {
    const a = createIdGenerator();
    const b = createIdGenerator('s1_');
    expect([a('msg'), a('msg'), a('fnc'), a('msg')]).toEqual(['msg_1', 'msg_2', 'fnc_1', 'msg_3']);
    expect([b('msg'), b('msg')]).toEqual(['msg_s1_1', 'msg_s1_2']);
    expect(createIdGenerator()('msg')).toBe('msg_1');
  });

  it('processId never repeats', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => processId('item')));
    expect(seen.size).toBe(1000);
  });
});
