import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import type { FramePushingInput, FrameReceiver } from '../../providers/audio-io.js';
import type { STTEvent, STTStream, STTStreamOptions } from '../../providers/stt.js';
import type { VADEvent, VADStream } from '../../providers/vad.js';
import { Channel } from '../../stream/channel.js';
import { FakeSTT, FakeVAD } from '../../test-support/session-harness.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import type { TraceRecord } from '../session/trace.js';
import { InputPipeline } from './input-pipeline.js';

/** A provider stream the test drives: it records what it hears and emits or fails on demand. */
class ScriptedStream<E> {
  readonly heard: AudioFrame[] = [];
  ended = false;
  closed = false;
  flushes = 0;
  private readonly events = new Channel<E>({ capacity: 100, overflow: 'block' });
  pushFrame(frame: AudioFrame): void {
    this.heard.push(frame);
  }
  emit(event: E): void {
    this.events.trySend(event);
  }
  fail(error: Error): void {
    this.events.fail(error);
  }
  end(): void {
    this.events.close();
  }
  flush(): void {
    this.flushes++;
  }
  endInput(): void {
    this.ended = true;
  }
  async close(): Promise<void> {
    this.closed = true;
    this.events.close();
  }
  [Symbol.asyncIterator](): AsyncIterator<E> {
    return this.events[Symbol.asyncIterator]();
  }
}

class ScriptedVAD extends FakeVAD {
  readonly streams: Array<ScriptedStream<VADEvent>> = [];
  readonly openedAt: number[] = [];
  openError: Error | undefined;
  constructor(private readonly clock: VirtualClock) {
    super();
  }
  override stream(): VADStream {
    if (this.openError) throw this.openError;
    const stream = new ScriptedStream<VADEvent>();
    this.streams.push(stream);
    this.openedAt.push(this.clock.now());
    return stream;
  }
  get latest(): ScriptedStream<VADEvent> {
    return this.streams[this.streams.length - 1]!;
  }
}

class ScriptedSTT extends FakeSTT {
  readonly streams: Array<ScriptedStream<STTEvent>> = [];
  readonly options: STTStreamOptions[] = [];
  readonly openedAt: number[] = [];
  openError: Error | undefined;
  constructor(private readonly scriptClock: VirtualClock) {
    super(scriptClock, []);
  }
  override stream(options: STTStreamOptions): STTStream {
    if (this.openError) throw this.openError;
    const stream = new ScriptedStream<STTEvent>();
    this.streams.push(stream);
    this.options.push(options);
    this.openedAt.push(this.scriptClock.now());
    return stream;
  }
  get latest(): ScriptedStream<STTEvent> {
    return this.streams[this.streams.length - 1]!;
  }
}

