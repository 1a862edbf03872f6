import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import { Channel } from '../../stream/channel.js';
import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type { StreamingTTS, SynthesizedAudio, TTSStream } from '../../providers/tts.js';
import { countArmedTimers } from '../../time/timer-count-test-helper.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { TtsStreamOpener } from './tts-stream.js';

/** A synthesizer whose audio the test hands over piece by piece. */
function rig() {
  const clock = new VirtualClock({ autoAdvance: false });
  const audio = new Channel<SynthesizedAudio>({ capacity: 16, overflow: 'block' });
  let closes = 0;
  let returns = 0;
  const inner: TTSStream = {
    pushText: () => {},
    flush: () => {},
    endInput: () => {},
    close: async () => {
      closes++;
      audio.close();
    },
    [Symbol.asyncIterator]: () => {
      const it = audio[Symbol.asyncIterator]();
      return {
        next: () => it.next(),
        return: async () => {
          returns++;
          return { done: true, value: undefined };
        },
      };
    },
  };
  const tts: StreamingTTS = {
    specificationVersion: SPECIFICATION_VERSION,
    kind: 'streaming',
    label: 'test-tts',
    sampleRate: 16_000,
    numChannels: 1,
    stream: () => inner,
    synthesize: () => inner,
  };
  const opener = new TtsStreamOpener(() => {}, { clock, firstAudioTimeoutMs: 1000, audioTimeoutMs: 500 });
  const stream = opener.open(tts, new AbortController().signal);
  const piece = (): SynthesizedAudio => ({ frame: AudioFrame.silence(16_000, 1, 320) });
  return { clock, audio, stream, piece, counts: () => ({ closes, returns }) };
}

describe('TtsStreamOpener streams', () => {
  it('answers next() calls made before the previous one settled in order', async () => {
    const { audio, stream, piece } = rig();
    const it = stream[Symbol.asyncIterator]();
    const first = it.next();
    const second = it.next();
    const a = piece();
    const b = piece();
    audio.trySend(a);
    audio.trySend(b);
    expect((await first).value).toBe(a);
    expect((await second).value).toBe(b);
    audio.close();
    expect((await it.next()).done).toBe(true);
  });

  it('fails a wait that outlives the deadline once all text is in, releases the synthesizer, and fails later waits too', async () => {
    const { clock, audio, stream, piece, counts } = rig();
    const it = stream[Symbol.asyncIterator]();
    audio.trySend(piece());
    await it.next();
    stream.endInput();
    const waiting = it.next();
    const outcome = waiting.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await clock.advance(499);
    await clock.advance(1);
    expect(await outcome).toBe('test-tts: no audio for 500 ms');
    expect(counts().closes).toBe(1);
    expect(counts().returns).toBe(1);
    await expect(it.next()).resolves.toMatchObject({ done: true });
  });

  it('ends a pending wait when the stream is closed, even if the synthesizer never answers', async () => {
    const { stream } = rig();
    const it = stream[Symbol.asyncIterator]();
    const waiting = it.next();
    await stream.close();
    await expect(waiting).resolves.toMatchObject({ done: true });
  });

  it('tells the synthesizer to stop when left early, and not when it ended by itself', async () => {
    const left = rig();
    const it = left.stream[Symbol.asyncIterator]();
    left.audio.trySend(left.piece());
    await it.next();
    await it.return?.();
    expect(left.counts().returns).toBe(1);

    const ended = rig();
    const all = ended.stream[Symbol.asyncIterator]();
    ended.audio.close();
    expect((await all.next()).done).toBe(true);
    await all.return?.();
    expect(ended.counts().returns).toBe(0);
  });
  it('times each wait from its own start while reusing one timer for pieces that come in time', async () => {
    const { clock, audio, stream, piece } = rig();
    const armed = countArmedTimers(clock);
    const it = stream[Symbol.asyncIterator]();
    stream.endInput();
    // A piece every 100 ms for 5 s: each comes well within the 500 ms gap allowed.
    for (let i = 0; i < 50; i++) {
      const next = it.next();
      await clock.advance(100);
      audio.trySend(piece());
      await expect(next).resolves.toMatchObject({ done: false });
    }
    expect(armed()).toBeLessThanOrEqual(15);
    // A gap that began after a long run of pieces is still allowed its full 500 ms.
    const waiting = it.next();
    const outcome = waiting.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await clock.advance(499);
    audio.trySend(piece());
    expect(await outcome).toBe('resolved');
    const last = it.next().then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await clock.advance(500);
    expect(await last).toBe('test-tts: no audio for 500 ms');
  });
});
