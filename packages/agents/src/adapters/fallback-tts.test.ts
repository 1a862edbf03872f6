import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import {
  AllProvidersFailedError,
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  InvalidAudioError,
} from '../errors.js';
import type { SynthesizedAudio, TTS, TTSStream } from '../providers/tts.js';
import { Channel } from '../stream/channel.js';
import { VirtualClock } from '../time/virtual-clock.js';
import type { AvailabilityChangedEvent } from './fallback-core.js';
import { TTSFallbackAdapter } from './fallback-tts.js';
import { SentenceTokenizer } from './sentence-tokenizer.js';

const audio = (segmentId: string, final: boolean, text: string): SynthesizedAudio => ({
  frame: AudioFrame.silence(24_000, 1, 240),
  segmentId,
  final,
  text,
});

/** A streaming TTS stream the test drives; it records the calls it received. */
class ControlledStream implements TTSStream {
  readonly chunks = new Channel<SynthesizedAudio>({ capacity: 64, overflow: 'block' });
  readonly log: string[] = [];
  closed = false;
  constructor(readonly signal: AbortSignal | undefined) {
    signal?.addEventListener('abort', () => this.chunks.close(), { once: true });
  }
  pushText(text: string): void {
    this.log.push(`text:${text}`);
  }
  flush(): void {
    this.log.push('flush');
  }
  endInput(): void {
    this.log.push('end');
  }
  async close(): Promise<void> {
    this.closed = true;
    this.chunks.close();
  }
  [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio> {
    return this.chunks[Symbol.asyncIterator]();
  }
}

type SynthMode = 'ok' | 'fail' | 'fail-after-first';

class ControlledTTS implements TTS {
  readonly sampleRate = 24_000;
  readonly numChannels = 1;
  readonly capabilities: { streaming: boolean; alignedTranscript?: boolean } = { streaming: true };
  readonly streams: ControlledStream[] = [];
  synthMode: SynthMode = 'ok';
  synthCalls = 0;
  closed = false;
  constructor(
    readonly label: string,
    private readonly clock: VirtualClock,
  ) {}
  stream(options?: { signal?: AbortSignal }): TTSStream {
    const stream = new ControlledStream(options?.signal);
    this.streams.push(stream);
    return stream;
  }
  async *synthesize(text: string, options?: { signal?: AbortSignal }): AsyncGenerator<SynthesizedAudio> {
    this.synthCalls++;
    await this.clock.sleep(50, options?.signal);
    if (this.synthMode === 'fail') throw new APIStatusError(`${this.label} down`, { statusCode: 503 });
    yield audio('x', false, `${this.label}:${text}#0`);
    if (this.synthMode === 'fail-after-first') throw new APIConnectionError(`${this.label} broke`);
    yield audio('x', true, `${this.label}:${text}#1`);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function setup(options: { attemptTimeoutMs?: number } = {}) {
  const clock = new VirtualClock();
  const a = new ControlledTTS('a', clock);
  const b = new ControlledTTS('b', clock);
  const adapter = new TTSFallbackAdapter([a, b], { clock, retryIntervalMs: 60_000, ...options });
  const changes: AvailabilityChangedEvent[] = [];
  const changedAt: number[] = [];
  adapter.on('availability_changed', (e) => {
    changes.push(e);
    changedAt.push(clock.now());
  });
  return { clock, a, b, adapter, changes, changedAt };
}

function consume(stream: AsyncIterable<SynthesizedAudio>): { out: SynthesizedAudio[]; done: Promise<void> } {
  const out: SynthesizedAudio[] = [];
  const done = (async () => {
    for await (const chunk of stream) out.push(chunk);
  })();
  return { out, done };
}

const tick = (clock: VirtualClock): Promise<void> => clock.sleep(1);
const summary = (chunks: SynthesizedAudio[]) => chunks.map((c) => [c.text ?? '', c.final]);

describe('TTSFallbackAdapter synthesize', () => {
  it('moves on before any audio, surfaces the error after some', async () => {
    const { a, b, adapter, changes } = setup();
    a.synthMode = 'fail';
    const first = consume(adapter.synthesize('Hi'));
    await first.done;
    expect(summary(first.out)).toEqual([
      ['b:Hi#0', false],
      ['b:Hi#1', true],
    ]);
    expect(changes.map((c) => [c.provider, c.available])).toEqual([['a', false]]);

    b.synthMode = 'fail-after-first';
    const second = consume(adapter.synthesize('Again'));
    await expect(second.done).rejects.toThrow('b broke');
    expect(summary(second.out)).toEqual([['b:Again#0', false]]);
    expect(a.synthCalls).toBe(1);
    await adapter.close();
  });

  it('throws AllProvidersFailedError when every provider fails', async () => {
    const { a, b, adapter } = setup();
    a.synthMode = 'fail';
    b.synthMode = 'fail';
    const { done } = consume(adapter.synthesize('Hi'));
    const failure = await done.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AllProvidersFailedError);
    expect((failure as Error).message).toBe('All TTS providers failed: a down; b down');
    await adapter.close();
  });

  it('requires one channel count and advertises only shared capabilities', () => {
    const clock = new VirtualClock();
    const stereo = Object.assign(new ControlledTTS('stereo', clock), { numChannels: 2 });
    expect(() => new TTSFallbackAdapter([new ControlledTTS('a', clock), stereo], { clock })).toThrow(
      InvalidAudioError,
    );
    const aligned = Object.assign(new ControlledTTS('aligned', clock), {
      capabilities: { streaming: true, alignedTranscript: true },
    });
    const adapter = new TTSFallbackAdapter([aligned, new ControlledTTS('plain', clock)], { clock });
    expect(adapter.capabilities).toEqual({ streaming: true, alignedTranscript: false });
    expect(adapter).toMatchObject({
      sampleRate: 24_000,
      numChannels: 1,
      label: 'FallbackAdapter(aligned, plain)',
    });
  });

  it('resamples providers with a lower rate to the highest one, keeping text and final flags', async () => {
    const clock = new VirtualClock();
    const low = new ControlledTTS('low', clock);
    const high = Object.assign(new ControlledTTS('high', clock), { sampleRate: 48_000 });
    const adapter = new TTSFallbackAdapter([low, high], { clock });
    expect(adapter.sampleRate).toBe(48_000);
    const check = (out: SynthesizedAudio[], text: string): void => {
      expect(out.every((c) => c.frame.sampleRate === 48_000)).toBe(true);
      expect(out.reduce((n, c) => n + c.frame.samplesPerChannel, 0)).toBe(960);
      expect(out.map((c) => c.final)).toEqual(out.map((_, i) => i === out.length - 1));
      expect(out.map((c) => c.text ?? '').join('')).toBe(text);
    };
    const oneShot = consume(adapter.synthesize('Hi'));
    await oneShot.done;
    check(oneShot.out, 'low:Hi#0low:Hi#1');

    const stream = adapter.stream();
    const live = consume(stream);
    stream.pushText('Hi');
    stream.endInput();
    low.streams[0]!.chunks.trySend(audio('a1', false, 'H'));
    low.streams[0]!.chunks.trySend(audio('a1', true, 'i'));
    low.streams[0]!.chunks.close();
    await live.done;
    check(live.out, 'Hi');
    await adapter.close();
  });
});

describe('TTSFallbackAdapter streams', () => {
  it('replays the text to the next provider when the first fails before any audio', async () => {
    const { clock, a, b, adapter, changes } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('Hello ');
    stream.pushText('world.');
    stream.flush();
    stream.pushText('More');
    await tick(clock);
    const error = new APIConnectionError('a refused');
    a.streams[0]!.chunks.fail(error);
    await tick(clock);
    expect(a.streams[0]!.closed).toBe(true);
    expect(changes).toEqual([{ provider: 'a', index: 0, available: false, error }]);
    const replay = b.streams[0]!;
    expect(replay.log).toEqual(['text:Hello world.', 'flush', 'text:More']);
    stream.endInput();
    expect(replay.log.slice(3)).toEqual(['flush', 'end']);
    replay.chunks.trySend(audio('b1', false, 'Hello'));
    replay.chunks.trySend(audio('b1', true, 'world.'));
    replay.chunks.trySend(audio('b2', true, 'More'));
    replay.chunks.close();
    await done;
    expect(summary(out)).toEqual([
      ['Hello', false],
      ['world.', true],
      ['More', true],
    ]);
    // The adapter's own segment ids, not the provider's.
    const ids = out.map((c) => c.segmentId);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(ids).not.toContain('b1');
    await adapter.close();
  });

  it('never repeats part of a segment: a failure mid-segment surfaces the error', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('One long segment.');
    stream.endInput();
    a.streams[0]!.chunks.trySend(audio('a1', false, 'One'));
    await tick(clock);
    const error = new APIConnectionError('a dropped');
    a.streams[0]!.chunks.fail(error);
    await expect(done).rejects.toBe(error);
    expect(summary(out)).toEqual([['One', false]]);
    expect(b.streams).toHaveLength(0);
    await adapter.close();
  });

  it('switches at a segment boundary and replays only the unfinished segments', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('First.');
    stream.flush();
    stream.pushText('Second.');
    stream.flush();
    a.streams[0]!.chunks.trySend(audio('a1', true, 'First.'));
    await tick(clock);
    a.streams[0]!.chunks.fail(new APIConnectionError('a dropped'));
    await tick(clock);
    expect(b.streams[0]!.log).toEqual(['text:Second.', 'flush']);
    stream.endInput();
    b.streams[0]!.chunks.trySend(audio('b1', true, 'Second.'));
    b.streams[0]!.chunks.close();
    await done;
    expect(summary(out)).toEqual([
      ['First.', true],
      ['Second.', true],
    ]);
    expect(out[0]!.segmentId).not.toBe(out[1]!.segmentId);
    await adapter.close();
  });

