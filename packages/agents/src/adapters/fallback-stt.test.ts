import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import { AllProvidersFailedError, APIConnectionError, APIStatusError } from '../errors.js';
import { type ProviderProblem, SPECIFICATION_VERSION } from '../providers/common.js';
import type {
  BatchSTT,
  SpeechAlternative,
  STTEvent,
  STTStream,
  StreamingSTT,
  STTStreamOptions,
} from '../providers/stt.js';
import type { VAD, VADEvent, VADStream } from '../providers/vad.js';
import { Channel } from '../stream/channel.js';
import { VirtualClock } from '../time/virtual-clock.js';
import type { AvailabilityChangedEvent } from './fallback-core.js';
import { STTFallbackAdapter } from './fallback-stt.js';

const frame = (): AudioFrame => AudioFrame.silence(16_000, 1, 160);
const final = (text: string): STTEvent => ({ type: 'final_transcript', alternatives: [{ text }] });
const OPTIONS: STTStreamOptions = { sampleRate: 16_000 };

/** A live stream the test drives: it emits, fails or ends on command and records what it was given. */
class ControlledStream implements STTStream {
  readonly events = new Channel<STTEvent>({ capacity: 64, overflow: 'block' });
  frames = 0;
  flushed = 0;
  ended = false;
  closed = false;
  constructor(
    readonly signal: AbortSignal | undefined,
    /** Ends iteration at the end of input, like a provider that reported everything it heard. */
    private readonly endsWithInput = false,
  ) {
    signal?.addEventListener('abort', () => this.events.close(), { once: true });
  }
  pushFrame(): void {
    this.frames++;
  }
  flush(): void {
    this.flushed++;
  }
  endInput(): void {
    this.ended = true;
    if (this.endsWithInput) this.events.close();
  }
  async close(): Promise<void> {
    this.closed = true;
    this.events.close();
  }
  [Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    return this.events[Symbol.asyncIterator]();
  }
}

class ControlledSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly streams: ControlledStream[] = [];
  readonly options: STTStreamOptions[] = [];
  /** Streams opened from now on end with their input. */
  endsWithInput = false;
  closed = false;
  constructor(
    readonly label: string,
    readonly inputSampleRates: readonly number[] = [16_000],
  ) {}
  stream(options: STTStreamOptions): STTStream {
    const stream = new ControlledStream(options.signal, this.endsWithInput);
    this.streams.push(stream);
    this.options.push(options);
    return stream;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A recognizer of finished utterances that answers after 100 ms, fails or hangs on command. */
class ControlledBatchSTT implements BatchSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly inputSampleRates = [16_000];
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  readonly calls: Array<{ at: number; frames: number; options: STTStreamOptions }> = [];
  closed = false;
  constructor(
    readonly label: string,
    private readonly clock: VirtualClock,
  ) {}
  async recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]> {
    this.calls.push({ at: this.clock.now(), frames: frames.length, options });
    await this.clock.sleep(this.mode === 'hang' ? 1e9 : 100, options.signal);
    if (this.mode === 'fail') throw new APIStatusError(`${this.label} down`, { statusCode: 503 });
    return [{ text: `${this.label} heard ${frames.length}` }];
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function setup(options: { retryIntervalMs?: number; attemptTimeoutMs?: number } = {}) {
  const clock = new VirtualClock();
  const a = new ControlledSTT('a');
  const b = new ControlledSTT('b');
  const adapter = new STTFallbackAdapter([a, b], { clock, retryIntervalMs: 60_000, ...options });
  const changes: Array<AvailabilityChangedEvent & { at: number }> = [];
  adapter.on('availability_changed', (e) => changes.push({ ...e, at: clock.now() }));
  return { clock, a, b, adapter, changes };
}

function consume(stream: STTStream): { events: string[]; done: Promise<void> } {
  const events: string[] = [];
  const done = (async () => {
    for await (const event of stream) {
      events.push(event.type === 'final_transcript' ? `final:${event.alternatives[0]?.text}` : event.type);
    }
  })();
  return { events, done };
}

const tick = (clock: VirtualClock): Promise<void> => clock.sleep(1);

describe('STTFallbackAdapter streams', () => {
  it('switches a live stream to the next provider and closes the interrupted utterance', async () => {
    const { clock, a, b, adapter, changes } = setup();
    const stream = adapter.stream(OPTIONS);
    const { events, done } = consume(stream);
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    const first = a.streams[0]!;
    first.events.trySend({ type: 'start_of_speech' });
    first.events.trySend({ type: 'interim_transcript', alternatives: [{ text: 'hel' }] });
    await tick(clock);
    const error = new APIConnectionError('socket closed');
    first.events.fail(error);
    await tick(clock);
    expect(first.closed).toBe(true);
    expect(b.streams).toHaveLength(1);
    expect(changes.map((c) => [c.provider, c.available, c.error])).toEqual([['a', false, error]]);
    stream.pushFrame(frame());
    stream.flush();
    expect([first.frames, b.streams[0]!.frames, b.streams[0]!.flushed]).toEqual([2, 1, 1]);
    const second = b.streams[0]!;
    second.events.trySend({ type: 'start_of_speech' });
    second.events.trySend(final('hello'));
    second.events.trySend({ type: 'end_of_speech' });
    stream.endInput();
    expect(second.ended).toBe(true);
    second.events.close();
    await done;
    expect(events).toEqual([
      'start_of_speech',
      'interim_transcript',
      'end_of_speech',
      'start_of_speech',
      'final:hello',
      'end_of_speech',
    ]);
    await adapter.close();
  });

  it('treats a stream that ends while audio still comes as a failure', async () => {
    const { clock, a, b, adapter, changes } = setup();
    const stream = adapter.stream(OPTIONS);
    const { done } = consume(stream);
    a.streams[0]!.events.close();
    await tick(clock);
    expect(b.streams).toHaveLength(1);
    expect(changes[0]!.error).toBeInstanceOf(APIConnectionError);
    expect((changes[0]!.error as Error).message).toBe('a: stream ended unexpectedly');
    stream.endInput();
    b.streams[0]!.events.close();
    await done;
    await adapter.close();
  });

  it('tells a stream opened after the end of input that the input has ended', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream(OPTIONS);
    const { done } = consume(stream);
    stream.endInput();
    a.streams[0]!.events.fail(new APIConnectionError());
    await tick(clock);
    expect(b.streams[0]!.ended).toBe(true);
    b.streams[0]!.events.close();
    await done;
    await adapter.close();
  });

  it('fails with AllProvidersFailedError when every provider failed in a row', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream(OPTIONS);
    const { events, done } = consume(stream);
    const errors = [new APIConnectionError('a gone'), new APIConnectionError('b gone')];
    a.streams[0]!.events.fail(errors[0]);
    await tick(clock);
    b.streams[0]!.events.fail(errors[1]);
    const failure = await done.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AllProvidersFailedError);
    expect((failure as AllProvidersFailedError).errors).toEqual(errors);
    expect(events).toEqual([]);
    await adapter.close();
  });

  it('forgets old failures once a provider makes progress', async () => {
    const { clock, a, b, adapter } = setup();
    const stream = adapter.stream(OPTIONS);
    const { events, done } = consume(stream);
    a.streams[0]!.events.fail(new APIConnectionError('a gone'));
    await tick(clock);
    b.streams[0]!.events.trySend(final('from b'));
    await tick(clock);
    b.streams[0]!.events.fail(new APIConnectionError('b gone'));
    await tick(clock);
    // a is unavailable but gets its last chance, rather than the stream failing.
    expect(a.streams).toHaveLength(2);
    a.streams[1]!.events.trySend(final('from a again'));
    stream.endInput();
    a.streams[1]!.events.close();
    await done;
    expect(events).toEqual(['final:from b', 'final:from a again']);
    await adapter.close();
  });

  it('close() closes the provider stream and ends iteration', async () => {
    const { a, adapter } = setup();
    const stream = adapter.stream(OPTIONS);
    const { done } = consume(stream);
    await stream.close();
    await done;
    expect(a.streams[0]!.closed).toBe(true);
    expect(a.streams[0]!.signal?.aborted).toBe(true);
    await adapter.close();
  });

  it('passes the stream options to every provider it opens, each with its own signal', async () => {
    const { clock, a, b, adapter } = setup();
    const problems: ProviderProblem[] = [];
    const onProblem = (p: ProviderProblem): void => void problems.push(p);
    const stream = adapter.stream({ sampleRate: 16_000, language: 'de', onProblem });
    const { done } = consume(stream);
    a.streams[0]!.events.fail(new APIConnectionError('a gone'));
    await tick(clock);
    for (const provider of [a, b]) {
      expect(provider.options[0]).toMatchObject({ sampleRate: 16_000, language: 'de', onProblem });
    }
    expect(a.options[0]!.signal).not.toBe(b.options[0]!.signal);
    expect(a.options[0]!.signal?.aborted).toBe(true);
    expect(b.options[0]!.signal?.aborted).toBe(false);
    stream.endInput();
    b.streams[0]!.events.close();
    await done;
    await adapter.close();
  });

  it("accepts the sample rates every provider accepts, in the first one's order, and needs one", async () => {
    const clock = new VirtualClock();
    const adapter = new STTFallbackAdapter(
      [new ControlledSTT('a', [48_000, 16_000, 8_000]), new ControlledSTT('b', [8_000, 16_000])],
      { clock },
    );
    expect(adapter.kind).toBe('streaming');
    expect(adapter.specificationVersion).toBe('v1');
    expect(adapter.inputSampleRates).toEqual([16_000, 8_000]);
    expect(
      () => new STTFallbackAdapter([new ControlledSTT('a', [48_000]), new ControlledSTT('b', [16_000])]),
    ).toThrow(/share no input sample rate/);
    await adapter.close();
  });

  it('wraps providers that cannot stream with a VAD-driven adapter', async () => {
    const clock = new VirtualClock();
    const batch = new ControlledBatchSTT('batch', clock);
    expect(() => new STTFallbackAdapter([batch], { clock })).toThrow(TypeError);
    const only = new STTFallbackAdapter([batch], { clock, vad: new OneUtteranceVAD() });
    expect(only.kind).toBe('streaming');
    const stream = only.stream({ sampleRate: 16_000, language: 'en' });
    const { events, done } = consume(stream);
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    stream.endInput();
    await done;
    expect(events).toEqual(['start_of_speech', 'final:batch heard 2', 'end_of_speech']);
    expect(batch.calls[0]!.options).toMatchObject({ sampleRate: 16_000, language: 'en' });
    await only.close();
    expect(batch.closed).toBe(true);
  });
});

