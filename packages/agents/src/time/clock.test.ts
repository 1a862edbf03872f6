import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type Clock, RealClock, realClock, sleepWithTimer, type TimerHandle } from './clock.js';
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

describe('RealClock', () => {
  it('is monotonic and sleeps at least the requested time', async () => {
    const clock = new RealClock();
    const start = clock.now();
    await clock.sleep(15);
    const elapsed = clock.now() - start;
    // Host timers may fire up to ~1 ms early relative to performance.now() rounding.
    expect(elapsed).toBeGreaterThanOrEqual(14);
  });

  it('rejects a sleep with the signal reason and removes its listener', async () => {
    const clock = new RealClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(10_000, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('never fires a cancelled timer', async () => {
    const clock = new RealClock();
    let fired = false;
    clock
      .setTimer(5, () => {
        fired = true;
      })
      .cancel();
    await clock.sleep(20);
    expect(fired).toBe(false);
  });

  it('repeats until cancelled', async () => {
    const clock = new RealClock();
    let count = 0;
    const handle = clock.setRepeatingTimer(5, () => count++);
    while (count < 3) await clock.sleep(5);
    handle.cancel();
    const after = count;
    await clock.sleep(30);
    expect(count).toBe(after);
  });

  it('does not fire a delay beyond the host limit early', async () => {
    // Node turns delays above 2^31-1 ms into 1 ms; a day-long timeout must not fire at once.
    const clock = new RealClock();
    let fired = false;
    const handles = [
      clock.setTimer(2 ** 31, () => {
        fired = true;
      }),
      clock.setTimer(Number.POSITIVE_INFINITY, () => {
        fired = true;
      }),
      clock.setRepeatingTimer(2 ** 32, () => {
        fired = true;
      }),
    ];
    await clock.sleep(30);
    for (const h of handles) h.cancel();
    expect(fired).toBe(false);
  });

  it('treats negative and NaN delays as 0', async () => {
    const clock = new RealClock();
    await clock.sleep(-10);
    await clock.sleep(Number.NaN);
  });

  it('is shared process-wide through realClock()', () => {
    expect(realClock()).toBe(realClock());
    expect(realClock()).toBeInstanceOf(RealClock);
  });
});

describe('sleepWithTimer', () => {
  it('cleans up even with a clock that fires synchronously', async () => {
    const eager: Clock = {
      now: () => 0,
      sleep: (ms, signal) => sleepWithTimer(eager, ms, signal),
      setTimer: (_ms, callback): TimerHandle => {
        callback();
        return { cancel: () => {} };
      },
      setRepeatingTimer: () => ({ cancel: () => {} }),
    };
    const controller = new AbortController();
    await eager.sleep(100, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
