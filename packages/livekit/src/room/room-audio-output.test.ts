import { silentLogger, VirtualClock } from '@voxwire/agents';
import type { PlaybackEvent } from '@voxwire/agents/provider-utils';
import { agentFrame } from '@voxwire/testing';
import { describe, expect, it } from 'vitest';
import { FakeAudioSink } from '../testing/fake-room.js';
import { RoomAudioOutput } from './room-audio-output.js';

function setup(queueSizeMs = 400, autoAdvance = true) {
  const clock = new VirtualClock({ autoAdvance });
  const sink = new FakeAudioSink(clock, 24_000, 1, queueSizeMs);
  const output = new RoomAudioOutput(Promise.resolve(sink), 24_000, clock, silentLogger);
  const events: Array<PlaybackEvent & { atMs: number }> = [];
  output.onPlayback((e) => events.push({ ...e, atMs: clock.now() }));
  return { clock, sink, output, events };
}

async function play(output: RoomAudioOutput, ms: number, frameMs = 20): Promise<void> {
  for (let t = 0; t < ms; t += frameMs) await output.captureFrame(agentFrame(frameMs, 24_000));
}

describe('RoomAudioOutput', () => {
  it('finishes a flushed segment when the sink has played it out, with its full position', async () => {
    const { clock, output, sink, events } = setup();
    await play(output, 1000);
    // The sink held the caller back: only its queue (400 ms) is ahead of playback.
    expect(clock.now()).toBe(600);
    expect(sink.queuedDurationMs).toBe(400);
    output.flush();
    const finished = await output.waitForPlayout();
    expect(finished).toEqual({ playbackPositionMs: 1000, interrupted: false });
    expect(clock.now()).toBe(1000);
    expect(events.map((e) => [e.type, e.atMs])).toEqual([
      ['playback_started', 0],
      ['playback_finished', 1000],
    ]);
  });

  it('cuts a segment on clearBuffer at what was heard: captured minus still queued', async () => {
    const { clock, output, sink } = setup();
    await play(output, 1000);
    await clock.advance(100);
    output.clearBuffer();
    expect(sink.clears).toBe(1);
    expect(await output.waitForPlayout()).toEqual({ playbackPositionMs: 700, interrupted: true });
    expect(clock.now()).toBe(700);
  });

  it('clears a flushed segment still draining, and the next segment starts clean', async () => {
    // Time moves only when the test says, so the clear lands 100 ms into playback.
    const { clock, output } = setup(400, false);
    await play(output, 300);
    output.flush();
    await clock.advance(100);
    output.clearBuffer();
    expect(await output.waitForPlayout()).toEqual({ playbackPositionMs: 100, interrupted: true });
    await play(output, 200);
    output.flush();
    const next = output.waitForPlayout();
    await clock.advance(200);
    expect(await next).toEqual({ playbackPositionMs: 200, interrupted: false });
  });

  it('finishes an empty segment at once and a segment queued behind another in order', async () => {
    const { output } = setup(2000);
    output.flush();
    expect(await output.waitForPlayout()).toEqual({ playbackPositionMs: 0, interrupted: false });
    await play(output, 200);
    output.flush();
    const first = output.waitForPlayout();
    await play(output, 300);
    output.flush();
    const second = output.waitForPlayout();
    expect(await first).toEqual({ playbackPositionMs: 200, interrupted: false });
    expect(await second).toEqual({ playbackPositionMs: 300, interrupted: false });
  });

  it('ends what was playing when closed, and takes no more frames', async () => {
    const { output, sink } = setup();
    await play(output, 200);
    const pending = output.waitForPlayout();
    await output.close();
    await pending;
    expect(sink.closed).toBe(true);
    const before = sink.frames.length;
    await play(output, 100);
    expect(sink.frames.length).toBe(before);
  });
});
