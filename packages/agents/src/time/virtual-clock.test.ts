import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from './virtual-clock.js';

/** Lets the host drain microtasks and one round of immediates, as a test driver would. */
function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

/** Internal storage size, to prove cancelled timers are not kept until their deadline. */
function storedTimers(clock: VirtualClock): number {
  return (clock as unknown as { heap: unknown[] }).heap.length;
}

describe('VirtualClock ordering', () => {
  it('fires timers in deadline order, equal deadlines in creation order', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    const delays = [30, 10, 20, 10, 30, 0, 10, 20, 0];
    delays.forEach((ms, i) => {
      clock.setTimer(ms, () => fired.push(`${i}@${clock.now()}`));
    });
    await clock.whenIdle();
    expect(fired).toEqual(['5@0', '8@0', '1@10', '3@10', '6@10', '2@20', '7@20', '0@30', '4@30']);
  });

  it('orders timers created at different times but due at the same instant by creation', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const fired: string[] = [];
    clock.setTimer(20, () => fired.push('first'));
    await clock.advance(5);
    clock.setTimer(15, () => fired.push('second'));
    await clock.advance(20);
    expect(fired).toEqual(['first', 'second']);
  });

  it('keeps the creation order among many timers with one deadline (heap stability)', async () => {
    const clock = new VirtualClock();
    const fired: number[] = [];
    for (let i = 0; i < 500; i++) clock.setTimer(i % 7 === 0 ? 5 : 10, () => fired.push(i));
    await clock.whenIdle();
    const early = fired.filter((i) => i % 7 === 0);
    expect(fired.slice(0, early.length)).toEqual(early);
    expect(fired.slice(early.length)).toEqual([...fired.slice(early.length)].sort((a, b) => a - b));
    expect(fired).toHaveLength(500);
  });

  it('runs timers scheduled from callbacks after those already due at that instant', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    clock.setTimer(10, () => {
      fired.push(`a@${clock.now()}`);
      clock.setTimer(0, () => fired.push(`a0@${clock.now()}`));
      clock.setTimer(5, () => {
        fired.push(`a5@${clock.now()}`);
        clock.setTimer(5, () => fired.push(`a55@${clock.now()}`));
      });
    });
    clock.setTimer(10, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(15, () => fired.push(`c@${clock.now()}`));
    await clock.whenIdle();
    expect(fired).toEqual(['a@10', 'b@10', 'a0@10', 'c@15', 'a5@15', 'a55@20']);
  });

  it('lets a promise chain started by a timer settle before the next timer at the same instant', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimer(10, () => {
      void (async () => {
        for (let i = 0; i < 50; i++) await Promise.resolve();
        log.push('chain-done');
        await clock.sleep(0);
        log.push('chain-slept');
      })();
    });
    clock.setTimer(10, () => log.push('second-timer'));
    await clock.whenIdle();
    expect(log).toEqual(['chain-done', 'second-timer', 'chain-slept']);
  });

  it('lets promise chains settle between timers in manual mode too', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const log: string[] = [];
    clock.setTimer(10, () => {
      void Promise.resolve()
        .then(() => undefined)
        .then(() => log.push('chain'));
    });
    clock.setTimer(10, () => log.push('second'));
    await clock.advance(10);
    expect(log).toEqual(['chain', 'second']);
  });

  it('replays the same program to the same event log', async () => {
    const run = async (): Promise<string[]> => {
      const clock = new VirtualClock();
      const log: string[] = [];
      let seed = 42;
      const random = (): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const worker = async (id: number): Promise<void> => {
        for (let step = 0; step < 20; step++) {
          await clock.sleep(Math.floor(random() * 5) * 10);
          log.push(`${id}:${step}@${clock.now()}`);
        }
      };
      await Promise.all([worker(1), worker(2), worker(3)]);
      return log;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first).toHaveLength(60);
  });
});

