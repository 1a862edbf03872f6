import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import {
  AllProvidersFailedError,
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  InvalidAudioError,
} from '../errors.js';
import {
  type ProviderCallOptions,
  type ProviderProblem,
  SPECIFICATION_VERSION,
} from '../providers/common.js';
import type { BatchTTS, StreamingTTS, SynthesizedAudio, TTSStream } from '../providers/tts.js';
import { Channel } from '../stream/channel.js';
import { VirtualClock } from '../time/virtual-clock.js';
import type { AvailabilityChangedEvent } from './fallback-core.js';
import { TTSFallbackAdapter } from './fallback-tts.js';
import { SentenceTokenizer } from './sentence-tokenizer.js';

/** What each test frame says: chunks carry nothing but their frame. */
const labels = new WeakMap<AudioFrame, string>();

const audio = (label: string, sampleRate = 24_000): SynthesizedAudio => {
  const frame = AudioFrame.silence(sampleRate, 1, sampleRate / 100);
  labels.set(frame, label);
  return { frame };
};

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

/** Speaks a whole text as two 10 ms chunks, `<label>:<text>#<n>`, after 50 ms; fails on command. */
abstract class ControlledSynthesizer {
  readonly specificationVersion = SPECIFICATION_VERSION;
  sampleRate = 24_000;
  numChannels = 1;
  synthMode: SynthMode = 'ok';
  readonly synthCalls: Array<{ text: string; options: ProviderCallOptions | undefined }> = [];
  closed = false;
  constructor(
    readonly label: string,
    private readonly clock: VirtualClock,
  ) {}
  async *synthesize(text: string, options?: ProviderCallOptions): AsyncGenerator<SynthesizedAudio> {
    this.synthCalls.push({ text, options });
    await this.clock.sleep(50, options?.signal);
    if (this.synthMode === 'fail') throw new APIStatusError(`${this.label} down`, { statusCode: 503 });
    yield audio(`${this.label}:${text}#0`, this.sampleRate);
    if (this.synthMode === 'fail-after-first') throw new APIConnectionError(`${this.label} broke`);
    yield audio(`${this.label}:${text}#1`, this.sampleRate);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

class ControlledTTS extends ControlledSynthesizer implements StreamingTTS {
  readonly kind = 'streaming';
  readonly streams: ControlledStream[] = [];
  readonly streamOptions: Array<ProviderCallOptions | undefined> = [];
  stream(options?: ProviderCallOptions): TTSStream {
    const stream = new ControlledStream(options?.signal);
    this.streams.push(stream);
    this.streamOptions.push(options);
    return stream;
  }
}

class ControlledBatchTTS extends ControlledSynthesizer implements BatchTTS {
  readonly kind = 'batch';
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
const summary = (chunks: SynthesizedAudio[]): string[] =>
  chunks.map((c) => labels.get(c.frame) ?? '<unknown>');

describe('TTSFallbackAdapter synthesize', () => {
  it('moves on before any audio, surfaces the error after some', async () => {
    const { a, b, adapter, changes } = setup();
    a.synthMode = 'fail';
    const first = consume(adapter.synthesize('Hi'));
    await first.done;
    expect(summary(first.out)).toEqual(['b:Hi#0', 'b:Hi#1']);
    expect(changes.map((c) => [c.provider, c.available])).toEqual([['a', false]]);

    b.synthMode = 'fail-after-first';
    const second = consume(adapter.synthesize('Again'));
    await expect(second.done).rejects.toThrow('b broke');
    expect(summary(second.out)).toEqual(['b:Again#0']);
    expect(a.synthCalls).toHaveLength(1);
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

  it("passes the caller's problem channel to the provider that serves", async () => {
    const { a, b, adapter } = setup();
    a.synthMode = 'fail';
    const problems: ProviderProblem[] = [];
    const onProblem = (p: ProviderProblem): void => void problems.push(p);
    await consume(adapter.synthesize('Hi', { onProblem })).done;
    for (const provider of [a, b]) {
      expect(provider.synthCalls[0]!.options?.onProblem).toBe(onProblem);
      expect(provider.synthCalls[0]!.options?.signal).toBeInstanceOf(AbortSignal);
    }
    await adapter.close();
  });

  it('requires one channel count and streams over providers of either kind', () => {
    const clock = new VirtualClock();
    const stereo = Object.assign(new ControlledTTS('stereo', clock), { numChannels: 2 });
    expect(() => new TTSFallbackAdapter([new ControlledTTS('a', clock), stereo], { clock })).toThrow(
      InvalidAudioError,
    );
    const adapter = new TTSFallbackAdapter(
      [new ControlledBatchTTS('batch', clock), new ControlledTTS('live', clock)],
      { clock },
    );
    expect(adapter).toMatchObject({
      specificationVersion: 'v1',
      kind: 'streaming',
      sampleRate: 24_000,
      numChannels: 1,
      label: 'FallbackAdapter(batch, live)',
    });
  });

  it('resamples providers with a lower rate to the highest one, keeping every sample', async () => {
    const clock = new VirtualClock();
    const low = new ControlledTTS('low', clock);
    const high = Object.assign(new ControlledTTS('high', clock), { sampleRate: 48_000 });
    const adapter = new TTSFallbackAdapter([low, high], { clock });
    expect(adapter.sampleRate).toBe(48_000);
    // Two 10 ms chunks at 24 kHz are 20 ms at 48 kHz, the resampler's tail included.
    const check = (out: SynthesizedAudio[]): void => {
      expect(out.length).toBeGreaterThan(0);
      expect(out.every((c) => c.frame.sampleRate === 48_000)).toBe(true);
      expect(out.reduce((n, c) => n + c.frame.samplesPerChannel, 0)).toBe(960);
    };
    const oneShot = consume(adapter.synthesize('Hi'));
    await oneShot.done;
    check(oneShot.out);

    const stream = adapter.stream();
    const live = consume(stream);
    stream.pushText('Hi');
    stream.endInput();
    low.streams[0]!.chunks.trySend(audio('H'));
    low.streams[0]!.chunks.trySend(audio('i'));
    low.streams[0]!.chunks.close();
    await live.done;
    check(live.out);

    // Audio already at the adapter's rate passes through untouched.
    low.synthMode = 'fail';
    const direct = consume(adapter.synthesize('Yo'));
    await direct.done;
    expect(summary(direct.out)).toEqual(['high:Yo#0', 'high:Yo#1']);
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
    expect(a.streams[0]!.log).toEqual(['text:Hello ', 'text:world.', 'flush', 'text:More']);
    const error = new APIConnectionError('a refused');
    a.streams[0]!.chunks.fail(error);
    await tick(clock);
    expect(a.streams[0]!.closed).toBe(true);
    expect(changes).toEqual([{ provider: 'a', index: 0, available: false, error }]);
    // Everything pushed so far, at once, flushed since the caller had flushed.
    const replay = b.streams[0]!;
    expect(replay.log).toEqual(['text:Hello world.More', 'flush']);
    stream.pushText(' again.');
    stream.endInput();
    expect(replay.log.slice(2)).toEqual(['text: again.', 'end']);
    replay.chunks.trySend(audio('Hello'));
    replay.chunks.trySend(audio('world.'));
    replay.chunks.trySend(audio('More again.'));
    replay.chunks.close();
    await done;
    expect(summary(out)).toEqual(['Hello', 'world.', 'More again.']);
    await adapter.close();
  });

  it('replays everything pushed, across several providers, as long as no audio went out', async () => {
    const clock = new VirtualClock();
    const [a, b, c] = ['a', 'b', 'c'].map((label) => new ControlledTTS(label, clock)) as [
      ControlledTTS,
      ControlledTTS,
      ControlledTTS,
    ];
    const adapter = new TTSFallbackAdapter([a, b, c], { clock, retryIntervalMs: 60_000 });
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('One.');
    a.streams[0]!.chunks.fail(new APIConnectionError('a down'));
    await tick(clock);
    stream.pushText(' Two.');
    b.streams[0]!.chunks.fail(new APIConnectionError('b down'));
    await tick(clock);
    expect(b.streams[0]!.log).toEqual(['text:One.', 'text: Two.']);
    expect(c.streams[0]!.log).toEqual(['text:One. Two.']);
    stream.endInput();
    c.streams[0]!.chunks.trySend(audio('c:One. Two.'));
    c.streams[0]!.chunks.close();
    await done;
    expect(summary(out)).toEqual(['c:One. Two.']);
    await adapter.close();
  });

  it('never repeats audio: a failure after some audio surfaces the error', async () => {
    const { clock, a, b, adapter, changes } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('One long sentence.');
    stream.endInput();
    a.streams[0]!.chunks.trySend(audio('One'));
    await tick(clock);
    const error = new APIConnectionError('a dropped');
    a.streams[0]!.chunks.fail(error);
    await expect(done).rejects.toBe(error);
    expect(summary(out)).toEqual(['One']);
    expect(b.streams).toHaveLength(0);
    // The provider is still marked unavailable for the next request.
    expect(changes.map((c) => [c.provider, c.available])).toEqual([['a', false]]);
    await adapter.close();
  });

  it('surfaces the error even when the audio out belonged to an earlier flushed sentence', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('First.');
    stream.flush();
    stream.pushText('Second.');
    stream.flush();
    a.streams[0]!.chunks.trySend(audio('First.'));
    await tick(clock);
    const error = new APIConnectionError('a dropped');
    a.streams[0]!.chunks.fail(error);
    await expect(done).rejects.toBe(error);
    // Not half the reply in one voice and half in another.
    expect(b.streams).toHaveLength(0);
    expect(summary(out)).toEqual(['First.']);
    await adapter.close();
  });

  it('wraps a late failure that is not an APIError', async () => {
    const { clock, a, adapter } = setup();
    const stream = adapter.stream();
    const { done } = consume(stream);
    stream.pushText('Hi.');
    stream.endInput();
    a.streams[0]!.chunks.trySend(audio('Hi.'));
    await tick(clock);
    const bug = new TypeError('oops');
    a.streams[0]!.chunks.fail(bug);
    const error = await done.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'APIError', message: 'a: oops', retryable: false, cause: bug });
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
    a.streams[0]!.chunks.trySend(audio('Waiting'));
    a.streams[0]!.chunks.trySend(audio('stall.'));
    expect(summary([(await firstChunk).value!])).toEqual(['Waiting']);
    // The consumer dawdles far longer than the timeout between reads: the provider is not to blame.
    await clock.sleep(5_000);
    expect(summary([(await iterator.next()).value!])).toEqual(['stall.']);
    expect(changes).toEqual([]);

    // A real stall after audio went out fails the stream: its text cannot be replayed elsewhere.
    stream.pushText('Then a real stall.');
    stream.endInput();
    const startedAt = clock.now();
    const next = iterator.next().catch((e: unknown) => e);
    await clock.sleep(1_500);
    expect(changes.map((c) => [c.provider, c.error instanceof APITimeoutError])).toEqual([['a', true]]);
    expect(changedAt).toEqual([startedAt + 1_000]);
    expect(await next).toBeInstanceOf(APITimeoutError);
    expect(a.streams[0]!.signal?.aborted).toBe(true);
    expect(b.streams).toHaveLength(0);
    await adapter.close();
  });

  it('moves a stalled stream to the next provider when no audio went out yet', async () => {
    const { clock, a, b, adapter, changes, changedAt } = setup({ attemptTimeoutMs: 1_000 });
    const stream = adapter.stream();
    const iterator = stream[Symbol.asyncIterator]();
    stream.pushText('Stalled from the start.');
    stream.endInput();
    const first = iterator.next();
    await clock.sleep(1_500);
    expect(changes.map((c) => [c.provider, c.error instanceof APITimeoutError])).toEqual([['a', true]]);
    expect(changedAt).toEqual([1_000]);
    expect(a.streams[0]!.signal?.aborted).toBe(true);
    expect(b.streams[0]!.log).toEqual(['text:Stalled from the start.', 'end']);
    b.streams[0]!.chunks.trySend(audio('b:Stalled'));
    b.streams[0]!.chunks.close();
    expect(summary([(await first).value!])).toEqual(['b:Stalled']);
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

  it("ends with the provider's last audio, adding no marker of its own", async () => {
    const { clock, a, adapter } = setup();
    const stream = adapter.stream();
    const { out, done } = consume(stream);
    stream.pushText('Unterminated.');
    stream.endInput();
    a.streams[0]!.chunks.trySend(audio('Unterminated.'));
    await tick(clock);
    a.streams[0]!.chunks.close();
    await done;
    expect(out.map((c) => [labels.get(c.frame), c.frame.samplesPerChannel])).toEqual([
      ['Unterminated.', 240],
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

  it("opens every provider stream with the caller's problem channel", async () => {
    const { clock, a, b, adapter } = setup();
    const onProblem = (_p: ProviderProblem): void => {};
    const stream = adapter.stream({ onProblem });
    const { done } = consume(stream);
    stream.pushText('Hi.');
    a.streams[0]!.chunks.fail(new APIConnectionError('a down'));
    await tick(clock);
    expect(a.streamOptions[0]?.onProblem).toBe(onProblem);
    expect(b.streamOptions[0]?.onProblem).toBe(onProblem);
    await stream.close();
    await done;
    await adapter.close();
  });

  it('streams through non-streaming providers by sentences, falling back between them', async () => {
    const clock = new VirtualClock();
    const a = new ControlledBatchTTS('a', clock);
    const b = new ControlledBatchTTS('b', clock);
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
    expect(summary(out)).toEqual(['b:One.#0', 'b:One.#1', 'b:Two.#0', 'b:Two.#1']);
    expect(a.synthCalls.map((c) => c.text)).toContain('One.');
    await adapter.close();
    expect([a.closed, b.closed]).toEqual([true, true]);
  });
});
