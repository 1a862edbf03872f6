import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../time/virtual-clock.js';
import { SpeechHandle } from '../speech/speech-handle.js';
import type { UserState } from '../turn/user-turn-tracker.js';
import { ActivityState } from './activity-state.js';
import type { EventPayload } from './session-reporter.js';

function rig(options: { inputActive?: boolean; userAwayTimeoutMs?: number | null } = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const user = {
    userState: 'listening' as UserState,
    setAway(away: boolean): void {
      if (away && user.userState === 'listening') user.userState = 'away';
      else if (!away && user.userState === 'away') user.userState = 'listening';
    },
  };
  const gate = { paused: false };
  const states: string[] = [];
  const activity = new ActivityState({
    clock,
    userAwayTimeoutMs: options.userAwayTimeoutMs === undefined ? 1000 : options.userAwayTimeoutMs,
    inputActive: options.inputActive ?? true,
    user,
    gate,
    reporter: {
      event: (name, payload) => {
        if (name !== 'agent_state_changed') return;
        const { newState } = payload as unknown as EventPayload<'agent_state_changed'>;
        states.push(`${newState}@${clock.now()}`);
      },
    },
  });
  const at = (ms: number): Promise<void> => clock.advance(ms - clock.now());
  return { clock, user, gate, states, activity, at };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let count = 0;
function speech(allowInterruptions = true): SpeechHandle {
  return new SpeechHandle({ id: `s${++count}`, allowInterruptions, source: 'say' });
}

describe('ActivityState: the derived agent state', () => {
  it('starts initializing, then listens with audio input or idles without', async () => {
    const withInput = rig();
    const without = rig({ inputActive: false });
    expect(withInput.activity.agentState).toBe('initializing');
    withInput.activity.sessionStarted();
    without.activity.sessionStarted();
    // Derived at the end of the synchronous run, not at once.
    expect(withInput.activity.agentState).toBe('initializing');
    await settle();
    expect(withInput.states).toEqual(['listening@0']);
    expect(without.states).toEqual(['idle@0']);
  });

  it('thinks while a speech is under way, speaks only while its frames flow, and listens after', async () => {
    const r = rig();
    r.activity.sessionStarted();
    const h = speech();
    r.activity.speechAuthorized(h);
    await settle();
    r.activity.playbackStarted(h);
    await settle();
    r.activity.speechReleased(h);
    await settle();
    r.activity.speechEnded(h);
    await settle();
    expect(r.states).toEqual(['thinking@0', 'speaking@0', 'thinking@0', 'listening@0']);
  });

  it('is silent while the output is paused and from the moment its speech is cut', async () => {
    const r = rig();
    const h = speech();
    r.activity.speechAuthorized(h);
    r.activity.playbackStarted(h);
    await settle();
    r.gate.paused = true;
    r.activity.outputPauseChanged();
    await settle();
    r.gate.paused = false;
    r.activity.outputPauseChanged();
    await settle();
    h.requestInterrupt('api', false);
    r.activity.speechInterrupted(h);
    await settle();
    expect(r.states).toEqual(['speaking@0', 'thinking@0', 'speaking@0', 'thinking@0']);
  });

  it('thinks while a step generates or its tools run', async () => {
    const r = rig();
    r.activity.sessionStarted();
    await settle();
    const h = speech();
    r.activity.generationStarted(h);
    await settle();
    r.activity.generationEnded(h);
    await settle();
    r.activity.toolPhaseStarted(h);
    await settle();
    r.activity.toolPhaseEnded(h);
    await settle();
    expect(r.states).toEqual(['listening@0', 'thinking@0', 'listening@0', 'thinking@0', 'listening@0']);
  });

  it('makes one transition of changes made in one synchronous run', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    r.activity.speechAuthorized(a);
    r.activity.playbackStarted(a);
    await settle();
    // One speech hands the output to the next: no "thinking" in between.
    r.activity.speechReleased(a);
    r.activity.speechEnded(a);
    r.activity.speechAuthorized(b);
    r.activity.playbackStarted(b);
    await settle();
    expect(r.states).toEqual(['speaking@0']);
  });

  it('releasing another speech than the playing one leaves it playing', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    r.activity.speechAuthorized(a);
    r.activity.playbackStarted(a);
    r.activity.speechReleased(b);
    await settle();
    expect(r.activity.agentState).toBe('speaking');
    expect(r.activity.playingSpeech).toBe(a);
  });

  it('idles once audio input ends', async () => {
    const r = rig();
    r.activity.sessionStarted();
    await settle();
    r.activity.inputEnded();
    await settle();
    expect(r.states).toEqual(['listening@0', 'idle@0']);
  });

  it('stop() ends with idle and freezes the state', async () => {
    const r = rig();
    r.activity.sessionStarted();
    await settle();
    r.activity.stop();
    r.activity.speechAuthorized(speech());
    await settle();
    expect(r.states).toEqual(['listening@0', 'idle@0']);
    expect(r.clock.pendingTimers).toBe(0);
  });
});

