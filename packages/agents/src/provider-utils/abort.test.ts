import { getEventListeners, setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedController, raceAbort } from './abort.js';

function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

describe('linkedController', () => {
  it('aborts with the parent, with the same reason, and not the other way round', () => {
    const parent = new AbortController();
    const child = linkedController(parent.signal);
    const sibling = linkedController(parent.signal);
    sibling.abort('only me');
    expect(sibling.signal.reason).toBe('only me');
    expect(parent.signal.aborted).toBe(false);
    expect(child.signal.aborted).toBe(false);
    const reason = new Error('hang up');
    parent.abort(reason);
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe(reason);
  });

  it('starts aborted under an aborted parent', () => {
    const child = linkedController(AbortSignal.abort('gone'));
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe('gone');
    child.dispose();
  });

  it('works without a parent', () => {
    const child = linkedController();
    child.abort('x');
    expect(child.signal.reason).toBe('x');
  });

  it('leaves no listener on a long-lived parent once disposed', () => {
    const session = new AbortController();
    for (let i = 0; i < 1_000; i++) {
      const call = linkedController(session.signal);
      expect(abortListeners(session.signal)).toBe(1);
      call.dispose();
      call.dispose();
    }
    expect(abortListeners(session.signal)).toBe(0);
    // A disposed child no longer follows the parent.
    const detached = linkedController(session.signal);
    detached.dispose();
    session.abort();
    expect(detached.signal.aborted).toBe(false);
  });
});

describe('raceAbort', () => {
  it('settles like the promise and then removes its listener', async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    const failure = new Error('provider failed');
    await expect(raceAbort(Promise.reject(failure), controller.signal)).rejects.toBe(failure);
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it('rejects with the reason as soon as the signal aborts, even if the promise never settles', async () => {
    const controller = new AbortController();
    const never = new Promise<never>(() => {});
    const raced = raceAbort(never, controller.signal);
    expect(abortListeners(controller.signal)).toBe(1);
    const reason = new Error('interrupted');
    controller.abort(reason);
    await expect(raced).rejects.toBe(reason);
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it('rejects at once on an aborted signal and swallows the late failure of the abandoned promise', async () => {
    const late = Promise.reject(new Error('late'));
    const raced = raceAbort(late, AbortSignal.abort());
    await expect(raced).rejects.toMatchObject({ name: 'AbortError' });
    // An unhandled rejection of `late` would fail the test run.
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('does not accumulate listeners on a session signal over many calls', async () => {
    const session = new AbortController();
    // Thousands of races in flight at once are the point here, not the leak Node warns about.
    setMaxListeners(10_000, session.signal);
    const pending: Array<Promise<number>> = [];
    for (let i = 0; i < 5_000; i++) pending.push(raceAbort(Promise.resolve(i), session.signal));
    expect(abortListeners(session.signal)).toBe(5_000);
    await Promise.all(pending);
    expect(abortListeners(session.signal)).toBe(0);
  });
});
