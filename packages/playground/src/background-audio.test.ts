import { AgentSession, AudioFrame, BackgroundAudio, VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { PageAudioOutput } from './audio-output.js';
import type { ServerMessage } from './protocol.js';

const RATE = 48000;

/** The core's BackgroundAudio over the page's sink: what the page receives, in order. */
describe('BackgroundAudio on the playground page', () => {
  it('ticks into the page while thinking, cuts them for speech at once, and resumes after it', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const log: Array<{ atMs: number; what: string }> = [];
    const page = new PageAudioOutput(
      {
        send: (m: ServerMessage) =>
          log.push({ atMs: clock.now(), what: `${m.type}${'segment' in m ? m.segment : ''}` }),
        sendAudio: (segment) => {
          log.push({ atMs: clock.now(), what: `audio${segment}` });
          return true;
        },
      },
      clock,
      { sampleRate: RATE },
    );
    const session = new AgentSession({ clock });
    const background = new BackgroundAudio(session, { thinking: true });
    const output = background.wrap(page);
    expect(output.sampleRate).toBe(RATE);
    // The page reports what it played, a frame behind what it was sent, as a browser does.
    const playFor = async (segment: number, ms: number) => {
      const startedAt = log.find((e) => e.what === `audio${segment}`)?.atMs;
      for (let t = 0; t < ms; t += 20) {
        await clock.advance(20);
        const first = startedAt ?? log.find((e) => e.what === `audio${segment}`)?.atMs;
        if (first !== undefined) page.onPlaybackReport(segment, Math.max(0, clock.now() - first - 20));
      }
    };
    session.emit('agent_state_changed', { oldState: 'listening', newState: 'thinking', atMs: 0 });
    await playFor(1, 1000);
    const ticks = log.filter((e) => e.what === 'audio1');
    // Real speed: one 20 ms frame per 20 ms of the clock, never a backlog on the page.
    expect(ticks.length).toBe(50);
    expect(ticks.every((e, i) => e.atMs === (i + 1) * 20)).toBe(true);

    const speech = () => new AudioFrame(new Int16Array(960).fill(500), RATE, 1, 960);
    await output.captureFrame(speech());
    // The background segment is cleared before the first speech frame goes out, in the same instant.
    expect(log.slice(-2)).toEqual([
      { atMs: 1000, what: 'clear1' },
      { atMs: 1000, what: 'audio2' },
    ]);
    page.onPlaybackReport(1, 990, { interrupted: true });
    for (let i = 0; i < 9; i++) await output.captureFrame(speech());
    output.flush();
    const playout = output.waitForPlayout();
    await clock.advance(100);
    expect(log.filter((e) => e.what === 'audio2')).toHaveLength(10);
    page.onPlaybackReport(2, 200, { interrupted: false });
    expect(await playout).toEqual({ playbackPositionMs: 200, interrupted: false });
    // Thinking again (a second tool step): the ticks come back, in a segment of their own.
    session.emit('agent_state_changed', { oldState: 'speaking', newState: 'thinking', atMs: clock.now() });
    await playFor(3, 200);
    expect(log.filter((e) => e.what === 'audio3').length).toBeGreaterThanOrEqual(9);
    expect(background.stats.gapTicksSkipped).toBe(0);
    await session.close();
    const count = log.length;
    await clock.advance(500);
    expect(log.length).toBe(count);
    expect(log.at(-1)!.what).toBe('clear3');
    expect(clock.pendingTimers).toBe(0);
  });
});