  it('times out a provider that owes audio, but never a slow consumer', async () => {
    const { clock, a, b, adapter, changes, changedAt } = setup({ attemptTimeoutMs: 1_000 });
    const stream = adapter.stream();
    const iterator = stream[Symbol.asyncIterator]();
    stream.pushText('Waiting for text is not a stall.');
    const firstChunk = iterator.next();
    await clock.sleep(5_000);
    expect(changes).toEqual([]);
    stream.flush();
    a.streams[0]!.chunks.trySend(audio('a1', false, 'Waiting'));
    a.streams[0]!.chunks.trySend(audio('a1', true, 'stall.'));
    expect((await firstChunk).value?.text).toBe('Waiting');
    // The consumer dawdles far longer than the timeout between reads: the provider is not to blame.
    await clock.sleep(5_000);
    expect((await iterator.next()).value?.text).toBe('stall.');
    expect(changes).toEqual([]);

    stream.pushText('Then a real stall.');
    stream.endInput();
    const startedAt = clock.now();
    const next = iterator.next();
    await clock.sleep(1_500);
    expect(changes.map((c) => [c.provider, c.error instanceof APITimeoutError])).toEqual([['a', true]]);
    expect(changedAt).toEqual([startedAt + 1_000]);
    expect(b.streams[0]!.log).toEqual(['text:Then a real stall.', 'flush', 'end']);
    b.streams[0]!.chunks.trySend(audio('b1', true, 'Then a real stall.'));
    b.streams[0]!.chunks.close();
    expect((await next).value).toMatchObject({ text: 'Then a real stall.', final: true });
    expect((await iterator.next()).done).toBe(true);
    await adapter.close();
  });

