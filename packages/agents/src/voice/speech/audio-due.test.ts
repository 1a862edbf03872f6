import { describe, expect, it } from 'vitest';
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
