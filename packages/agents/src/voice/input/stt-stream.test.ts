import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import { APIConnectionError, VoxwireError } from '../../errors.js';
import { type ProviderProblem, SPECIFICATION_VERSION } from '../../providers/common.js';
import type {
  BatchSTT,
  SpeechAlternative,
  STTEvent,
  STTStream,
  StreamingSTT,
  STTStreamOptions,
} from '../../providers/stt.js';
import type { VAD, VADEvent, VADStream } from '../../providers/vad.js';
import { Channel } from '../../stream/channel.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { MissingVADError, SttStreamOpener } from './stt-stream.js';

/** 20 ms of interleaved audio with a constant value per channel. */
function frameOf(sampleRate: number, channels: number, values: readonly number[]): AudioFrame {
  const samples = sampleRate / 50;
  const data = new Int16Array(samples * channels);
  for (let i = 0; i < samples; i++) {
    for (let c = 0; c < channels; c++) data[i * channels + c] = values[c]!;
  }
  return new AudioFrame(data, sampleRate, channels, samples);
}

/** A streaming recognizer that keeps what it was opened with and every frame it heard. */
class RecordingSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label = 'recording-stt';
  readonly opened: STTStreamOptions[] = [];
  readonly frames: AudioFrame[] = [];
  ended = false;
  closed = false;
  constructor(readonly inputSampleRates: readonly number[]) {}
  stream(options: STTStreamOptions): STTStream {
    this.opened.push(options);
    const events = new Channel<STTEvent>({ capacity: 16, overflow: 'drop-oldest' });
    return {
      pushFrame: (frame) => void this.frames.push(frame),
      flush: () => {},
      endInput: () => {
        this.ended = true;
        events.close();
      },
      close: async () => {
        this.closed = true;
        events.close();
      },
      [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    };
  }
}