describe('ActivityState: what it tells about speeches', () => {
  it('knows whether the playing speech may be interrupted', () => {
    const r = rig();
    expect(r.activity.playingSpeechIsUninterruptible).toBe(false);
    const locked = speech(false);
    r.activity.playbackStarted(locked);
    expect(r.activity.playingSpeechIsUninterruptible).toBe(true);
    const held = speech();
    const release = held.holdInterruptions();
    r.activity.playbackStarted(held);
    expect(r.activity.playingSpeechIsUninterruptible).toBe(true);
    release();
    expect(r.activity.playingSpeechIsUninterruptible).toBe(false);
  });

  it('names the speech whose tools started last, among those still running', () => {
    const r = rig();
    const a = speech();
    const b = speech();
    r.activity.toolPhaseStarted(a);
    r.activity.toolPhaseStarted(b);
    expect(r.activity.latestToolPhaseSpeech).toBe(b);
    r.activity.toolPhaseEnded(b);
    expect(r.activity.latestToolPhaseSpeech).toBe(a);
    r.activity.toolPhaseEnded(a);
    expect(r.activity.latestToolPhaseSpeech).toBeUndefined();
  });
});

describe('ActivityState: away', () => {
  it('the user is away after the timeout of mutual silence, and back when the agent gets busy', async () => {
    const r = rig({ userAwayTimeoutMs: 1000 });
    r.activity.sessionStarted();
    await settle();
    await r.at(999);
    expect(r.user.userState).toBe('listening');
    await r.at(1000);
    expect(r.user.userState).toBe('away');
    r.activity.speechAuthorized(speech());
    await settle();
    expect(r.user.userState).toBe('listening');
  });

  it('never while tools run or a task is active', async () => {
    const r = rig({ userAwayTimeoutMs: 1000 });
    r.activity.sessionStarted();
    const h = speech();
    r.activity.toolPhaseStarted(h);
    await settle();
    await r.at(5000);
    expect(r.user.userState).toBe('listening');
    r.activity.taskStarted();
    r.activity.toolPhaseEnded(h);
    await settle();
    await r.at(10_000);
    expect(r.user.userState).toBe('listening');
    r.activity.taskEnded();
    r.activity.taskHandedBack();
    await settle();
    await r.at(11_000);
    expect(r.user.userState).toBe('away');
  });

  it('a task that starts while the timeout runs stops it (a task started from an agent hook)', async () => {
    const r = rig({ userAwayTimeoutMs: 1000 });
    r.activity.sessionStarted();
    await settle();
    await r.at(500);
    r.activity.taskStarted();
    await r.at(5000);
    expect(r.user.userState).toBe('listening');
    r.activity.taskEnded();
    r.activity.taskHandedBack();
    await settle();
    await r.at(6000);
    expect(r.user.userState).toBe('away');
  });

  it('not while the user speaks; the timeout counts again from when they stop', async () => {
    const r = rig({ userAwayTimeoutMs: 1000 });
    r.activity.sessionStarted();
    await settle();
    await r.at(500);
    r.user.userState = 'speaking';
    r.activity.userStateChanged();
    await r.at(3000);
    r.user.userState = 'listening';
    r.activity.userStateChanged();
    await r.at(3999);
    expect(r.user.userState).toBe('listening');
    await r.at(4000);
    expect(r.user.userState).toBe('away');
  });

  it('never with the timeout disabled', async () => {
    const r = rig({ userAwayTimeoutMs: null });
    r.activity.sessionStarted();
    await settle();
    await r.at(60_000);
    expect(r.user.userState).toBe('listening');
    expect(r.clock.pendingTimers).toBe(0);
  });
});