function rig(options: { vad?: boolean; stt?: boolean; language?: string; discardOption?: boolean } = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const vad = options.vad === false ? undefined : new ScriptedVAD(clock);
  const stt = options.stt === false ? undefined : new ScriptedSTT(clock);
  const input = new Channel<AudioFrame>({ capacity: 100, overflow: 'block' });
  const log: string[] = [];
  const traces: TraceRecord[] = [];
  const errors: Array<{ source: string; error: unknown; recoverable: boolean }> = [];
  /** `discard`: an uninterruptible speech plays. */
  const world = { discard: false };
  const pipeline = new InputPipeline({
    clock,
    // The pipeline's own rules, with the STT's stream as it is (formats are stt-stream.test.ts's).
    sttOpener: {
      open: (provider, _vad, opened) => (provider as ScriptedSTT).stream({ ...opened, sampleRate: 16000 }),
    },
    providers: { vad, stt, language: options.language },
    options: { discardAudioIfUninterruptible: options.discardOption ?? true },
    playback: {
      get playingSpeechIsUninterruptible() {
        return world.discard;
      },
    },
    listener: {
      vadEvent: (event) => log.push(`vad ${event.type}`),
      sttEvent: (event) => log.push(`stt ${event.type}`),
      vadLost: () => log.push('vad lost'),
      inputEnded: () => log.push('input ended'),
      inputDisabled: () => log.push('input disabled'),
      inputResumed: () => log.push('input resumed'),
    },
    reporter: {
      error: (source, error, recoverable) => {
        errors.push({ source, error, recoverable });
        log.push(`error ${source} ${recoverable ? 'recoverable' : 'fatal'}`);
      },
      trace: (record) => {
        traces.push(record);
        log.push(`trace ${record.type}`);
      },
      problem: (source, problem) => log.push(`problem ${source} ${problem.type}`),
    },
  });
  const at = (ms: number): Promise<void> => clock.advance(ms - clock.now());
  return { clock, vad, stt, input, log, traces, errors, world, pipeline, at };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let level = 0;
/** A voiced frame whose samples all hold one distinct value, so each frame is recognisable. */
function voiced(): AudioFrame {
  return new AudioFrame(new Int16Array(320).fill(++level), 16000, 1, 320);
}

const startOfSpeech: VADEvent = {
  type: 'start_of_speech',
  timestampMs: 0,
  speechDurationMs: 60,
  frames: [],
};

describe('InputPipeline: frames', () => {
  it('feeds every frame to the VAD and the STT, in order', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    const frames = [voiced(), voiced(), voiced()];
    for (const frame of frames) r.input.trySend(frame);
    await settle();
    expect(r.vad!.latest.heard).toEqual(frames);
    expect(r.stt!.latest.heard).toEqual(frames);
    expect(r.pipeline.frameCount).toBe(3);
  });

  it('while input is discarded, the STT hears silence of the same length and the VAD still hears the user', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    const first = voiced();
    r.input.trySend(first);
    await settle();
    r.world.discard = true;
    const second = new AudioFrame(new Int16Array(640).fill(7), 48000, 2, 320);
    r.input.trySend(second);
    await settle();
    r.world.discard = false;
    const third = voiced();
    r.input.trySend(third);
    await settle();
    // Each change of format opens a new VAD stream (see below): together they heard every frame.
    expect(r.vad!.streams.flatMap((stream) => stream.heard)).toEqual([first, second, third]);
    const sttHeard = r.stt!.latest.heard;
    expect(sttHeard[0]).toBe(first);
    expect(sttHeard[2]).toBe(third);
    const silence = sttHeard[1]!;
    expect(silence).not.toBe(second);
    expect([silence.sampleRate, silence.channels, silence.samplesPerChannel]).toEqual([48000, 2, 320]);
    expect(silence.data.length).toBe(640);
    expect(silence.data.every((v) => v === 0)).toBe(true);
  });

  it('never discards when discardAudioIfUninterruptible is off', async () => {
    const r = rig({ discardOption: false });
    r.pipeline.start(r.input);
    r.world.discard = true;
    const frame = voiced();
    r.input.trySend(frame);
    await settle();
    expect(r.stt!.latest.heard).toEqual([frame]);
  });

  it('works with only a VAD or only an STT', async () => {
    const vadOnly = rig({ stt: false });
    vadOnly.pipeline.start(vadOnly.input);
    vadOnly.input.trySend(voiced());
    const sttOnly = rig({ vad: false });
    sttOnly.pipeline.start(sttOnly.input);
    sttOnly.input.trySend(voiced());
    await settle();
    expect(vadOnly.vad!.latest.heard).toHaveLength(1);
    expect(sttOnly.stt!.latest.heard).toHaveLength(1);
  });

  it('passes the language hint to the STT', () => {
    const r = rig({ language: 'fr' });
    r.pipeline.start(undefined);
    expect(r.stt!.options[0]?.language).toBe('fr');
    const without = rig();
    without.pipeline.start(undefined);
    expect(without.stt!.options[0]).not.toHaveProperty('language');
  });

  it('delivers VAD and STT events to their handlers as they come', async () => {
    const r = rig();
    r.pipeline.start(undefined);
    r.vad!.latest.emit(startOfSpeech);
    r.stt!.latest.emit({ type: 'interim_transcript', alternatives: [{ text: 'hi' }] });
    r.stt!.latest.emit({ type: 'final_transcript', alternatives: [{ text: 'hi' }] });
    await settle();
    expect(r.log).toEqual(['vad start_of_speech', 'stt interim_transcript', 'stt final_transcript']);
  });

  it('asks the STT to finalize on flushStt()', () => {
    const r = rig();
    r.pipeline.start(undefined);
    r.pipeline.flushStt();
    expect(r.stt!.latest.flushes).toBe(1);
  });
});

