import { type AudioFrame, silentLogger, VirtualClock } from '@voxwire/agents';
import { frameToBytes } from '@voxwire/agents/provider-utils';
import { voicedFrame } from '@voxwire/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeRoom, participant } from '../testing/fake-room.js';
import { type PreConnectAudioEvent, PreConnectAudioReceiver } from './pre-connect-audio.js';
import { PRE_CONNECT_AUDIO_TOPIC } from './pre-connect-format.js';
import { webSdkRecording } from '../testing/recordings.js';
import { warmOpusDecoder } from './opus-to-session-format.js';

// The decoder compiles its WebAssembly in real time, which a virtual clock would otherwise outrun.
beforeAll(() => warmOpusDecoder());

const RATE = 24_000;
const attributes = { trackId: 'TR_alice', sampleRate: String(RATE), channels: '1' };
const tick = () => new Promise((r) => setImmediate(r));

function setup(options: { timeoutMs?: number; maxDurationMs?: number } = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const room = new FakeRoom(clock);
  room.join(participant('alice'));
  const events: PreConnectAudioEvent[] = [];
  const receiver = new PreConnectAudioReceiver(room, {
    clock,
    logger: silentLogger,
    sampleRate: RATE,
    channels: 1,
    timeoutMs: options.timeoutMs ?? 3000,
    maxDurationMs: options.maxDurationMs ?? 10_000,
    onEvent: (e) => events.push(e),
  });
  return { clock, room, receiver, events };
}

/** `ms` of the user's voice (segment `code`) as raw PCM bytes, as the native SDKs send it. */
function voiceBytes(ms: number, code = 0): Uint8Array {
  return frameToBytes(voicedFrame(code, ms, RATE));
}

function totalMs(frames: AudioFrame[]): number {
  return frames.reduce((n, f) => n + f.durationMs, 0);
}

const signal = new AbortController().signal;

