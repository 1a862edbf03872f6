import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import { AllProvidersFailedError, APIConnectionError, APIStatusError, APITimeoutError } from '../errors.js';
import type { SpeechAlternative, STT, STTEvent, STTStream, STTStreamOptions } from '../providers/stt.js';
import type { VAD, VADEvent, VADStream } from '../providers/vad.js';
import { Channel } from '../stream/channel.js';
import { VirtualClock } from '../time/virtual-clock.js';
import type { AvailabilityChangedEvent } from './fallback-core.js';
import { STTFallbackAdapter } from './fallback-stt.js';

const frame = (): AudioFrame => AudioFrame.silence(16_000, 1, 160);
const final = (text: string): STTEvent => ({ type: 'final_transcript', alternatives: [{ text }] });

/** A live stream the test drives: it emits, fails or ends on command and records what it was given. */
class ControlledStream implements STTStream {
  readonly events = new Channel<STTEvent>({ capacity: 64, overflow: 'block' });
  frames = 0;
  flushed = 0;
  ended = false;
  closed = false;
  constructor(readonly signal: AbortSignal | undefined) {
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
  }
  async close(): Promise<void> {
    this.closed = true;
    this.events.close();
  }
  [Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    return this.events[Symbol.asyncIterator]();
  }
}

class ControlledSTT implements STT {
  readonly capabilities = { streaming: true, interimResults: true, speechEvents: true };
  readonly streams: ControlledStream[] = [];
  recognizeMode: 'ok' | 'fail' | 'hang' = 'ok';
  recognizeCalls = 0;
  closed = false;
  constructor(
    readonly label: string,
    private readonly clock: VirtualClock,
  ) {}
  stream(options?: STTStreamOptions): STTStream {
    const stream = new ControlledStream(options?.signal);
    this.streams.push(stream);
    return stream;
  }
  async recognize(
    frames: AudioFrame[],
    options?: STTStreamOptions,
  ): Promise<{ type: 'final_transcript'; alternatives: SpeechAlternative[] }> {
    this.recognizeCalls++;
    await this.clock.sleep(this.recognizeMode === 'hang' ? 1e9 : 100, options?.signal);
    if (this.recognizeMode === 'fail') throw new APIStatusError(`${this.label} down`, { statusCode: 503 });
    return { type: 'final_transcript', alternatives: [{ text: `${this.label} heard ${frames.length}` }] };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function setup(options: { retryIntervalMs?: number; attemptTimeoutMs?: number } = {}) {
  const clock = new VirtualClock();
  const a = new ControlledSTT('a', clock);
  const b = new ControlledSTT('b', clock);
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
    const stream = adapter.stream();
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
    const stream = adapter.stream();
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
    const stream = adapter.stream();
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
    const stream = adapter.stream();
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
    const stream = adapter.stream();
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
    const stream = adapter.stream();
    const { done } = consume(stream);
    await stream.close();
    await done;
    expect(a.streams[0]!.closed).toBe(true);
    expect(a.streams[0]!.signal?.aborted).toBe(true);
    await adapter.close();
  });

  it('wraps providers that cannot stream with a VAD-driven adapter', async () => {
    const clock = new VirtualClock();
    const batch = Object.assign(new ControlledSTT('batch', clock), {
      capabilities: { streaming: false, interimResults: false },
    });
    expect(() => new STTFallbackAdapter([batch], { clock })).toThrow(TypeError);
    const adapter = new STTFallbackAdapter([new ControlledSTT('live', clock), batch], {
      clock,
      vad: new OneUtteranceVAD(),
    });
    expect(adapter.capabilities).toEqual({ streaming: true, interimResults: false, speechEvents: true });
    const only = new STTFallbackAdapter([batch], { clock, vad: new OneUtteranceVAD() });
    const stream = only.stream();
    const { events, done } = consume(stream);
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    stream.endInput();
    await done;
    expect(events).toEqual(['start_of_speech', 'final:batch heard 2', 'end_of_speech', 'recognition_usage']);
    await adapter.close();
    await only.close();
  });
});

/** Reports speech on the first frame and its end on the second. */
class OneUtteranceVAD implements VAD {
  readonly label = 'vad';
  readonly capabilities = { updateIntervalMs: 10 };
  readonly minSilenceDurationMs = 100;
  readonly minSpeechDurationMs = 50;
  stream(): VADStream {
    const events = new Channel<VADEvent>({ capacity: 8, overflow: 'drop-oldest' });
    const frames: AudioFrame[] = [];
    const times = { timestampMs: 0, speechDurationMs: 0, silenceDurationMs: 0 };
    return {
      pushFrame(f) {
        frames.push(f);
        if (frames.length === 1) events.trySend({ type: 'start_of_speech', ...times, frames: [f] });
        if (frames.length === 2) events.trySend({ type: 'end_of_speech', ...times, frames: [...frames] });
      },
      endInput: () => events.close(),
      close: async () => events.dispose(),
      [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    };
  }
}

describe('STTFallbackAdapter recognize', () => {
  it('falls back on errors and timeouts, skipping providers without recognize()', async () => {
    const { clock, a, b, adapter, changes } = setup({ attemptTimeoutMs: 1_000 });
    const streamOnly: STT = Object.assign(new ControlledSTT('s', clock), { recognize: undefined });
    const withStreamOnly = new STTFallbackAdapter([streamOnly, a, b], { clock, attemptTimeoutMs: 1_000 });
    expect((await withStreamOnly.recognize([frame()])).alternatives[0]!.text).toBe('a heard 1');

    a.recognizeMode = 'hang';
    const startedAt = clock.now();
    const result = await adapter.recognize([frame(), frame()]);
    expect(result.alternatives[0]!.text).toBe('b heard 2');
    expect(clock.now() - startedAt).toBe(1_100);
    expect(changes[0]!.error).toBeInstanceOf(APITimeoutError);

    b.recognizeMode = 'fail';
    const failure = await adapter.recognize([frame()]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AllProvidersFailedError);
    expect((failure as AllProvidersFailedError).errors).toHaveLength(2);
    await adapter.close();
    await withStreamOnly.close();
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const { clock, a, adapter, changes } = setup();
    const controller = new AbortController();
    clock.setTimer(50, () => controller.abort(new Error('caller left')));
    await expect(adapter.recognize([frame()], { signal: controller.signal })).rejects.toThrow('caller left');
    expect(a.recognizeCalls).toBe(1);
    expect(changes).toEqual([]);
    await adapter.close();
  });

  it('recovers a provider through the default probe, and close() closes every provider', async () => {
    const { clock, a, b, adapter, changes } = setup({ retryIntervalMs: 500 });
    a.recognizeMode = 'fail';
    await adapter.recognize([frame()]); // a fails at 100, b answers at 200
    clock.setTimer(1_000, () => {
      a.recognizeMode = 'ok';
    });
    while (!adapter.availability()[0]!.available) await clock.sleep(50);
    // Probes at 600-700 (fails), then 1200-1300 (succeeds).
    expect(changes.map((c) => [c.provider, c.available, c.at])).toEqual([
      ['a', false, 100],
      ['a', true, 1_300],
    ]);
    await adapter.close();
    expect([a.closed, b.closed]).toEqual([true, true]);
    expect(clock.pendingTimers).toBe(0);
  });
});