describe('InputPipeline: failures and restarts', () => {
  it('reports a failed VAD stream as recoverable, treats the user as silent, and restarts it with backoff', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    const failures = 9;
    for (let i = 0; i < failures; i++) {
      await settle();
      r.vad!.latest.fail(new Error(`vad crash ${i}`));
      await settle();
      await r.at(r.clock.nextTimerAt() ?? r.clock.now());
    }
    expect(r.vad!.openedAt).toEqual([0, 100, 300, 700, 1500, 3100, 6300, 11300, 16300, 21300]);
    expect(r.log.slice(0, 3)).toEqual(['vad lost', 'error vad recoverable', 'trace vad_restarted']);
    expect(r.errors).toHaveLength(failures);
    expect(r.errors.every((e) => e.recoverable)).toBe(true);
    expect(r.traces[0]).toEqual({ type: 'vad_restarted', error: 'Error: vad crash 0' });
    // The STT was never touched.
    expect(r.stt!.streams).toHaveLength(1);
  });

  it('starts the backoff over once a restarted stream delivers an event', async () => {
    const r = rig();
    r.pipeline.start(undefined);
    await settle();
    r.vad!.latest.fail(new Error('one'));
    await settle();
    await r.at(100);
    r.vad!.latest.fail(new Error('two'));
    await settle();
    await r.at(300);
    r.vad!.latest.emit(startOfSpeech);
    await settle();
    r.vad!.latest.fail(new Error('three'));
    await settle();
    await r.at(r.clock.nextTimerAt()!);
    expect(r.vad!.openedAt).toEqual([0, 100, 300, 400]);
  });

  it('restarts a failed STT stream without reporting the VAD lost', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    await settle();
    r.stt!.latest.fail(new Error('socket closed'));
    await settle();
    expect(r.log).toEqual(['error stt recoverable', 'trace stt_restarted']);
    await r.at(100);
    expect(r.stt!.openedAt).toEqual([0, 100]);
    const frame = voiced();
    r.input.trySend(frame);
    await settle();
    expect(r.stt!.latest.heard).toEqual([frame]);
  });

  it('does not retry a stream that cannot be opened: the error is fatal', async () => {
    const r = rig();
    r.vad!.openError = new Error('no model file');
    r.stt!.openError = new Error('bad key');
    r.pipeline.start(undefined);
    await settle();
    expect(r.log).toEqual(['vad lost', 'error vad fatal', 'error stt fatal']);
    await r.at(60_000);
    expect(r.vad!.streams).toHaveLength(0);
    expect(r.clock.pendingTimers).toBe(0);
  });

  it('does not restart a stream that ended by itself; a VAD that ends leaves the user silent', async () => {
    const r = rig();
    r.pipeline.start(undefined);
    await settle();
    r.vad!.latest.end();
    r.stt!.latest.end();
    await settle();
    expect(r.log).toEqual(['vad lost']);
    await r.at(60_000);
    expect(r.vad!.streams).toHaveLength(1);
    expect(r.stt!.streams).toHaveLength(1);
  });

  it('reports a failing audio input as fatal', async () => {
    const r = rig();
    const broken: AsyncIterable<AudioFrame> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('device gone')) }),
    };
    r.pipeline.start(broken);
    await settle();
    expect(r.errors).toMatchObject([{ source: 'audio_input', recoverable: false }]);
  });
});

describe('InputPipeline: an input that pushes its frames', () => {
  /** A pushing input driven by hand; iterating it would be a bug, so it throws. */
  function pushing() {
    const state: { receiver?: FrameReceiver; unsubscribed: number } = { unsubscribed: 0 };
    const input: FramePushingInput = {
      subscribeFrames(receiver) {
        state.receiver = receiver;
        return () => {
          state.unsubscribed++;
        };
      },
      [Symbol.asyncIterator]: () => {
        throw new Error('iterated');
      },
    };
    return { input, state };
  }

  it('is subscribed, not iterated: each frame reaches both streams in the call that pushed it', () => {
    const r = rig();
    const { input, state } = pushing();
    r.pipeline.start(input);
    const frame = voiced();
    state.receiver!.frame(frame);
    expect(r.vad!.latest.heard).toEqual([frame]);
    expect(r.stt!.latest.heard).toEqual([frame]);
    expect(r.pipeline.frameCount).toBe(1);
  });

  it('ends like an iterated input, reports a failure as fatal, and is unsubscribed on close', async () => {
    const ending = rig();
    const a = pushing();
    ending.pipeline.start(a.input);
    a.state.receiver!.end();
    await settle();
    expect(ending.log).toEqual(['trace audio_input_ended', 'vad lost', 'input ended']);

    const failing = rig();
    const b = pushing();
    failing.pipeline.start(b.input);
    b.state.receiver!.fail(new Error('device gone'));
    await settle();
    expect(failing.errors).toMatchObject([{ source: 'audio_input', recoverable: false }]);

    const closing = rig();
    const c = pushing();
    closing.pipeline.start(c.input);
    await closing.pipeline.close();
    expect(c.state.unsubscribed).toBe(1);
    c.state.receiver!.frame(voiced());
    expect(closing.pipeline.frameCount).toBe(0);
  });
});