describe('PreConnectAudioReceiver', () => {
  it('keeps a buffer sent before it started (held by the room) for its track, in the session format, once', async () => {
    const { room, receiver, events } = setup();
    const stream = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    receiver.start();
    await stream.push(voiceBytes(500));
    await stream.push(voiceBytes(300, 1));
    stream.end();
    const frames = await receiver.take('TR_alice', 'alice', { expected: true, signal });
    expect(totalMs(frames)).toBeCloseTo(800, 5);
    expect(frames.every((f) => f.sampleRate === RATE && f.channels === 1)).toBe(true);
    expect(events).toEqual([
      {
        type: 'used',
        trackSid: 'TR_alice',
        participantIdentity: 'alice',
        durationMs: 800,
        droppedMs: 0,
        partial: false,
      },
    ]);
    expect(await receiver.take('TR_alice', 'alice', { expected: true, signal: AbortSignal.abort() })).toEqual(
      [],
    );
  });

  it('waits for an announced buffer that is still on its way', async () => {
    const { clock, room, receiver } = setup();
    receiver.start();
    let frames: AudioFrame[] | undefined;
    void receiver.take('TR_alice', 'alice', { expected: true, signal }).then((f) => {
      frames = f;
    });
    await clock.advance(500);
    const stream = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    await stream.push(voiceBytes(400));
    await tick();
    expect(frames).toBeUndefined();
    await clock.advance(500);
    stream.end();
    for (let i = 0; i < 5; i++) await tick();
    expect(totalMs(frames!)).toBeCloseTo(400, 5);
  });

  it('gives up on an announced buffer that never comes, with a timeout event', async () => {
    const { clock, receiver, events } = setup({ timeoutMs: 2000 });
    receiver.start();
    let frames: AudioFrame[] | undefined;
    void receiver.take('TR_alice', 'alice', { expected: true, signal }).then((f) => {
      frames = f;
    });
    await clock.advance(1999);
    expect(frames).toBeUndefined();
    await clock.advance(1);
    await tick();
    expect(frames).toEqual([]);
    expect(events).toMatchObject([
      { type: 'refused', error: { reason: 'timeout', name: 'PreConnectAudioError' } },
    ]);
  });

  it('does not wait for a track that announced no buffer', async () => {
    const { receiver, events } = setup();
    receiver.start();
    expect(await receiver.take('TR_alice', 'alice', { expected: false, signal })).toEqual([]);
    expect(events).toEqual([]);
  });

  it('plays what arrived when the stream is still coming at the timeout, or breaks off', async () => {
    const { clock, room, receiver, events } = setup({ timeoutMs: 1000 });
    receiver.start();
    const slow = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    await slow.push(voiceBytes(200));
    const taking = receiver.take('TR_alice', 'alice', { expected: true, signal });
    await clock.advance(1000);
    expect(totalMs(await taking)).toBeCloseTo(200, 5);
    expect(slow.cancelled).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'used', partial: true });

    room.publishMicrophone('alice', 'TR_two');
    const broken = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, {
      attributes: { ...attributes, trackId: 'TR_two' },
    });
    await broken.push(voiceBytes(100));
    broken.fail();
    for (let i = 0; i < 5; i++) await tick();
    expect(totalMs(await receiver.take('TR_two', 'alice', { expected: true, signal }))).toBeCloseTo(100, 5);
    expect(events.at(-1)).toMatchObject({ type: 'used', partial: true, durationMs: 100 });
  });

  it('keeps only the most recent audio beyond the limit', async () => {
    const { room, receiver, events } = setup({ maxDurationMs: 1000 });
    receiver.start();
    const stream = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    await stream.push(voiceBytes(1000, 0));
    await stream.push(voiceBytes(600, 1));
    stream.end();
    const frames = await receiver.take('TR_alice', 'alice', { expected: true, signal });
    expect(totalMs(frames)).toBeCloseTo(1000, 5);
    expect(events[0]).toMatchObject({ type: 'used', droppedMs: 600 });
    // The last 600 ms are the second segment's.
    expect(frames.at(-1)!.data[0]).toBe(voicedFrame(1, 20, RATE).data[0]);
    expect(frames[0]!.data[0]).toBe(voicedFrame(0, 20, RATE).data[0]);
  });

  it("refuses Safari's AAC recording with a typed event, and a buffer sent by someone else", async () => {
    const { room, receiver, events } = setup();
    receiver.start();
    const aac = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, {
      mimeType: 'video/mp4',
      attributes: { ...attributes, sampleRate: '48000' },
    });
    expect(aac.cancelled).toBe(true);
    expect(events).toMatchObject([
      { type: 'refused', error: { reason: 'unsupported_format', details: { mimeType: 'video/mp4' } } },
    ]);
    // The refusal answers the wait at once: nothing to play.
    expect(await receiver.take('TR_alice', 'alice', { expected: true, signal })).toEqual([]);

    // Someone else's buffer for alice's track is never played as hers.
    room.join(participant('mallory'));
    const forged = room.sendByteStream('mallory', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    await forged.push(voiceBytes(300));
    forged.end();
    for (let i = 0; i < 5; i++) await tick();
    expect(receiver.trackSids).toEqual(['TR_alice']);
    expect(await receiver.take('TR_alice', 'alice', { expected: false, signal })).toEqual([]);
  });

  it('frees a buffer nobody claims, and everything on close', async () => {
    const { clock, room, receiver } = setup();
    receiver.start();
    const stream = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    await stream.push(voiceBytes(100));
    stream.end();
    for (let i = 0; i < 5; i++) await tick();
    expect(receiver.trackSids).toEqual(['TR_alice']);
    await clock.advance(10_000);
    expect(receiver.trackSids).toEqual([]);
    const open = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    receiver.close();
    expect(open.cancelled).toBe(true);
    expect(receiver.trackSids).toEqual([]);
  });

  it("decodes the web SDK's recording (Opus in WebM), and refuses a corrupt one with decode_failed", async () => {
    const { room, receiver, events } = setup();
    receiver.start();
    const webm = webSdkRecording();
    const stream = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, {
      mimeType: 'audio/webm;codecs=opus',
      attributes: { ...attributes, sampleRate: '48000' },
    });
    for (let at = 0; at < webm.length; at += 500) await stream.push(webm.subarray(at, at + 500));
    stream.end();
    const frames = await receiver.take('TR_alice', 'alice', { expected: true, signal });
    expect(totalMs(frames)).toBeGreaterThan(580);
    expect(frames.every((f) => f.sampleRate === RATE && f.channels === 1)).toBe(true);
    expect(events).toMatchObject([{ type: 'used', partial: false }]);

    const corrupt = webm.slice();
    corrupt.fill(0x00, 200);
    const bad = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, {
      mimeType: 'audio/webm;codecs=opus',
      attributes: { ...attributes, trackId: 'TR_bad' },
    });
    await bad.push(corrupt);
    bad.end();
    expect(await receiver.take('TR_bad', 'alice', { expected: true, signal })).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'refused',
      error: { reason: 'decode_failed', details: { trackSid: 'TR_bad' } },
    });
  });
});
