// rtc-node's own classes, where they work without a server: frames, AudioSource and its queue, a
// local track read back through AudioStream (resampled). The process keeps running until dispose().
import { AudioFrame, realClock, silentLogger } from '@voxwire/agents';
import { agentFrame } from '@voxwire/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeAudioSink } from '../testing/fake-room.js';
import { RoomAudioOutput } from './room-audio-output.js';
import type { AudioSink } from './room-connection.js';
import { disposeRtcNode, loadRtcNode, participantKindOf, RtcAudioSink } from './rtc-room.js';

afterAll(async () => {
  await disposeRtcNode();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rtc-node without a server', () => {
  it('RtcAudioSink reports the AudioSource queue, plays it out and clears it', async () => {
    const rtc = await loadRtcNode();
    const sink = new RtcAudioSink(rtc, new rtc.AudioSource(24_000, 1, 1000));
    expect([sink.sampleRate, sink.channels]).toEqual([24_000, 1]);
    for (let i = 0; i < 10; i++) await sink.captureFrame(agentFrame(20, 24_000));
    const queued = sink.queuedDurationMs;
    expect(queued).toBeGreaterThan(100);
    expect(queued).toBeLessThanOrEqual(200);
    const started = performance.now();
    await sink.waitForPlayout();
    // Played out in about the queued time (a lower bound only: the machine may be slow, never fast).
    expect(performance.now() - started).toBeGreaterThanOrEqual(queued - 40);
    for (let i = 0; i < 25; i++) await sink.captureFrame(agentFrame(20, 24_000));
    expect(sink.queuedDurationMs).toBeGreaterThan(300);
    sink.clearQueue();
    expect(sink.queuedDurationMs).toBe(0);
    await sink.waitForPlayout();
    await sink.close();
  });

  it('RoomAudioOutput over a real AudioSource: flushed segments finish when played, cleared ones where cut', async () => {
    const rtc = await loadRtcNode();
    const sink = new RtcAudioSink(rtc, new rtc.AudioSource(24_000, 1, 400));
    const output = new RoomAudioOutput(Promise.resolve(sink), 24_000, realClock(), silentLogger);
    const t0 = performance.now();
    for (let i = 0; i < 15; i++) await output.captureFrame(agentFrame(20, 24_000));
    output.flush();
    expect(await output.waitForPlayout()).toEqual({ playbackPositionMs: 300, interrupted: false });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(250);

    for (let i = 0; i < 20; i++) await output.captureFrame(agentFrame(20, 24_000));
    await sleep(100);
    output.clearBuffer();
    const cut = await output.waitForPlayout();
    expect(cut.interrupted).toBe(true);
    expect(cut.playbackPositionMs).toBeGreaterThan(0);
    expect(cut.playbackPositionMs).toBeLessThan(400);
    await output.close();
  });

  it('reads a local track back through AudioStream, resampled to the rate asked for', async () => {
    const rtc = await loadRtcNode();
    const source = new rtc.AudioSource(48_000, 1, 1000);
    const track = rtc.LocalAudioTrack.createAudioTrack('probe', source);
    const stream = new rtc.AudioStream(track, { sampleRate: 16_000, numChannels: 1 });
    const reader = stream.getReader();
    const feeding = (async () => {
      for (let i = 0; i < 30; i++) {
        const data = new Int16Array(480).map((_, j) =>
          Math.round(8000 * Math.sin((2 * Math.PI * 440 * j) / 48_000)),
        );
        await source.captureFrame(new rtc.AudioFrame(data, 48_000, 1, 480));
      }
    })();
    const first = await Promise.race([reader.read(), sleep(5000).then(() => undefined)]);
    await feeding;
    expect(first?.value?.sampleRate).toBe(16_000);
    expect(first?.value?.channels).toBe(1);
    // rtc-node's frame has the core's shape, so it converts without copying.
    const frame = first!.value!;
    const core = new AudioFrame(frame.data, frame.sampleRate, frame.channels, frame.samplesPerChannel);
    expect(core.durationMs).toBeGreaterThan(0);
    await reader.cancel();
    await track.close();
    await source.close();
  });

  it('maps participant kinds, SIP included', async () => {
    const rtc = await loadRtcNode();
    expect(participantKindOf(rtc, rtc.ParticipantKind.SIP)).toBe('sip');
    expect(participantKindOf(rtc, rtc.ParticipantKind.STANDARD)).toBe('standard');
    expect(participantKindOf(rtc, rtc.ParticipantKind.AGENT)).toBe('agent');
    expect(participantKindOf(rtc, 99)).toBe('unknown');
  });
});

/** What room I/O relies on from a sink; run against rtc-node's AudioSource and the tests' fake alike. */
async function checkSinkContract(sink: AudioSink): Promise<void> {
  // Captured audio is queued and drains at real speed.
  for (let i = 0; i < 10; i++) await sink.captureFrame(agentFrame(20, 24_000));
  expect(sink.queuedDurationMs).toBeGreaterThan(150);
  expect(sink.queuedDurationMs).toBeLessThanOrEqual(200);
  await sleep(100);
  expect(sink.queuedDurationMs).toBeLessThanOrEqual(120);
  // A full queue holds the caller back: 600 ms into a 200 ms queue takes at least ~400 ms.
  const t0 = performance.now();
  for (let i = 0; i < 30; i++) await sink.captureFrame(agentFrame(20, 24_000));
  expect(performance.now() - t0).toBeGreaterThanOrEqual(300);
  // Clearing empties the queue at once and releases a playout wait.
  sink.clearQueue();
  expect(sink.queuedDurationMs).toBe(0);
  const t1 = performance.now();
  await sink.waitForPlayout();
  expect(performance.now() - t1).toBeLessThan(50);
  await sink.close();
}

describe('the fake sink behaves like rtc-node AudioSource', () => {
  it('rtc-node AudioSource', async () => {
    const rtc = await loadRtcNode();
    await checkSinkContract(new RtcAudioSink(rtc, new rtc.AudioSource(24_000, 1, 200)));
  });

  it('FakeAudioSink', async () => {
    await checkSinkContract(new FakeAudioSink(realClock(), 24_000, 1, 200));
  });
});
