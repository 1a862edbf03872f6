import { describe, expect, it } from 'vitest';
import { TypedEmitter } from './typed-emitter.js';

describe('TypedEmitter', () => {
  it('delivers to on and once listeners, and off removes either', () => {
    const emitter = new TypedEmitter<{ tick: number }>();
    const seen: string[] = [];
    const a = (n: number) => seen.push(`a${n}`);
    const b = (n: number) => seen.push(`b${n}`);
    const c = (n: number) => seen.push(`c${n}`);
    emitter.on('tick', a).once('tick', b).once('tick', c);
    emitter.off('tick', c);
    emitter.emit('tick', 1);
    emitter.emit('tick', 2);
    expect(seen).toEqual(['a1', 'b1', 'a2']);
    emitter.off('tick', a);
    emitter.emit('tick', 3);
    expect(seen).toHaveLength(3);
    expect(emitter.listenerCount('tick')).toBe(0);
  });

  it('isolates a throwing listener and reports it', () => {
    const emitter = new TypedEmitter<{ tick: number }>();
    const errors: string[] = [];
    emitter.onListenerError = (error, name) => errors.push(`${name}: ${(error as Error).message}`);
    const seen: number[] = [];
    emitter.on('tick', () => {
      throw new Error('bad listener');
    });
    emitter.on('tick', (n) => seen.push(n));
    emitter.emit('tick', 7);
    expect(seen).toEqual([7]);
    expect(errors).toEqual(['tick: bad listener']);
  });
});
