import { describe, expect, it } from 'vitest';
import { VirtualClock } from './virtual-clock.js';

describe('VirtualClock smoke', () => {
  it('advances only through timers', async () => {
    const clock = new VirtualClock();
    const order: string[] = [];
    const a = clock.sleep(50).then(() => order.push(`a@${clock.now()}`));
    const b = clock.sleep(10).then(() => order.push(`b@${clock.now()}`));
    await Promise.all([a, b]);
    expect(order).toEqual(['b@10', 'a@50']);
  });
});
