import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { APITimeoutError } from '../errors.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { timeoutAfter, withTimeout } from './timeout.js';

/** A call that settles when told to, and records the signal it was given. */
function controllable<T>(): {
  fn: (signal: AbortSignal) => Promise<T>;
  signal: () => AbortSignal;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let signal: AbortSignal | undefined;
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    fn: (s) => {
      signal = s;
      return promise;
    },
    signal: () => signal!,
    resolve,
    reject,
  };
}

describe('timeoutAfter', () => {
  it('settles like the promise before the deadline and releases the timer', async () => {
    const clock = new VirtualClock();
    await expect(timeoutAfter(Promise.resolve('ok'), clock, 100, () => 'late')).resolves.toBe('ok');
    await expect(timeoutAfter(Promise.reject(new Error('no')), clock, 100, () => 'late')).rejects.toThrow(
      'no',
    );
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects with what onTimeout returns at the deadline', async () => {
    const clock = new VirtualClock();
    const outcome = timeoutAfter(new Promise(() => {}), clock, 250, () => new Error('too slow'));
    await expect(outcome).rejects.toThrow('too slow');
    expect(clock.now()).toBe(250);
  });

  it('has no deadline when the timeout is undefined or infinite', () => {
    const clock = new VirtualClock();
    const promise = Promise.resolve(1);
    expect(timeoutAfter(promise, clock, undefined, () => 0)).toBe(promise);
    expect(timeoutAfter(promise, clock, Number.POSITIVE_INFINITY, () => 0)).toBe(promise);
  });
});

describe('withTimeout', () => {
  it('returns the result, then aborts the signal it lent so leftovers are released', async () => {
    const clock = new VirtualClock();
    const call = controllable<string>();
    const outcome = withTimeout(call.fn, { clock, timeoutMs: 1_000 });
    expect(call.signal().aborted).toBe(false);
    call.resolve('transcript');
    await expect(outcome).resolves.toBe('transcript');
    expect(call.signal().aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails with APITimeoutError at the deadline and aborts the work with it', async () => {
    const clock = new VirtualClock();
    const call = controllable<string>();
    const outcome = withTimeout(call.fn, { clock, timeoutMs: 500, label: 'acme.STT' });
    const error = await outcome.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as APITimeoutError).retryable).toBe(true);
    expect((error as Error).message).toBe('acme.STT: no answer within 500 ms');
    expect(call.signal().reason).toBe(error);
    expect(clock.now()).toBe(500);
  });

  it('keeps the timeout when the work turns the abort into an error of its own', async () => {
    const clock = new VirtualClock();
    const outcome = withTimeout(
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(new Error('Request was aborted.')));
        }),
      { clock, timeoutMs: 50 },
    );
    await expect(outcome).rejects.toBeInstanceOf(APITimeoutError);
  });

  it('rejects with the caller reason at once, even for work that ignores its signal', async () => {
    const clock = new VirtualClock();
    const caller = new AbortController();
    clock.setTimer(30, () => caller.abort(new Error('barge-in')));
    const outcome = withTimeout(() => new Promise(() => {}), {
      clock,
      timeoutMs: 10_000,
      signal: caller.signal,
    });
    await expect(outcome).rejects.toThrow('barge-in');
    expect(clock.now()).toBe(30);
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('does not call the work under an aborted signal, and passes on its synchronous throw', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    await expect(
      withTimeout(
        async () => {
          calls++;
        },
        { clock, timeoutMs: 10, signal: AbortSignal.abort() },
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toBe(0);
    const bug = new TypeError('bad request body');
    await expect(
      withTimeout(
        () => {
          throw bug;
        },
        { clock, timeoutMs: 10 },
      ),
    ).rejects.toBe(bug);
    expect(clock.pendingTimers).toBe(0);
  });

  it('leaves no listener on a long-lived caller signal', async () => {
    const clock = new VirtualClock();
    const session = new AbortController();
    for (let i = 0; i < 200; i++) {
      await withTimeout(async () => i, { clock, timeoutMs: 1_000, signal: session.signal });
    }
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });
});
