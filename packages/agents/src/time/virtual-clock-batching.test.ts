import { describe, expect, it } from 'vitest';
import { VirtualClock } from './virtual-clock.js';

/**
 * A program of timers, sleeps, cancels and promise chains of various depths at shared instants: its log
 * must not depend on how many timers fire per host macrotask.
 */
async function program(clock: VirtualClock): Promise<string[]> {
  const log: string[] = [];
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const worker = async (id: number): Promise<void> => {
    for (let step = 0; step < 30; step++) {
      await clock.sleep(Math.floor(random() * 4) * 10);
      const depth = Math.floor(random() * 6);
      for (let i = 0; i < depth; i++) await Promise.resolve();
      log.push(`${id}:${step}@${clock.now()}`);
      if (random() < 0.3) {
        const timer = clock.setTimer(10, () => log.push(`${id}:late${step}@${clock.now()}`));
        if (random() < 0.5) void Promise.resolve().then(() => timer.cancel());
      }
    }
  };
  clock.setTimer(15, () => {
    void (async () => {
      for (let i = 0; i < 40; i++) await Promise.resolve();
      log.push(`deep@${clock.now()}`);
    })();
  });
  clock.setTimer(15, () => log.push(`after-deep@${clock.now()}`));
  await Promise.all([worker(1), worker(2), worker(3)]);
  await clock.whenIdle();
  return log;
}

describe('VirtualClock timersPerMacrotask', () => {
  it('gives the same log as one timer per macrotask: chains settle between timers all the same', async () => {
    const one = await program(new VirtualClock());
    const many = await program(new VirtualClock({ timersPerMacrotask: 64 }));
    expect(many).toEqual(one);
    expect(one.indexOf('deep@15')).toBeLessThan(one.indexOf('after-deep@15'));
    expect(one.length).toBeGreaterThan(90);
  });

  it('fires several timers in one host macrotask, and one by default', async () => {
    const firedBeforeHost = async (clock: VirtualClock): Promise<number> => {
      let fired = 0;
      for (let i = 1; i <= 10; i++) clock.setTimer(i, () => fired++);
      // Queued before the clock's first step: it runs in the next turn of the loop, after that step's burst.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const seen = fired;
      await clock.whenIdle();
      expect(fired).toBe(10);
      return seen;
    };
    expect(await firedBeforeHost(new VirtualClock())).toBeLessThanOrEqual(2);
    expect(await firedBeforeHost(new VirtualClock({ timersPerMacrotask: 64 }))).toBe(10);
    // The budget is per macrotask: past it, the host gets its turn again.
    expect(await firedBeforeHost(new VirtualClock({ timersPerMacrotask: 3 }))).toBeLessThanOrEqual(6);
  });

  it('keeps advancing after a callback throws, reporting the error', async () => {
    const errors: unknown[] = [];
    const clock = new VirtualClock({ timersPerMacrotask: 16, onTimerError: (e) => errors.push(e) });
    const fired: number[] = [];
    clock.setTimer(5, () => {
      throw new Error('boom');
    });
    for (let i = 1; i <= 8; i++) clock.setTimer(i, () => fired.push(clock.now()));
    await clock.whenIdle();
    expect(errors).toHaveLength(1);
    expect(fired).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('stops between timers when auto-advance is turned off', async () => {
    const clock = new VirtualClock({ timersPerMacrotask: 64 });
    const fired: number[] = [];
    for (let i = 1; i <= 5; i++) {
      clock.setTimer(i, () => {
        fired.push(i);
        if (i === 2) clock.setAutoAdvance(false);
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fired).toEqual([1, 2]);
    clock.setAutoAdvance(true);
    await clock.whenIdle();
    expect(fired).toEqual([1, 2, 3, 4, 5]);
  });

  it('refuses a budget below one timer', () => {
    expect(() => new VirtualClock({ timersPerMacrotask: 0 })).toThrow(RangeError);
    expect(() => new VirtualClock({ timersPerMacrotask: Number.NaN })).toThrow(RangeError);
  });
});

describe('VirtualClock timer handles', () => {
  it('can be cancelled through a detached cancel', async () => {
    const clock = new VirtualClock();
    let fired = false;
    const { cancel } = clock.setTimer(5, () => {
      fired = true;
    });
    cancel();
    await clock.whenIdle();
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });
});