describe('VirtualClock cancellation', () => {
  it('never fires a cancelled timer, and cancelling twice or after firing is a no-op', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    const a = clock.setTimer(10, () => fired.push('a'));
    const b = clock.setTimer(20, () => fired.push('b'));
    a.cancel();
    a.cancel();
    expect(clock.pendingTimers).toBe(1);
    await clock.whenIdle();
    b.cancel();
    expect(fired).toEqual(['b']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('honours a cancel made by an earlier timer at the same instant', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    clock.setTimer(10, () => {
      fired.push('first');
      second.cancel();
    });
    const second = clock.setTimer(10, () => fired.push('second'));
    await clock.whenIdle();
    expect(fired).toEqual(['first']);
  });

  it('rejects a sleep with the signal reason and leaves no listener behind', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const reason = new Error('barge-in');
    const sleeping = clock.sleep(1000, controller.signal);
    expect(abortListeners(controller.signal)).toBe(1);
    clock.setTimer(400, () => controller.abort(reason));
    await expect(sleeping).rejects.toBe(reason);
    expect(clock.now()).toBe(400);
    expect(abortListeners(controller.signal)).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    await clock.whenIdle();
    // The aborted sleep's timer must not drag virtual time to its deadline.
    expect(clock.now()).toBe(400);
  });

  it('rejects with an AbortError when the signal has no explicit reason', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(50, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects at once for an already aborted signal, scheduling nothing', async () => {
    const clock = new VirtualClock();
    const signal = AbortSignal.abort(new Error('gone'));
    await expect(clock.sleep(10, signal)).rejects.toThrow('gone');
    expect(clock.pendingTimers).toBe(0);
    expect(abortListeners(signal)).toBe(0);
  });

  it('removes the abort listener when the sleep completes normally', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    await clock.sleep(10, controller.signal);
    expect(abortListeners(controller.signal)).toBe(0);
    controller.abort();
  });

  it('shares one signal across many sleeps without accumulating listeners', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    for (let i = 0; i < 100; i++) await clock.sleep(1, controller.signal);
    expect(abortListeners(controller.signal)).toBe(0);
    const pending = Array.from({ length: 10 }, () => clock.sleep(1000, controller.signal));
    expect(abortListeners(controller.signal)).toBe(10);
    controller.abort();
    const results = await Promise.allSettled(pending);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it('does not keep cancelled timers until their deadline', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const keep = clock.setTimer(10, () => {});
    for (let i = 0; i < 10_000; i++) {
      const controller = new AbortController();
      const sleeping = clock.sleep(3_600_000, controller.signal);
      controller.abort();
      await sleeping.catch(() => {});
    }
    expect(clock.pendingTimers).toBe(1);
    expect(storedTimers(clock)).toBeLessThan(100);
    keep.cancel();
  });
});

describe('VirtualClock repeating timers', () => {
  it('fires at every interval without drift until cancelled', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const at: number[] = [];
    const handle = clock.setRepeatingTimer(20, () => at.push(clock.now()));
    await clock.advance(70);
    handle.cancel();
    await clock.advance(100);
    expect(at).toEqual([20, 40, 60]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('stops when cancelled from its own callback', async () => {
    const clock = new VirtualClock();
    let count = 0;
    const handle = clock.setRepeatingTimer(10, () => {
      count++;
      if (count === 3) handle.cancel();
    });
    await clock.whenIdle();
    expect(count).toBe(3);
    expect(clock.now()).toBe(30);
  });

  it('clamps a zero interval to 1 ms so time still moves', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    let count = 0;
    const handle = clock.setRepeatingTimer(0, () => count++);
    await clock.advance(5);
    handle.cancel();
    expect(count).toBe(5);
  });

  it('keeps repeating when a tick throws, reporting the error', async () => {
    const errors: unknown[] = [];
    const clock = new VirtualClock({ autoAdvance: false, onTimerError: (e) => errors.push(e) });
    let count = 0;
    const handle = clock.setRepeatingTimer(10, () => {
      count++;
      throw new Error(`tick ${count}`);
    });
    await clock.advance(30);
    handle.cancel();
    expect(count).toBe(3);
    expect(errors.map((e) => (e as Error).message)).toEqual(['tick 1', 'tick 2', 'tick 3']);
  });
});

describe('VirtualClock advancing', () => {
  it('in manual mode fires only what advance() reaches, including the exact target', async () => {
    const clock = new VirtualClock({ autoAdvance: false, startMs: 1000 });
    const fired: number[] = [];
    for (const ms of [5, 10, 15]) clock.setTimer(ms, () => fired.push(clock.now()));
    await tick();
    await tick();
    expect(fired).toEqual([]);
    expect(clock.now()).toBe(1000);
    await clock.advance(10);
    expect(fired).toEqual([1005, 1010]);
    expect(clock.now()).toBe(1010);
    expect(clock.nextTimerAt()).toBe(1015);
    await clock.advance(0);
    expect(fired).toEqual([1005, 1010]);
    await clock.advance(100);
    expect(fired).toEqual([1005, 1010, 1015]);
    expect(clock.now()).toBe(1110);
    expect(clock.nextTimerAt()).toBeUndefined();
  });

  it('fires timers created during advance() when they fall inside the window', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const fired: string[] = [];
    clock.setTimer(10, () => {
      fired.push(`a@${clock.now()}`);
      clock.setTimer(10, () => fired.push(`b@${clock.now()}`));
      clock.setTimer(50, () => fired.push(`c@${clock.now()}`));
    });
    await clock.advance(30);
    expect(fired).toEqual(['a@10', 'b@20']);
    expect(clock.now()).toBe(30);
  });

  it('advance(0) fires timers that are due now', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    let fired = false;
    clock.setTimer(0, () => {
      fired = true;
    });
    await clock.advance(0);
    expect(fired).toBe(true);
  });

  it('auto-advances by itself, and can be paused and resumed', async () => {
    const clock = new VirtualClock();
    await clock.sleep(3_600_000);
    expect(clock.now()).toBe(3_600_000);

    clock.setAutoAdvance(false);
    let woke = false;
    void clock.sleep(10).then(() => {
      woke = true;
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(woke).toBe(false);
    expect(clock.now()).toBe(3_600_000);

    clock.setAutoAdvance(true);
    await clock.whenIdle();
    expect(woke).toBe(true);
    expect(clock.now()).toBe(3_600_010);
  });

  it('runs a simulated hour of 20 ms frames quickly', async () => {
    const clock = new VirtualClock();
    let frames = 0;
    const start = performance.now();
    const handle = clock.setRepeatingTimer(20, () => {
      frames++;
      if (clock.now() >= 3_600_000) handle.cancel();
    });
    await clock.whenIdle();
    expect(frames).toBe(180_000);
    expect(performance.now() - start).toBeLessThan(10_000);
  });

  it('treats negative and NaN delays as 0 and never fires an infinite one', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    clock.setTimer(-5, () => fired.push('negative'));
    clock.setTimer(Number.NaN, () => fired.push('nan'));
    clock.setTimer(Number.POSITIVE_INFINITY, () => fired.push('infinite'));
    clock.setTimer(10, () => fired.push('ten'));
    await clock.whenIdle();
    expect(fired).toEqual(['negative', 'nan', 'ten']);
    expect(clock.now()).toBe(10);
  });

  it('lets an infinite sleep be aborted', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(Number.POSITIVE_INFINITY, controller.signal);
    await clock.whenIdle();
    controller.abort();
    await expect(sleeping).rejects.toMatchObject({ name: 'AbortError' });
    expect(abortListeners(controller.signal)).toBe(0);
  });
});

