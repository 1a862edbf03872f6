import { AudioFrame, VirtualClock } from '@voxwire/agents';
import type { PlaybackFinished } from '@voxwire/agents/provider-utils';
import { describe, expect, it } from 'vitest';
import { PageAudioOutput } from './audio-output.js';
import type { ServerMessage } from './protocol.js';

const RATE = 48000;
const frame = (ms = 20) => AudioFrame.silence(RATE, 1, (RATE * ms) / 1000);

function setup(options: { dropAudio?: boolean } = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const messages: ServerMessage[] = [];
  const audio: Array<{ segment: number; samples: number }> = [];
  const output = new PageAudioOutput(
    {
      send: (m) => messages.push(m),
      sendAudio: (segment, samples) => {
        if (options.dropAudio) return false;
        audio.push({ segment, samples: samples.length });
        return true;
      },
    },
    clock,
    { sampleRate: RATE, leadMs: 100, maxReportLagMs: 400, finishSlackMs: 1000, clearReplyTimeoutMs: 300 },
  );
  const finished: PlaybackFinished[] = [];
  output.onPlayback((e) => {
    if (e.type === 'playback_finished') finished.push(e);
  });
  return { clock, messages, audio, output, finished };
}

/** Sends `count` frames as the session would: one after another, each waiting for the sink. */
async function play(
  output: PageAudioOutput,
  count: number,
  onSent?: (i: number) => void,
  stop = { now: false },
) {
  for (let i = 0; i < count && !stop.now; i++) {
    await output.captureFrame(frame());
    onSent?.(i);
  }
}

/** Advances virtual time in small steps until `work` settles (the sink re-arms its timers as it goes). */
async function drive(clock: VirtualClock, work: Promise<unknown>, maxMs = 10_000): Promise<void> {
  let done = false;
  void work.finally(() => {
    done = true;
  });
  for (let t = 0; t < maxMs && !done; t += 10) await clock.advance(10);
  expect(done, `still pending after ${maxMs} ms of virtual time`).toBe(true);
}

describe('PageAudioOutput', () => {
  it('sends at real speed a little ahead of the page, and finishes with the position the page reports', async () => {
    const { clock, audio, output, finished, messages } = setup();
    let sent = 0;
    const playing = play(output, 50, () => sent++);
    await clock.advance(0);
    // 100 ms of lead: five 20 ms frames are accepted (and a sixth waits) before the page plays anything.
    expect(sent).toBe(5);
    for (let t = 0; t < 1000; t += 50) {
      output.onPlaybackReport(1, t);
      await clock.advance(50);
    }
    await playing;
    expect(audio).toHaveLength(50);
    output.flush();
    expect(messages.at(-1)).toEqual({ type: 'segment_end', segment: 1 });
    const playout = output.waitForPlayout();
    output.onPlaybackReport(1, 1000, { interrupted: false });
    await expect(playout).resolves.toEqual({ playbackPositionMs: 1000, interrupted: false });
    expect(finished).toHaveLength(1);
  });

  it('keeps pace on its own clock when the page stops reporting, and finishes anyway', async () => {
    const { clock, output } = setup();
    const playing = play(output, 25);
    await drive(clock, playing);
    // Without reports the clock paces, allowing the page its reporting lag (400 ms) on top.
    expect(clock.now()).toBeGreaterThanOrEqual(400 + 500 - 100 - 20);
    expect(clock.now()).toBeLessThan(1000);
    output.flush();
    const playout = output.waitForPlayout();
    await drive(clock, playout);
    await expect(playout).resolves.toEqual({ playbackPositionMs: 500, interrupted: false });
  });

  it('clears at once: the page is told, its reply gives the heard position, the sender is released', async () => {
    const { clock, output, messages } = setup();
    const stop = { now: false };
    const playing = play(output, 100, undefined, stop);
    await clock.advance(0);
    output.onPlaybackReport(1, 40);
    stop.now = true;
    output.clearBuffer();
    expect(messages.at(-1)).toEqual({ type: 'clear', segment: 1 });
    const playout = output.waitForPlayout();
    output.onPlaybackReport(1, 60, { interrupted: true });
    await expect(playout).resolves.toEqual({ playbackPositionMs: 60, interrupted: true });
    await playing;
  });

  it('uses its estimate when the page does not answer a clear, and a pause holds the clock', async () => {
    const { clock, output, messages } = setup();
    const stop = { now: false };
    const playing = play(output, 100, undefined, stop);
    await clock.advance(500);
    output.pause();
    expect(messages.at(-1)).toEqual({ type: 'pause' });
    await clock.advance(5000);
    output.resume();
    stop.now = true;
    output.clearBuffer();
    const playout = output.waitForPlayout();
    await clock.advance(300);
    // 500 ms played minus the 400 ms the page may lag: the paused 5 s do not count.
    await expect(playout).resolves.toEqual({ playbackPositionMs: 100, interrupted: true });
    await playing;
  });

  it('counts frames dropped on a backed-up socket and keeps real-time pacing', async () => {
    const { clock, output } = setup({ dropAudio: true });
    const playing = play(output, 10);
    await drive(clock, playing);
    expect(output.outputFramesDropped).toBe(10);
  });

  it('ends whatever plays when the page goes away', async () => {
    const { clock, output } = setup();
    const stop = { now: false };
    const playing = play(output, 100, undefined, stop);
    await clock.advance(0);
    stop.now = true;
    output.close();
    output.flush();
    const playout = output.waitForPlayout();
    await expect(playout).resolves.toEqual({ playbackPositionMs: 0, interrupted: true });
    await playing;
    // Later segments finish at once: nobody will play them.
    await output.captureFrame(frame());
    output.flush();
    await expect(output.waitForPlayout()).resolves.toEqual({ playbackPositionMs: 0, interrupted: true });
  });

  it('finishes a drained segment when the next one has started, in order', async () => {
    const { clock, output, finished } = setup();
    await output.captureFrame(frame());
    output.flush();
    const first = output.waitForPlayout();
    await output.captureFrame(frame());
    output.flush();
    const second = output.waitForPlayout();
    output.onPlaybackReport(2, 20, { interrupted: false });
    await expect(first).resolves.toEqual({ playbackPositionMs: 20, interrupted: false });
    await expect(second).resolves.toEqual({ playbackPositionMs: 20, interrupted: false });
    expect(finished).toHaveLength(2);
    await clock.advance(5000);
    expect(finished).toHaveLength(2);
  });
});