  it('treats a stream that ends before its input as dropped', async () => {
    const { clock, a, b, adapter, changes } = setup();
    const stream = adapter.stream();
    const { done } = consume(stream);
    stream.pushText('Hi there.');
    a.streams[0]!.chunks.close();
    await tick(clock);
    expect((changes[0]!.error as Error).message).toBe('a: stream ended before its input');
    expect(b.streams[0]!.log).toEqual(['text:Hi there.']);
    stream.endInput();
    b.streams[0]!.chunks.close();
    await done;
    await adapter.close();
  });

  it('closes segments a provider left without a final chunk when it ends cleanly', async () => {
    const { clock, a, adapter } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('Unterminated.');
    stream.endInput();
    a.streams[0]!.chunks.trySend(audio('a1', false, 'Unterminated.'));
    await tick(clock);
    a.streams[0]!.chunks.close();
    await done;
    expect(out.map((c) => [c.final, c.frame.samplesPerChannel])).toEqual([
      [false, 240],
      [true, 0],
    ]);
    await adapter.close();
  });

  it('fails with AllProvidersFailedError when no provider can start', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream();
    const { done } = consume(stream);
    stream.pushText('Hello.');
    stream.endInput();
    a.streams[0]!.chunks.fail(new APIConnectionError('a down'));
    await tick(clock);
    b.streams[0]!.chunks.fail(new APIConnectionError('b down'));
    const failure = await done.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AllProvidersFailedError);
    expect((failure as AllProvidersFailedError).errors).toHaveLength(2);
    await adapter.close();
  });

  it('close() ends the stream and releases the provider stream', async () => {
    const { a, adapter } = setup();
    const stream = adapter.stream();
    const { done } = consume(stream);
    stream.pushText('Hello.');
    await stream.close();
    await done;
    expect(a.streams[0]!.closed).toBe(true);
    expect(a.streams[0]!.signal?.aborted).toBe(true);
    await adapter.close();
  });

  it('streams through non-streaming providers by sentences, falling back between them', async () => {
    const clock = new VirtualClock();
    const a = Object.assign(new ControlledTTS('a', clock), { capabilities: { streaming: false } });
    const b = Object.assign(new ControlledTTS('b', clock), { capabilities: { streaming: false } });
    const adapter = new TTSFallbackAdapter([a, b], {
      clock,
      tokenizer: new SentenceTokenizer({ minSentenceLength: 0 }),
    });
    a.synthMode = 'fail';
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('One. Two.');
    stream.endInput();
    await done;
    expect(summary(out)).toEqual([
      ['b:One.#0', false],
      ['b:One.#1', false],
      ['b:Two.#0', false],
      ['b:Two.#1', true],
    ]);
    expect(a.streams).toHaveLength(0);
    await adapter.close();
    expect([a.closed, b.closed]).toEqual([true, true]);
  });
});
