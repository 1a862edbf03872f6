import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import { APIConnectionError, APIError, APIStatusError } from '../errors.js';
import {
  type ProviderCallOptions,
  type ProviderProblem,
  SPECIFICATION_VERSION,
} from '../providers/common.js';
import type { BatchSTT, SpeechAlternative, STTEvent, STTStream, STTStreamOptions } from '../providers/stt.js';
import type { VAD, VADEvent, VADStream } from '../providers/vad.js';
import { Channel } from '../stream/channel.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { STTStreamAdapter } from './stt-stream-adapter.js';

const FRAME_MS = 10;
const frame = (): AudioFrame => AudioFrame.silence(16_000, 1, 16 * FRAME_MS);

type Step = 'start' | 'end' | 'end-without-start';

/** A VAD whose decisions are scripted by frame number (1-based); its output is bounded like a real one. */
class ScriptedVAD implements VAD {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'scripted-vad';
  readonly streams: ScriptedVADStream[] = [];
  readonly options: Array<ProviderCallOptions | undefined> = [];
  constructor(private readonly script: Record<number, Step>) {}
  stream(options?: ProviderCallOptions): VADStream {
    const stream = new ScriptedVADStream(this.script);
    this.streams.push(stream);
    this.options.push(options);
    return stream;
  }
}

class ScriptedVADStream implements VADStream {
  readonly events = new Channel<VADEvent>({ capacity: 8, overflow: 'drop-oldest' });
  closed = false;
  private pushed = 0;
  private speech: AudioFrame[] = [];
  constructor(private readonly script: Record<number, Step>) {}

  pushFrame(f: AudioFrame): void {
    this.pushed++;
    const at = this.pushed * FRAME_MS;
    const step = this.script[this.pushed];
    if (step === 'start') this.speech = [];
    this.speech.push(f);
    this.events.trySend({
      type: 'inference_done',
      timestampMs: at,
      probability: 0.5,
      speaking: false,
      speechDurationMs: 0,
    });
    if (step === 'start') {
      this.events.trySend({
        type: 'start_of_speech',
        timestampMs: at - FRAME_MS,
        speechDurationMs: FRAME_MS,
        frames: [f],
      });
    }
    if (step === 'end' || step === 'end-without-start') {
      this.events.trySend({
        type: 'end_of_speech',
        timestampMs: at,
        silenceDurationMs: 0,
        frames: this.speech,
      });
      this.speech = [];
    }
  }
  endInput(): void {
    this.events.close();
  }
  async close(): Promise<void> {
    this.closed = true;
    this.events.dispose();
  }
  [Symbol.asyncIterator](): AsyncIterator<VADEvent> {
    return this.events[Symbol.asyncIterator]();
  }
}

