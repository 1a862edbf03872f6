// rtc-node's own classes, where they work without a server: frames, AudioSource and its queue, a
// local track read back through AudioStream (resampled). The process keeps running until dispose().
import { AudioFrame, realClock, silentLogger } from '@voxwire/agents';
import { agentFrame } from '@voxwire/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { RoomAudioOutput } from './room-audio-output.js';
import type { AudioSink } from './room-connection.js';
import {
  disposeRtcNode,
  incomingByteStream,
  loadRtcNode,
  participantKindOf,
  RtcAudioSink,
} from './rtc-room.js';
import { FakeAudioSink, FakeByteStream, FakeRoom, participant } from '../testing/fake-room.js';
import type { IncomingByteStream } from './room-connection.js';
import { PreConnectAudioReceiver } from './pre-connect-audio.js';
import { PRE_CONNECT_AUDIO_TOPIC } from './pre-connect-format.js';
import { frameToBytes } from '@voxwire/agents/provider-utils';
import { voicedFrame } from '@voxwire/testing';

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

/** A byte stream as rtc-node hands it to a handler: its real reader over chunks the test pushes. */
async function rtcByteStream(options: { mimeType?: string; attributes?: Record<string, string> }) {
  const rtc = await loadRtcNode();
  let controller!: ReadableStreamDefaultController<{ content: Uint8Array }>;
  const readable = new ReadableStream<{ content: Uint8Array }>({
    start: (c) => {
      controller = c;
    },
  });
  const info = {
    streamId: 'stream-1',
    mimeType: options.mimeType ?? '',
    topic: PRE_CONNECT_AUDIO_TOPIC,
    timestamp: 0,
    attributes: options.attributes ?? {},
    name: 'preconnect-buffer',
  };
  // biome-ignore lint/suspicious/noExplicitAny: the chunk type is rtc-node's generated protobuf class.
  const reader = new rtc.ByteStreamReader(info, readable as any);
  return {
    stream: incomingByteStream(reader, 'alice'),
    push: (bytes: Uint8Array) => controller.enqueue({ content: bytes }),
    end: () => controller.close(),
  };
}

interface ByteStreamUnderTest {
  stream: IncomingByteStream;
  push(bytes: Uint8Array): void | Promise<void>;
  end(): void;
}

/** What the room I/O relies on from a byte stream, checked on rtc-node's reader and on the fake. */
async function byteStreamContract(make: () => Promise<ByteStreamUnderTest>) {
  const whole = await make();
  expect(whole.stream.topic).toBe(PRE_CONNECT_AUDIO_TOPIC);
  expect(whole.stream.senderIdentity).toBe('alice');
  expect(whole.stream.attributes).toEqual({ trackId: 'TR_a' });
  await whole.push(new Uint8Array([1, 2]));
  await whole.push(new Uint8Array([3]));
  whole.end();
  const got: number[] = [];
  for await (const chunk of whole.stream) got.push(...chunk);
  expect(got).toEqual([1, 2, 3]);

  // Cancelling ends an iteration waiting for the next chunk, and may be repeated.
  const cut = await make();
  await cut.push(new Uint8Array([9]));
  const seen: number[] = [];
  const reading = (async () => {
    for await (const chunk of cut.stream) seen.push(...chunk);
  })();
  await sleep(10);
  cut.stream.cancel();
  cut.stream.cancel();
  await reading;
  expect(seen).toEqual([9]);
}

describe('byte streams: rtc-node reader and the fake agree', () => {
  it('rtc-node ByteStreamReader', async () => {
    await byteStreamContract(() => rtcByteStream({ attributes: { trackId: 'TR_a' } }));
  });

  it('FakeByteStream', async () => {
    await byteStreamContract(async () => {
      const stream = new FakeByteStream(PRE_CONNECT_AUDIO_TOPIC, 'alice', {
        attributes: { trackId: 'TR_a' },
      });
      return { stream, push: (b) => stream.push(b), end: () => stream.end() };
    });
  });

  it('a pre-connect buffer read through rtc-node reader reaches the receiver whole', async () => {
    const clock = realClock();
    const room = new FakeRoom(clock);
    room.join(participant('alice'));
    const receiver = new PreConnectAudioReceiver(room, {
      clock,
      logger: silentLogger,
      sampleRate: 16_000,
      channels: 1,
      timeoutMs: 2000,
      maxDurationMs: 10_000,
    });
    receiver.start();
    const { stream, push, end } = await rtcByteStream({
      attributes: { trackId: 'TR_a', sampleRate: '24000', channels: '1' },
    });
    room.byteStreams.deliver(stream);
    for (let i = 0; i < 25; i++) push(frameToBytes(voicedFrame(0, 20, 24_000)));
    end();
    const frames = await receiver.take('TR_a', 'alice', {
      expected: true,
      signal: new AbortController().signal,
    });
    // 500 ms at 24 kHz, resampled to the session's 16 kHz.
    expect(frames.reduce((n, f) => n + f.durationMs, 0)).toBeCloseTo(500, 0);
    expect(frames.every((f) => f.sampleRate === 16_000)).toBe(true);
    receiver.close();
  });
});