describe('VirtualClock errors in timer callbacks', () => {
  it('keeps auto-advancing after a callback throws, reporting the error', async () => {
    const errors: unknown[] = [];
    const clock = new VirtualClock({ onTimerError: (e) => errors.push(e) });
    const fired: number[] = [];
    clock.setTimer(10, () => {
      throw new Error('boom');
    });
    clock.setTimer(20, () => fired.push(clock.now()));
    await clock.whenIdle();
    expect(fired).toEqual([20]);
    expect(errors).toHaveLength(1);
  });

  it('without a handler, throws from the host macrotask like a real timer and keeps advancing', async () => {
    // The runner treats uncaught exceptions as failures, so its listeners step aside for this test.
    const runnerListeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    const uncaught: unknown[] = [];
    const capture = (error: unknown): void => {
      uncaught.push(error);
    };
    process.on('uncaughtException', capture);
    try {
      const clock = new VirtualClock();
      const fired: number[] = [];
      clock.setTimer(10, () => {
        throw new Error('boom');
      });
      clock.setTimer(20, () => fired.push(clock.now()));
      await clock.whenIdle();
      expect(fired).toEqual([20]);
      expect(uncaught).toHaveLength(1);
      expect((uncaught[0] as Error).message).toBe('boom');
    } finally {
      process.off('uncaughtException', capture);
      for (const listener of runnerListeners) process.on('uncaughtException', listener);
    }
  });

  it('rejects advance() with the error when no handler is set, and stays usable', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const fired: number[] = [];
    clock.setTimer(10, () => {
      throw new Error('boom');
    });
    clock.setTimer(20, () => fired.push(clock.now()));
    await expect(clock.advance(30)).rejects.toThrow('boom');
    expect(clock.now()).toBe(10);
    await clock.advance(20);
    expect(fired).toEqual([20]);
  });
});

describe('VirtualClock.whenIdle', () => {
  it('resolves at once when nothing is pending', async () => {
    const clock = new VirtualClock();
    await clock.whenIdle();
    expect(clock.now()).toBe(0);
  });

  it('waits for chains that keep scheduling timers', async () => {
    const clock = new VirtualClock();
    const done: number[] = [];
    const chain = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await clock.sleep(7);
      done.push(clock.now());
    };
    void chain(3);
    void chain(10);
    await clock.whenIdle();
    expect(done).toEqual([21, 70]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves every waiter', async () => {
    const clock = new VirtualClock();
    clock.setTimer(100, () => {});
    const results = await Promise.all([clock.whenIdle(), clock.whenIdle(), clock.whenIdle()]);
    expect(results).toHaveLength(3);
    expect(clock.now()).toBe(100);
  });

  it('in manual mode resolves once advance() has run every timer', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    clock.setTimer(10, () => {});
    let idle = false;
    const waiting = clock.whenIdle().then(() => {
      idle = true;
    });
    await clock.advance(5);
    expect(idle).toBe(false);
    await clock.advance(5);
    await waiting;
    expect(idle).toBe(true);
  });

  it('in manual mode resolves when the last pending timer is cancelled', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const handle = clock.setTimer(10, () => {});
    const waiting = clock.whenIdle();
    handle.cancel();
    await waiting;
    expect(clock.now()).toBe(0);
  });
});