/** A recognizer of finished utterances with a fixed latency; queued failures are thrown first. */
class FakeRecognizer implements BatchSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'fake-batch';
  readonly inputSampleRates = [16_000, 8_000];
  readonly calls: Array<{
    frames: number;
    at: number;
    signal: AbortSignal | undefined;
    options: STTStreamOptions;
  }> = [];
  readonly failures: unknown[] = [];
  closed = false;
  constructor(
    private readonly clock: VirtualClock,
    private readonly latencyMs = 50,
  ) {}
  async recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]> {
    this.calls.push({ frames: frames.length, at: this.clock.now(), signal: options.signal, options });
    await this.clock.sleep(this.latencyMs, options.signal);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return [{ text: `heard ${frames.length} frames` }];
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Pushes `n` frames in real time (one per frame duration), then optionally ends the input. */
async function talk(clock: VirtualClock, stream: STTStream, n: number, end = true): Promise<void> {
  for (let i = 0; i < n; i++) {
    stream.pushFrame(frame());
    await clock.sleep(FRAME_MS);
  }
  if (end) stream.endInput();
}

function describeEvent(event: STTEvent): string {
  switch (event.type) {
    case 'final_transcript':
      return `final:${event.alternatives[0]?.text}`;
    default:
      return event.type;
  }
}

const OPTIONS: STTStreamOptions = { sampleRate: 16_000 };

async function collect(stream: STTStream, out: string[] = []): Promise<string[]> {
  for await (const event of stream) out.push(describeEvent(event));
  return out;
}

describe('STTStreamAdapter', () => {
  it('turns VAD utterances into ordered speech events with transcripts', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock);
    const adapter = new STTStreamAdapter(
      recognizer,
      new ScriptedVAD({ 2: 'start', 5: 'end', 7: 'start', 9: 'end' }),
      {
        clock,
      },
    );
    expect(adapter.kind).toBe('streaming');
    expect(adapter.specificationVersion).toBe('v1');
    expect(adapter.label).toBe('fake-batch');
    expect(adapter.inputSampleRates).toEqual([16_000, 8_000]);
    const stream = adapter.stream(OPTIONS);
    const [events] = await Promise.all([collect(stream), talk(clock, stream, 10)]);
    expect(events).toEqual([
      'start_of_speech',
      'final:heard 4 frames',
      'end_of_speech',
      'start_of_speech',
      'final:heard 3 frames',
      'end_of_speech',
    ]);
    // Frame n is pushed at (n - 1) * 10 ms; the second utterance waits for the first recognition.
    expect(recognizer.calls.map((c) => c.at)).toEqual([40, 90]);
  });

  it('keeps every speech boundary while a slow recognizer works', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock, 2_000);
    const script: Record<number, Step> = {};
    for (let u = 0; u < 4; u++) {
      script[u * 20 + 1] = 'start';
      script[u * 20 + 10] = 'end';
    }
    const stream = new STTStreamAdapter(recognizer, new ScriptedVAD(script), { clock }).stream(OPTIONS);
    const [events] = await Promise.all([collect(stream), talk(clock, stream, 100)]);
    expect(events.filter((e) => e.startsWith('final:'))).toHaveLength(4);
    expect(events.filter((e) => e === 'start_of_speech')).toHaveLength(4);
  });

  it('keeps start and end paired when the VAD reports an end without a start', async () => {
    const clock = new VirtualClock();
    const stream = new STTStreamAdapter(
      new FakeRecognizer(clock),
      new ScriptedVAD({ 3: 'end-without-start' }),
      {
        clock,
      },
    ).stream(OPTIONS);
    const [events] = await Promise.all([collect(stream), talk(clock, stream, 4)]);
    expect(events).toEqual(['start_of_speech', 'final:heard 3 frames', 'end_of_speech']);
  });

  it('retries a retryable recognition failure on the clock and reports each retry as a problem', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock);
    const blip = new APIConnectionError('blip');
    recognizer.failures.push(blip);
    const problems: ProviderProblem[] = [];
    const stream = new STTStreamAdapter(recognizer, new ScriptedVAD({ 1: 'start', 3: 'end' }), {
      clock,
      retryPolicy: { jitter: 0 },
    }).stream({ ...OPTIONS, onProblem: (p) => problems.push(p) });
    const [events] = await Promise.all([collect(stream), talk(clock, stream, 3)]);
    expect(events).toContain('final:heard 3 frames');
    // Failed attempt (50 ms) + backoff (100 ms) before the second one.
    expect(recognizer.calls.map((c) => c.at)).toEqual([20, 170]);
    expect(problems).toEqual([{ type: 'retrying', attempt: 1, delayMs: 100, error: blip }]);
  });

  it('recognizes each utterance with the stream options and hands the VAD its problem channel', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock);
    const vad = new ScriptedVAD({ 1: 'start', 2: 'end' });
    const problems: ProviderProblem[] = [];
    const onProblem = (p: ProviderProblem): void => void problems.push(p);
    const stream = new STTStreamAdapter(recognizer, vad, { clock }).stream({
      sampleRate: 8_000,
      language: 'fr',
      onProblem,
    });
    await Promise.all([collect(stream), talk(clock, stream, 2)]);
    expect(recognizer.calls[0]!.options).toMatchObject({ sampleRate: 8_000, language: 'fr', onProblem });
    expect(recognizer.calls[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(vad.options[0]).toMatchObject({ onProblem });
    expect(vad.options[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it('fails the stream with the typed error when recognition cannot succeed, after what was already heard', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock);
    const vad = new ScriptedVAD({ 1: 'start', 2: 'end', 3: 'start', 4: 'end' });
    const stream = new STTStreamAdapter(recognizer, vad, { clock }).stream(OPTIONS);
    const badRequest = new APIStatusError('bad audio', { statusCode: 400 });
    const events: string[] = [];
    const consumed = collect(stream, events);
    stream.pushFrame(frame());
    stream.pushFrame(frame());
    await clock.sleep(60);
    recognizer.failures.push(badRequest);
    await talk(clock, stream, 2, false);
    await expect(consumed).rejects.toBe(badRequest);
    expect(events).toEqual(['start_of_speech', 'final:heard 2 frames', 'end_of_speech', 'start_of_speech']);
    expect(vad.streams[0]!.closed).toBe(true);
  });

  it('wraps errors that are not APIErrors', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock);
    const bug = new TypeError('undefined is not a function');
    recognizer.failures.push(bug);
    const stream = new STTStreamAdapter(recognizer, new ScriptedVAD({ 1: 'start', 2: 'end' }), {
      clock,
    }).stream(OPTIONS);
    const consumed = collect(stream);
    await talk(clock, stream, 2, false);
    const error = await consumed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({
      retryable: false,
      cause: bug,
      message: 'fake-batch: undefined is not a function',
    });
  });

  it('close() ends the stream, aborts recognition and closes the VAD', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock, 5_000);
    const vad = new ScriptedVAD({ 1: 'start', 2: 'end' });
    const stream = new STTStreamAdapter(recognizer, vad, { clock }).stream(OPTIONS);
    const events: string[] = [];
    const consumed = collect(stream, events);
    await talk(clock, stream, 2, false);
    expect(recognizer.calls).toHaveLength(1);
    await stream.close();
    await consumed;
    expect(events).toEqual(['start_of_speech']);
    expect(recognizer.calls[0]!.signal?.aborted).toBe(true);
    expect(vad.streams[0]!.closed).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('aborting the stream signal ends iteration quietly', async () => {
    const clock = new VirtualClock();
    const recognizer = new FakeRecognizer(clock, 5_000);
    const vad = new ScriptedVAD({ 1: 'start', 2: 'end' });
    const controller = new AbortController();
    const stream = new STTStreamAdapter(recognizer, vad, { clock }).stream({
      ...OPTIONS,
      signal: controller.signal,
    });
    const consumed = collect(stream);
    await talk(clock, stream, 2, false);
    controller.abort();
    await expect(consumed).resolves.toEqual(['start_of_speech']);
    expect(vad.streams[0]!.closed).toBe(true);
    stream.pushFrame(frame()); // ignored after the end
  });

  it('a consumer that stops reading releases the VAD', async () => {
    const clock = new VirtualClock();
    const vad = new ScriptedVAD({ 1: 'start', 2: 'end' });
    const stream = new STTStreamAdapter(new FakeRecognizer(clock), vad, { clock }).stream(OPTIONS);
    const reading = (async () => {
      for await (const _event of stream) break;
    })();
    await talk(clock, stream, 2, false);
    await reading;
    expect(vad.streams[0]!.closed).toBe(true);
  });

  it('needs a recognizer with recognize() and closes it', async () => {
    const clock = new VirtualClock();
    // Only reachable from untyped code: the types already demand a BatchSTT.
    const streamingOnly = Object.assign(new FakeRecognizer(clock), { recognize: undefined });
    expect(() => new STTStreamAdapter(streamingOnly as unknown as BatchSTT, new ScriptedVAD({}))).toThrow(
      TypeError,
    );
    const recognizer = new FakeRecognizer(clock);
    const adapter = new STTStreamAdapter(recognizer, new ScriptedVAD({}), { clock });
    await expect(adapter.recognize([frame()], OPTIONS)).resolves.toEqual([{ text: 'heard 1 frames' }]);
    await adapter.close();
    expect(recognizer.closed).toBe(true);
  });
});