async function drain(stream: STTStream): Promise<STTEvent[]> {
  const events: STTEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const totalMs = (frames: readonly AudioFrame[]): number => frames.reduce((ms, f) => ms + f.durationMs, 0);

describe('SttStreamOpener: input format', () => {
  it('gives a 16 kHz-only recognizer mono 16 kHz frames of 48 kHz stereo input, opened at 16 kHz', async () => {
    const stt = new RecordingSTT([16_000]);
    const stream = new SttStreamOpener(new VirtualClock()).open(stt, undefined, {});
    const done = drain(stream);
    // One second of stereo audio: 1000 on the left, 3000 on the right.
    for (let i = 0; i < 50; i++) stream.pushFrame(frameOf(48_000, 2, [1000, 3000]));
    stream.endInput();
    await done;
    expect(stt.opened.map((o) => o.sampleRate)).toEqual([16_000]);
    expect(stt.frames.length).toBeGreaterThan(0);
    expect(stt.frames.every((f) => f.sampleRate === 16_000 && f.channels === 1)).toBe(true);
    // The resampler holds back a few ms (half its filter) until more audio comes, nothing more.
    const heard = totalMs(stt.frames);
    expect(heard).toBeLessThanOrEqual(1000);
    expect(heard).toBeGreaterThanOrEqual(998);
    // The channels are averaged; away from the start the constant signal comes through as it is.
    const samples = stt.frames.flatMap((f) => Array.from(f.data));
    const deviation = Math.max(...samples.slice(1000, 15_000).map((v) => Math.abs(v - 2000)));
    expect(deviation).toBeLessThanOrEqual(2);
    expect(stt.ended).toBe(true);
  });

  it('passes frames at a rate the recognizer lists through untouched, and opens at that rate', async () => {
    const stt = new RecordingSTT([16_000, 48_000]);
    const stream = new SttStreamOpener(new VirtualClock()).open(stt, undefined, {});
    const done = drain(stream);
    const pushed = Array.from({ length: 5 }, () => frameOf(48_000, 1, [1234]));
    for (const frame of pushed) stream.pushFrame(frame);
    stream.endInput();
    await done;
    expect(stt.opened.map((o) => o.sampleRate)).toEqual([48_000]);
    expect(stt.frames).toHaveLength(5);
    for (const [i, frame] of stt.frames.entries()) expect(frame).toBe(pushed[i]);
  });

  it('converts again once the input changes rate or channels after frames passed through untouched', async () => {
    const stt = new RecordingSTT([16_000]);
    const stream = new SttStreamOpener(new VirtualClock()).open(stt, undefined, {});
    const done = drain(stream);
    const untouched = frameOf(16_000, 1, [500]);
    stream.pushFrame(untouched);
    stream.pushFrame(untouched);
    // 48 kHz now: resampled to the rate the recognizer was opened with.
    for (let i = 0; i < 10; i++) stream.pushFrame(frameOf(48_000, 1, [500]));
    // Back at 16 kHz but stereo: mixed down.
    stream.pushFrame(frameOf(16_000, 2, [400, 600]));
    stream.endInput();
    await done;
    expect(stt.frames[0]).toBe(untouched);
    expect(stt.frames[1]).toBe(untouched);
    expect(stt.frames.every((f) => f.sampleRate === 16_000 && f.channels === 1)).toBe(true);
    // 40 ms untouched, 200 ms resampled (all of it, once the rate changes back and flushes the filter),
    // and the 20 ms stereo frame.
    expect(totalMs(stt.frames)).toBeCloseTo(260, 0);
    expect(stt.frames.at(-1)!.data.every((v) => v === 500)).toBe(true);
  });

  it('only mixes down stereo input at a listed rate', async () => {
    const stt = new RecordingSTT([48_000]);
    const stream = new SttStreamOpener(new VirtualClock()).open(stt, undefined, {});
    const done = drain(stream);
    stream.pushFrame(frameOf(48_000, 2, [-100, 300]));
    stream.endInput();
    await done;
    expect(stt.frames).toHaveLength(1);
    expect(stt.frames[0]).toMatchObject({ sampleRate: 48_000, channels: 1, samplesPerChannel: 960 });
    expect(stt.frames[0]!.data.every((v) => v === 100)).toBe(true);
  });

  it('opens the recognizer at the first frame, with the session options and the chosen rate', async () => {
    const stt = new RecordingSTT([8_000, 16_000]);
    const problems: ProviderProblem[] = [];
    const onProblem = (p: ProviderProblem): void => void problems.push(p);
    const controller = new AbortController();
    const stream = new SttStreamOpener(new VirtualClock()).open(stt, undefined, {
      language: 'nl',
      onProblem,
      signal: controller.signal,
    });
    stream.flush(); // nothing heard yet: nothing to finalize, nothing opened
    expect(stt.opened).toHaveLength(0);
    const done = drain(stream);
    stream.pushFrame(frameOf(44_100, 1, [0]));
    expect(stt.opened).toHaveLength(1);
    expect(stt.opened[0]).toMatchObject({ sampleRate: 8_000, language: 'nl', onProblem });
    expect(stt.opened[0]!.signal).toBe(controller.signal);
    // Aborting the session's signal closes the stream.
    controller.abort();
    await done;
    expect(stt.closed).toBe(true);
  });

  it('ends at once, without opening the recognizer, when the input ends before any frame', async () => {
    const stt = new RecordingSTT([16_000]);
    const stream = new SttStreamOpener(new VirtualClock()).open(stt, undefined, {});
    const done = drain(stream);
    stream.endInput();
    await expect(done).resolves.toEqual([]);
    expect(stt.opened).toHaveLength(0);
  });

  it('fails the stream iteration, not the open call, when the recognizer throws on opening', async () => {
    const failure = new APIConnectionError('no socket');
    const broken: StreamingSTT = {
      specificationVersion: SPECIFICATION_VERSION,
      kind: 'streaming',
      label: 'broken',
      inputSampleRates: [16_000],
      stream: () => {
        throw failure;
      },
    };
    const stream = new SttStreamOpener(new VirtualClock()).open(broken, undefined, {});
    const done = drain(stream);
    expect(() => stream.pushFrame(frameOf(16_000, 1, [0]))).not.toThrow();
    stream.pushFrame(frameOf(16_000, 1, [0])); // ignored after the failure
    await expect(done).rejects.toBe(failure);
  });
});

/** Scripted utterances: speech starts on frame 1 and ends on frame 2 of each stream. */
class TwoFrameVAD implements VAD {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'two-frame-vad';
  stream(): VADStream {
    const events = new Channel<VADEvent>({ capacity: 8, overflow: 'drop-oldest' });
    const frames: AudioFrame[] = [];
    return {
      pushFrame(frame) {
        frames.push(frame);
        const at = frames.length * 20;
        if (frames.length === 1) {
          events.trySend({ type: 'start_of_speech', timestampMs: 0, speechDurationMs: 20, frames: [frame] });
        }
        if (frames.length === 2) {
          events.trySend({
            type: 'end_of_speech',
            timestampMs: at,
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

/** Fails the first recognition of every utterance with a retryable error, then hears its frames. */
class FlakyBatchSTT implements BatchSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'flaky-batch';
  readonly inputSampleRates = [16_000];
  readonly calls: STTStreamOptions[] = [];
  async recognize(frames: readonly AudioFrame[], options: STTStreamOptions): Promise<SpeechAlternative[]> {
    this.calls.push(options);
    if (this.calls.length % 2 === 1) throw new APIConnectionError('blip');
    return [{ text: `heard ${frames.length}`, language: options.language ?? 'en' }];
  }
}

describe('SttStreamOpener: recognizers that cannot stream', () => {
  it('refuses a batch recognizer without a VAD with MissingVADError', () => {
    const stt = new FlakyBatchSTT();
    const opener = new SttStreamOpener(new VirtualClock());
    let error: unknown;
    try {
      opener.open(stt, undefined, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingVADError);
    expect(error).toBeInstanceOf(VoxwireError);
    expect((error as Error).message).toContain('flaky-batch');
    expect(stt.calls).toHaveLength(0);
  });

  it('drives a batch recognizer through the VAD, at the rate it accepts', async () => {
    const stt = new FlakyBatchSTT();
    const clock = new VirtualClock();
    const problems: ProviderProblem[] = [];
    const stream = new SttStreamOpener(clock).open(stt, new TwoFrameVAD(), {
      language: 'sv',
      onProblem: (p) => problems.push(p),
    });
    const done = drain(stream);
    stream.pushFrame(frameOf(48_000, 1, [0]));
    stream.pushFrame(frameOf(48_000, 1, [0]));
    stream.pushFrame(frameOf(48_000, 1, [0]));
    stream.endInput();
    const events = await done;
    expect(events).toEqual([
      { type: 'start_of_speech' },
      {
        type: 'final_transcript',
        alternatives: [{ text: expect.stringMatching(/^heard \d+$/), language: 'sv' }],
      },
      { type: 'end_of_speech' },
    ]);
    expect(stt.calls.map((c) => [c.sampleRate, c.language])).toEqual([
      [16_000, 'sv'],
      [16_000, 'sv'],
    ]);
    expect(problems.map((p) => p.type)).toEqual(['retrying']);
  });

  it("gives every session its own adapter: each session's retries run on its own clock", async () => {
    // One recognizer and one VAD shared by two sessions, each on its own clock, advanced by hand.
    const stt = new FlakyBatchSTT();
    const vad = new TwoFrameVAD();
    const clocks = [new VirtualClock({ autoAdvance: false }), new VirtualClock({ autoAdvance: false })];
    const openers = clocks.map((clock) => new SttStreamOpener(clock));
    const settle = async (): Promise<void> => {
      for (const clock of clocks) await clock.advance(0);
    };

    for (const [index, opener] of openers.entries()) {
      const own = clocks[index]!;
      const other = clocks[1 - index]!;
      const retries: Array<Extract<ProviderProblem, { type: 'retrying' }>> = [];
      const stream = opener.open(stt, vad, {
        onProblem: (p) => {
          if (p.type === 'retrying') retries.push(p);
        },
      });
      const events: STTEvent[] = [];
      const done = (async () => {
        for await (const event of stream) events.push(event);
      })();
      stream.pushFrame(frameOf(16_000, 1, [0]));
      stream.pushFrame(frameOf(16_000, 1, [0]));
      await settle();
      // The first recognition failed: its backoff waits on this session's clock, not the other's.
      expect(retries).toHaveLength(1);
      expect(own.pendingTimers).toBe(1);
      expect(other.pendingTimers).toBe(0);
      const callsBefore = stt.calls.length;
      await other.advance(retries[0]!.delayMs);
      await settle();
      expect(stt.calls).toHaveLength(callsBefore);
      await own.advance(retries[0]!.delayMs);
      await settle();
      expect(stt.calls).toHaveLength(callsBefore + 1);
      expect(events.map((e) => e.type)).toEqual(['start_of_speech', 'final_transcript', 'end_of_speech']);
      stream.endInput();
      await done;
      await stream.close();
    }
    expect(stt.calls).toHaveLength(4);
  });
});
