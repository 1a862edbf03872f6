import { describe, expect, it } from 'vitest';
import { countArmedTimers } from '../../time/timer-count-test-helper.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { AudioDue } from './audio-due.js';
import { PlayoutGate } from './playout-gate.js';

function rig() {
  const clock = new VirtualClock({ autoAdvance: false });
  const gate = new PlayoutGate();
  const due = new AudioDue(clock, gate);
  return { clock, gate, due };
}

describe('AudioDue', () => {
  it('is due once every frame played after the ones before it, or from now after an underrun', async () => {
    const { clock, due } = rig();
    expect(due.dueAt).toBe(0);
    due.frameSent(20);
    due.frameSent(20);
    expect(due.dueAt).toBe(40);
    await clock.advance(100);
    // An underrun: the next frame plays when it comes.
    due.frameSent(20);
    expect(due.dueAt).toBe(120);
  });

  it('counts each pause that began while the audio played, also one resumed and paused again at once', async () => {
    const { clock, gate, due } = rig();
    due.frameSent(500);
    await clock.advance(200);
    gate.pause();
    await clock.advance(1000);
    expect(due.dueAt).toBe(1500);
    gate.resume();
    gate.pause();
    await clock.advance(300);
    expect(due.dueAt).toBe(1800);
    gate.resume();
    await clock.advance(100);
    expect(due.dueAt).toBe(1800);
  });

  it('a pause that began once the audio was due holds nothing back', async () => {
    const { clock, gate, due } = rig();
    due.frameSent(100);
    await clock.advance(300);
    gate.pause();
    await clock.advance(5000);
    gate.resume();
    expect(due.dueAt).toBe(100);
  });

  it('waits for the work until due plus the grace, and stops following the gate once disposed', async () => {
    const { clock, gate, due } = rig();
    due.frameSent(100);
    const never = new Promise<void>(() => {});
    const waited = due.waitFor(never, 50, new AbortController().signal);
    await clock.advance(149);
    let result: unknown = 'pending';
    void waited.then((r) => {
      result = r;
    });
    await clock.advance(0);
    expect(result).toBe('pending');
    await clock.advance(1);
    expect(result).toBeUndefined();
    due.dispose();
    gate.pause();
    await clock.advance(1000);
    gate.resume();
    expect(due.dueAt).toBe(100);
  });
});

describe('AudioDue waits', () => {
  it('rejects every wait in progress when the signal aborts, and listens to the signal once for all of them', async () => {
    const { clock, due } = rig();
    due.frameSent(1000);
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    const first = due.waitFor(Promise.resolve('a'), 100, controller.signal);
    await expect(first).resolves.toEqual({ value: 'a' });
    const never = new Promise<string>(() => {});
    const second = due.waitFor(never, 100, controller.signal);
    const third = due.waitFor(never, 100, controller.signal);
    controller.abort(new Error('cut'));
    await expect(second).rejects.toThrow('cut');
    await expect(third).rejects.toThrow('cut');
    expect(listeners).toBe(1);
    expect(clock.pendingTimers).toBe(0);
    await expect(due.waitFor(never, 100, controller.signal)).rejects.toThrow('cut');
  });

  it('follows a deadline that a pause pushed back while it waited', async () => {
    const { clock, gate, due } = rig();
    due.frameSent(100);
    let result: unknown = 'pending';
    void due.waitFor(new Promise<void>(() => {}), 50, new AbortController().signal).then((r) => {
      result = r;
    });
    await clock.advance(50);
    gate.pause();
    await clock.advance(200);
    gate.resume();
    // Due at 100 + 200 paused, plus the grace.
    await clock.advance(99);
    expect(result).toBe('pending');
    await clock.advance(1);
    expect(result).toBeUndefined();
  });
  it('rejects each overlapping wait when its own signal aborts, whichever signal is shared', async () => {
    const { due } = rig();
    due.frameSent(1000);
    const first = new AbortController();
    const second = new AbortController();
    const never = new Promise<number>(() => {});
    const a = due.waitFor(never, 0, first.signal);
    const b = due.waitFor(never, 0, second.signal);
    const outcomes: string[] = [];
    a.catch(() => outcomes.push('a'));
    b.catch(() => outcomes.push('b'));
    second.abort();
    await Promise.resolve();
    await Promise.resolve();
    expect(outcomes).toEqual(['b']);
    first.abort();
    await Promise.resolve();
    await Promise.resolve();
    expect(outcomes).toEqual(['b', 'a']);
    due.dispose();
  });
  it('arms about one timer per grace period for frames taken in time, and still gives up at the last deadline', async () => {
    const { clock, due } = rig();
    const armed = countArmedTimers(clock);
    const signal = new AbortController().signal;
    // 200 frames of 20 ms, each taken by the sink as soon as it is handed over, 20 ms apart.
    for (let i = 0; i < 200; i++) {
      due.frameSent(20);
      await expect(due.waitFor(Promise.resolve(i), 1000, signal)).resolves.toEqual({ value: i });
      await clock.advance(20);
    }
    expect(armed()).toBeLessThanOrEqual(5);
    // A sink that then stops taking frames is given up on when the audio is due plus the grace.
    due.frameSent(20);
    const stuck = due.waitFor(new Promise<void>(() => {}), 1000, signal);
    let result: unknown = 'pending';
    void stuck.then((r) => {
      result = r;
    });
    await clock.advance(1019);
    expect(result).toBe('pending');
    await clock.advance(1);
    expect(result).toBeUndefined();
    due.dispose();
    expect(clock.pendingTimers).toBe(0);
  });
});
