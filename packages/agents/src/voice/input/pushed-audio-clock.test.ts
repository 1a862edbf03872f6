import { describe, expect, it } from 'vitest';
import { PushedAudioClock } from './pushed-audio-clock.js';

describe('PushedAudioClock', () => {
  it('dates a position in the audio by when the push carrying it arrived', () => {
    const clock = new PushedAudioClock();
    // 20 ms frames pushed at 1000, 1020, 1040 ms (audio 0..60 ms).
    clock.pushed(20, 1000);
    clock.pushed(20, 1020);
    clock.pushed(20, 1040);
    expect(clock.timeOf(60)).toBe(1040);
    expect(clock.timeOf(40)).toBe(1020);
    // 10 ms into the third frame: 10 ms of audio after it in that push.
    expect(clock.timeOf(50)).toBe(1030);
    expect(clock.timeOf(61)).toBeUndefined();
    expect(clock.timeOf(Number.NaN)).toBeUndefined();
  });

  it('forgets old pushes beyond its capacity, and starts over on reset', () => {
    const clock = new PushedAudioClock(2);
    clock.pushed(20, 0);
    clock.pushed(20, 20);
    clock.pushed(20, 40);
    expect(clock.timeOf(10)).toBeUndefined();
    expect(clock.timeOf(60)).toBe(40);
    clock.reset();
    expect(clock.timeOf(20)).toBeUndefined();
    clock.pushed(20, 500);
    expect(clock.timeOf(20)).toBe(500);
  });

  it('keeps the real arrival times when frames come in bursts', () => {
    const clock = new PushedAudioClock();
    // A late burst: three frames at once at 2000 ms.
    clock.pushed(20, 1900);
    clock.pushed(20, 2000);
    clock.pushed(20, 2000);
    clock.pushed(20, 2000);
    expect(clock.timeOf(20)).toBe(1900);
    expect(clock.timeOf(40)).toBe(2000);
    expect(clock.timeOf(80)).toBe(2000);
  });
});