describe('InputPipeline: malformed and changing input', () => {
  it('drops a malformed frame (bad shape, 0 Hz, NaN samples), counts it, reports it once per run, and hears the next frames', async () => {
    const r = rig();
    r.pipeline.start(r.input as unknown as AsyncIterable<AudioFrame>);
    const before = voiced();
    const after = voiced();
    const send = (frame: unknown) => r.input.trySend(frame as AudioFrame);
    send(before);
    send({ data: new Int16Array(100), sampleRate: 16000, channels: 1, samplesPerChannel: 320 });
    send({ data: new Int16Array(320), sampleRate: 0, channels: 1, samplesPerChannel: 320 });
    send({
      data: new Float32Array(320).fill(Number.NaN),
      sampleRate: 16000,
      channels: 1,
      samplesPerChannel: 320,
    });
    send(after);
    send({ data: new Int16Array(320), sampleRate: Number.NaN, channels: 1, samplesPerChannel: 320 });
    await settle();
    expect(r.vad!.latest.heard).toEqual([before, after]);
    expect(r.stt!.latest.heard).toEqual([before, after]);
    expect(r.pipeline.frameCount).toBe(2);
    expect(r.pipeline.droppedFrameCount).toBe(4);
    expect(r.errors.map((e) => [e.source, e.recoverable])).toEqual([
      ['audio_input', true],
      ['audio_input', true],
    ]);
    expect(r.log).not.toContain('input ended');
  });

  it('a VAD whose pushFrame throws is reported as vad and reopened; the microphone goes on', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    const first = voiced();
    const second = voiced();
    const third = voiced();
    r.input.trySend(first);
    await settle();
    r.vad!.latest.pushFrame = () => {
      throw new Error('inference backend gone');
    };
    r.input.trySend(second);
    r.input.trySend(third);
    await settle();
    expect(r.errors.map((e) => [e.source, e.recoverable])).toEqual([['vad', true]]);
    expect(r.vad!.streams).toHaveLength(2);
    expect(r.vad!.streams[0]!.closed).toBe(true);
    expect(r.vad!.latest.heard).toEqual([third]);
    expect(r.stt!.latest.heard).toEqual([first, second, third]);
    expect(r.log).not.toContain('input ended');
  });

  it('opens a new VAD stream when the sample rate or the channel count changes, and keeps the STT stream', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    const first = voiced();
    const wide = new AudioFrame(new Int16Array(960), 48000, 1, 960);
    const stereo = new AudioFrame(new Int16Array(1920), 48000, 2, 960);
    r.input.trySend(first);
    r.input.trySend(wide);
    r.input.trySend(stereo);
    await settle();
    expect(r.vad!.streams.map((s) => s.heard)).toEqual([[first], [wide], [stereo]]);
    expect(r.vad!.streams.slice(0, 2).every((s) => s.closed)).toBe(true);
    expect(r.traces.filter((t) => t.type === 'vad_restarted')).toHaveLength(2);
    expect(r.log.filter((l) => l === 'vad lost')).toHaveLength(2);
    expect(r.stt!.streams).toHaveLength(1);
    expect(r.stt!.latest.heard).toEqual([first, wide, stereo]);
    expect(r.errors).toEqual([]);
  });
});

describe('InputPipeline: lifecycle', () => {
  it('at the end of the input, ends both streams, then reports the VAD lost and the input ended', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    r.input.trySend(voiced());
    r.input.close();
    await settle();
    expect(r.vad!.latest.ended).toBe(true);
    expect(r.stt!.latest.ended).toBe(true);
    expect(r.log).toEqual(['trace audio_input_ended', 'vad lost', 'input ended']);
  });

  it('reopenStreams() replaces both streams, reports the VAD lost, and ignores the old streams', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    await settle();
    const oldVad = r.vad!.latest;
    const oldStt = r.stt!.latest;
    // Already on their way when the streams are replaced: they must not be delivered.
    oldVad.emit(startOfSpeech);
    oldStt.emit({ type: 'start_of_speech' });
    r.pipeline.reopenStreams();
    expect(r.log).toEqual(['vad lost']);
    expect(oldVad.closed).toBe(true);
    expect(oldStt.closed).toBe(true);
    expect(r.vad!.streams).toHaveLength(2);
    expect(r.stt!.streams).toHaveLength(2);
    oldVad.emit(startOfSpeech);
    r.vad!.latest.emit(startOfSpeech);
    const frame = voiced();
    r.input.trySend(frame);
    await settle();
    expect(r.log).toEqual(['vad lost', 'vad start_of_speech']);
    expect(r.vad!.latest.heard).toEqual([frame]);
    expect(oldVad.heard).toEqual([]);
  });

  it('close() closes both streams and restarts nothing afterwards', async () => {
    const r = rig();
    r.pipeline.start(r.input);
    await settle();
    await r.pipeline.close();
    expect(r.vad!.latest.closed).toBe(true);
    expect(r.stt!.latest.closed).toBe(true);
    await r.at(60_000);
    expect(r.vad!.streams).toHaveLength(1);
    expect(r.errors).toEqual([]);
  });

  it('a stream failing while the pipeline closes is not restarted', async () => {
    const r = rig();
    r.pipeline.start(undefined);
    await settle();
    r.vad!.latest.fail(new Error('crash'));
    await settle();
    await r.pipeline.close();
    await r.at(60_000);
    expect(r.vad!.streams).toHaveLength(1);
  });
});
