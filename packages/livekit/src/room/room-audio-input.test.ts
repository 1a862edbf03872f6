import { type AudioFrame, VirtualClock } from '@voxwire/agents';
import { voicedFrame } from '@voxwire/testing';
import { describe, expect, it } from 'vitest';
import { FakeRoom, participant } from '../testing/fake-room.js';
import { RoomAudioInput } from './room-audio-input.js';

function setup() {
  const clock = new VirtualClock({ autoAdvance: false });
  const room = new FakeRoom(clock);
  room.join(participant('alice'));
  const controller = new AbortController();
  const input = new RoomAudioInput(room, {
    sampleRate: 24_000,
    channels: 1,
    clock,
    signal: controller.signal,
    silenceAfterInputLossMs: 1000,
  });
  const got: Array<{ atMs: number; silent: boolean }> = [];
  const reading = (async () => {
    for await (const frame of input as AsyncIterable<AudioFrame>) {
      got.push({ atMs: clock.now(), silent: frame.data.every((v) => v === 0) });
    }
  })();
  const tick = () => new Promise((r) => setImmediate(r));
  return { clock, room, input, got, controller, reading, tick };
}

describe('RoomAudioInput', () => {
  it('sends nothing before the microphone is heard, then the track, then silence for a while after a mute', async () => {
    const { clock, room, input, got, controller, reading, tick } = setup();
    for (let i = 0; i < 50; i++) await clock.advance(20);
    expect(got).toEqual([]);

    const mic = room.publishMicrophone('alice', 'TR_a');
    input.setTrack('TR_a');
    for (let i = 0; i < 5; i++) await mic.send(voicedFrame(0, 20, 24_000));
    for (let i = 0; i < 10; i++) await tick();
    expect(got.map((f) => f.silent)).toEqual([false, false, false, false, false]);

    input.setMuted(true);
    const mutedAt = clock.now();
    for (let i = 0; i < 100; i++) {
      await clock.advance(20);
      await tick();
    }
    const silence = got.filter((f) => f.silent);
    // 1000 ms of silence at real pace, then nothing.
    expect(silence).toHaveLength(50);
    expect(silence.at(-1)!.atMs - mutedAt).toBeLessThanOrEqual(1000);

    input.setMuted(false);
    await mic.send(voicedFrame(0, 20, 24_000));
    for (let i = 0; i < 10; i++) await tick();
    expect(got.at(-1)!.silent).toBe(false);
    controller.abort();
    input.close();
    await clock.advance(20);
    await reading;
  });

  it('plays the audio from before a track ahead of its live frames, once per track', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const room = new FakeRoom(clock);
    room.join(participant('alice'));
    const controller = new AbortController();
    const asked: string[] = [];
    let release!: (frames: AudioFrame[]) => void;
    const input = new RoomAudioInput(room, {
      sampleRate: 24_000,
      channels: 1,
      clock,
      signal: controller.signal,
      beforeTrack: (trackSid) => {
        asked.push(trackSid);
        return new Promise((resolve) => {
          release = resolve;
        });
      },
    });
    const codes: number[] = [];
    const reading = (async () => {
      for await (const frame of input as AsyncIterable<AudioFrame>) codes.push(frame.data[0]!);
    })();
    const tick = () => new Promise((r) => setImmediate(r));
    const mic = room.publishMicrophone('alice', 'TR_a');
    input.setTrack('TR_a');
    // Live frames arrive while the pre-connect audio is awaited: they wait in the track's stream.
    for (let i = 0; i < 3; i++) await mic.send(voicedFrame(0, 20, 24_000));
    for (let i = 0; i < 5; i++) await tick();
    expect(codes).toEqual([]);
    release([voicedFrame(2, 20, 24_000), voicedFrame(2, 20, 24_000)]);
    for (let i = 0; i < 10; i++) await tick();
    const before = voicedFrame(2, 20, 24_000).data[0]!;
    const live = voicedFrame(0, 20, 24_000).data[0]!;
    expect(codes).toEqual([before, before, live, live, live]);
    expect(input.stats.preConnectFrames).toBe(2);
    // The same track again (re-subscribed) is not asked twice.
    input.setTrack(undefined);
    input.setTrack('TR_a');
    for (let i = 0; i < 5; i++) await tick();
    expect(asked).toEqual(['TR_a']);
    controller.abort();
    input.close();
    await clock.advance(20);
    await reading;
  });

  it('stops waiting for the audio from before a track when the track is replaced', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const room = new FakeRoom(clock);
    room.join(participant('alice'));
    const controller = new AbortController();
    const aborted: string[] = [];
    const input = new RoomAudioInput(room, {
      sampleRate: 24_000,
      channels: 1,
      clock,
      signal: controller.signal,
      beforeTrack: (trackSid, signal) =>
        new Promise((resolve) => {
          if (trackSid === 'TR_b') resolve([]);
          signal.addEventListener('abort', () => aborted.push(trackSid));
        }),
    });
    const codes: number[] = [];
    const reading = (async () => {
      for await (const frame of input as AsyncIterable<AudioFrame>) codes.push(frame.data[0]!);
    })();
    const tick = () => new Promise((r) => setImmediate(r));
    room.publishMicrophone('alice', 'TR_a');
    input.setTrack('TR_a');
    for (let i = 0; i < 5; i++) await tick();
    const b = room.publishMicrophone('alice', 'TR_b');
    input.setTrack('TR_b');
    await b.send(voicedFrame(1, 20, 24_000));
    for (let i = 0; i < 10; i++) await tick();
    expect(aborted).toEqual(['TR_a']);
    expect(codes).toEqual([voicedFrame(1, 20, 24_000).data[0]]);
    controller.abort();
    input.close();
    await clock.advance(20);
    await reading;
  });
});