/** Reports speech on the first frame and its end on the second. */
class OneUtteranceVAD implements VAD {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'vad';
  stream(): VADStream {
    const events = new Channel<VADEvent>({ capacity: 8, overflow: 'drop-oldest' });
    const frames: AudioFrame[] = [];
    return {
      pushFrame(f) {
        frames.push(f);
        if (frames.length === 1) {
          events.trySend({ type: 'start_of_speech', timestampMs: 0, speechDurationMs: 10, frames: [f] });
        }
        if (frames.length === 2) {
          events.trySend({
            type: 'end_of_speech',
            timestampMs: 20,
            silenceDurationMs: 0,
            frames: [...frames],
          });
        }
      },
      endInput: () => events.close(),
      close: async () => events.dispose(),
      [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    };
  }
}

describe('STTFallbackAdapter over recognizers that cannot stream', () => {
  function batchSetup(options: { retryIntervalMs?: number; attemptTimeoutMs?: number } = {}) {
    const clock = new VirtualClock();
    const a = new ControlledBatchSTT('a', clock);
    const b = new ControlledBatchSTT('b', clock);
    const adapter = new STTFallbackAdapter([a, b], {
      clock,
      vad: new OneUtteranceVAD(),
      retryIntervalMs: 60_000,
      ...options,
    });
    const changes: Array<AvailabilityChangedEvent & { at: number }> = [];
    adapter.on('availability_changed', (e) => changes.push({ ...e, at: clock.now() }));
    return { clock, a, b, adapter, changes };
  }

  it('moves the stream to the next recognizer when one fails, without retrying it first', async () => {
    const { clock, a, b, adapter, changes } = batchSetup();
    a.mode = 'fail';
    const stream = adapter.stream(OPTIONS);
    const { events, done } = consume(stream);
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    await clock.sleep(150);
    // a failed once (no retry inside: switching is the retry); its utterance is closed and lost.
    expect(a.calls.map((c) => c.at)).toEqual([0]);
    expect(changes.map((c) => [c.provider, c.available, c.at])).toEqual([['a', false, 100]]);
    expect(changes[0]!.error).toMatchObject({ statusCode: 503 });
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    stream.endInput();
    await done;
    expect(events).toEqual([
      'start_of_speech',
      'end_of_speech',
      'start_of_speech',
      'final:b heard 2',
      'end_of_speech',
    ]);
    expect(b.calls).toHaveLength(1);
    await adapter.close();
  });

  it('ends quietly when the caller aborts during a recognition, without blaming the provider', async () => {
    const { clock, a, adapter, changes } = batchSetup();
    const controller = new AbortController();
    const stream = adapter.stream({ ...OPTIONS, signal: controller.signal });
    const { events, done } = consume(stream);
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    clock.setTimer(50, () => controller.abort(new Error('caller left')));
    await done;
    expect(events).toEqual(['start_of_speech']);
    expect(a.calls).toHaveLength(1);
    expect(a.calls[0]!.options.signal?.aborted).toBe(true);
    expect(changes).toEqual([]);
    await adapter.close();
  });

  it('recovers a recognizer through the default probe, giving up on a hung probe after attemptTimeoutMs', async () => {
    const { clock, a, b, adapter, changes } = batchSetup({ retryIntervalMs: 500, attemptTimeoutMs: 1_000 });
    a.mode = 'fail';
    const stream = adapter.stream(OPTIONS);
    const { done } = consume(stream);
    stream.pushFrame(frame());
    stream.pushFrame(frame()); // a fails at 100
    await clock.sleep(150);
    a.mode = 'hang';
    clock.setTimer(1_500, () => {
      a.mode = 'ok';
    });
    while (!adapter.availability()[0]!.available) await clock.sleep(50);
    // Probes: 600 (hangs, abandoned at 1600), 2100-2200 (succeeds).
    expect(a.calls.map((c) => c.at)).toEqual([0, 600, 2_100]);
    expect(a.calls[1]!.options.signal?.aborted).toBe(true);
    // A probe is 100 ms of silence at the recognizer's preferred rate.
    expect(a.calls[1]!.frames).toBe(1);
    expect(a.calls[1]!.options.sampleRate).toBe(16_000);
    expect(changes.map((c) => [c.provider, c.available, c.at])).toEqual([
      ['a', false, 100],
      ['a', true, 2_200],
    ]);
    stream.endInput();
    await done;
    await adapter.close();
    expect([a.closed, b.closed]).toEqual([true, true]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('times out a hung probe of a streaming provider too, and drains a working one', async () => {
    const { clock, a, adapter, changes } = setup({ retryIntervalMs: 500, attemptTimeoutMs: 1_000 });
    const stream = adapter.stream(OPTIONS);
    const { done } = consume(stream);
    a.streams[0]!.events.fail(new APIConnectionError('a gone')); // at 0
    // The first probe (at 500) never ends and is abandoned at 1500; the second (at 2000) ends with its
    // input.
    clock.setTimer(1_800, () => {
      a.endsWithInput = true;
    });
    await tick(clock);
    expect(adapter.availability()[0]!.available).toBe(false);
    while (!adapter.availability()[0]!.available) await clock.sleep(50);
    expect(a.streams).toHaveLength(3);
    const [, hung, probe] = a.streams;
    expect([hung!.frames, hung!.ended, hung!.closed]).toEqual([1, true, true]);
    expect(hung!.signal?.aborted).toBe(true);
    expect([probe!.frames, probe!.ended]).toEqual([1, true]);
    expect(a.options[1]!.sampleRate).toBe(16_000);
    expect(changes.map((c) => [c.provider, c.available, c.at])).toEqual([
      ['a', false, 0],
      ['a', true, 2_000],
    ]);
    expect(changes[0]!.error).toBeInstanceOf(APIConnectionError);
    stream.endInput();
    await stream.close();
    await done;
    await adapter.close();
  });
});
