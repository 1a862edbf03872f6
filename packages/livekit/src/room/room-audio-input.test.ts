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
});
