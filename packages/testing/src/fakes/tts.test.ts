import { VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { FakeTTS } from './tts.js';

const stream = (tts: FakeTTS, text: string, signal?: AbortSignal) => {
  const s = tts.stream(signal ? { signal } : {});
  s.pushText(text);
  s.endInput();
  return s;
};

describe('FakeTTS stream reading', () => {
  it('answers calls made before the last one settled in order, with the frames a sequential reader gets', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock, msPerChar: 20, frameMs: 20, ttfbMs: 100 });
    const sequential: number[] = [];
    for await (const chunk of stream(tts, 'abcdefghij')) sequential.push(chunk.frame.durationMs);
    const it = stream(tts, 'abcdefghij')[Symbol.asyncIterator]();
    const results = await Promise.all(Array.from({ length: sequential.length + 2 }, () => it.next()));
    expect(results.filter((r) => !r.done).map((r) => r.value!.frame.durationMs)).toEqual(sequential);
    expect(results.slice(sequential.length).every((r) => r.done)).toBe(true);
    expect(sequential.reduce((a, b) => a + b, 0)).toBe(200);
    expect(tts.streams.size).toBe(0);
  });

  it('ends when closed in the middle of a synthesis delay, and lets go of the stream', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock, ttfbMs: 500 });
    const s = stream(tts, 'hello there');
    const it = s[Symbol.asyncIterator]();
    const first = it.next();
    await clock.sleep(100);
    expect(tts.streams.size).toBe(1);
    await s.close();
    expect(await first).toEqual({ done: true, value: undefined });
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(tts.streams.size).toBe(0);
  });

  it('ends at an abort, between frames as during a delay', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock, ttfbMs: 50 });
    const controller = new AbortController();
    const it = stream(tts, 'a long enough text to need blocks', controller.signal)[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    controller.abort();
    expect((await it.next()).done).toBe(true);
    expect(tts.streams.size).toBe(0);
  });

  it('fails a stream dropped by an outage with a connection error, then answers done', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock, ttfbMs: 50 });
    const it = stream(tts, 'a long enough text to need blocks')[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    tts.outage(1000);
    await expect(it.next()).rejects.toThrow('TTS connection lost');
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(tts.streams.size).toBe(0);
  });

  it('lets return() end a read that never started, and one waiting for text', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock });
    const unread = tts.stream({})[Symbol.asyncIterator]();
    expect(await unread.return!()).toEqual({ done: true, value: undefined });
    expect(await unread.next()).toEqual({ done: true, value: undefined });

    const waiting = tts.stream({});
    const it = waiting[Symbol.asyncIterator]();
    const pending = it.next();
    await clock.sleep(10);
    const returned = it.return!();
    // As a generator's would, the return waits for the read in progress, which the end of input settles.
    waiting.endInput();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(await returned).toEqual({ done: true, value: undefined });
    expect(tts.streams.size).toBe(0);
  });
});
