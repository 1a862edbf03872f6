import { AudioFrame, InvalidAudioError } from '@voxwire/agents';
import type { ProviderProblem, VADEvent } from '@voxwire/agents/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { SileroInferenceError } from './errors.js';
import type { SileroVADOptions } from './options.js';
import { FakeModel, probabilityAudio, repeat } from './test-support/fake-model.js';
import { framesOf, runStream } from './test-support/run.js';
import { openWithExecutor, type SileroVAD } from './vad.js';

let opened: SileroVAD[] = [];
let keys = 0;

async function fakeVad(
  options: SileroVADOptions = {},
  model = new FakeModel(),
): Promise<{ vad: SileroVAD; model: FakeModel }> {
  const vad = await openWithExecutor(options, model.factory(), `fake-${keys++}`);
  opened.push(vad);
  return { vad, model };
}

afterEach(async () => {
  await Promise.all(opened.map((vad) => vad.close()));
  opened = [];
});

const pcm16 = (samples: Int16Array) => ({ samples, sampleRate: 16000 });
const of = <T extends VADEvent['type']>(events: VADEvent[], type: T) =>
  events.filter((e): e is Extract<VADEvent, { type: T }> => e.type === type);

describe('windowing', () => {
  const audio = probabilityAudio([0.1, 0.2, 0.3, 0.4, 0.3, 0.2, 0.1, 0.05, 0.15, 0.25]);

  for (const frameMs of [7, 10, 20, 30, 1000]) {
    it(`cuts ${frameMs} ms frames into the same 512-sample windows with their 64-sample context`, async () => {
      const { vad, model } = await fakeVad();
      const events = await runStream(vad, framesOf(pcm16(audio), frameMs));
      const done = of(events, 'inference_done');
      expect(done.map((e) => e.timestampMs)).toEqual([32, 64, 96, 128, 160, 192, 224, 256, 288, 320]);
      expect(done.map((e) => Math.round(e.probability * 100) / 100)).toEqual([
        0.1, 0.2, 0.3, 0.4, 0.3, 0.2, 0.1, 0.05, 0.15, 0.25,
      ]);
      const rows = model.calls.flatMap((c) => c.rows);
      expect(rows[0]!.context.every((v) => v === 0)).toBe(true);
      for (let i = 1; i < rows.length; i++) {
        expect(Array.from(rows[i]!.context)).toEqual(Array.from(rows[i - 1]!.window.slice(512 - 64)));
      }
      // One window in flight per stream; its state travels from call to call.
      expect(rows.map((r) => r.stateCounter)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });
  }

  it('runs 8 kHz models on 256-sample windows with a 32-sample context', async () => {
    const { vad, model } = await fakeVad({ sampleRate: 8000 });
    const samples = probabilityAudio(repeat(0.2, 6), 256);
    const events = await runStream(vad, framesOf({ samples, sampleRate: 8000 }, 20));
    expect(of(events, 'inference_done').map((e) => e.timestampMs)).toEqual([32, 64, 96, 128, 160, 192]);
    expect(model.calls.every((c) => c.rate === 8000)).toBe(true);
    expect(model.calls.flatMap((c) => c.rows)[1]!.context).toHaveLength(32);
  });

  it('resamples other rates and downmixes stereo', async () => {
    const { vad, model } = await fakeVad();
    const mono = new Int16Array(48000).fill(Math.round(0.6 * 32767));
    const stereo = new Int16Array(2 * mono.length);
    for (let i = 0; i < mono.length; i++) {
      stereo[2 * i] = mono[i]! + 1000;
      stereo[2 * i + 1] = mono[i]! - 1000;
    }
    const frames: AudioFrame[] = [];
    for (let at = 0; at < mono.length; at += 480) {
      frames.push(new AudioFrame(stereo.slice(2 * at, 2 * (at + 480)), 48000, 2, 480));
    }
    const events = await runStream(vad, frames);
    const done = of(events, 'inference_done');
    expect(done).toHaveLength(31); // 1 s at 16 kHz = 31.25 windows
    expect(done[10]!.probability).toBeCloseTo(0.6, 2);
    expect(model.calls.every((c) => c.rate === 16000)).toBe(true);
    const start = of(events, 'start_of_speech')[0]!;
    expect(start.frames[0]!.sampleRate).toBe(48000);
    expect(start.frames[0]!.channels).toBe(1);
  });

  it('rejects a change of sample rate mid-stream', async () => {
    const { vad } = await fakeVad();
    const stream = vad.stream();
    stream.pushFrame(AudioFrame.silence(16000, 1, 160));
    expect(() => stream.pushFrame(AudioFrame.silence(48000, 1, 480))).toThrow(InvalidAudioError);
    await stream.close();
  });
});

describe('speech detection', () => {
  it('starts after min speech, keeps speaking through uncertain windows, ends after min silence', async () => {
    const { vad } = await fakeVad({
      minSpeechDurationMs: 50,
      minSilenceDurationMs: 550,
      prefixPaddingDurationMs: 0,
    });
    // 10 silent, 2 speech (64 ms >= 50), 5 uncertain (0.4: between 0.35 and 0.5), 3 speech, 20 silent.
    const probabilities = [
      ...repeat(0, 10),
      ...repeat(0.9, 2),
      ...repeat(0.4, 5),
      ...repeat(0.9, 3),
      ...repeat(0, 20),
    ];
    const events = await runStream(vad, framesOf(pcm16(probabilityAudio(probabilities)), 20));
    const starts = of(events, 'start_of_speech');
    const ends = of(events, 'end_of_speech');
    expect(starts).toHaveLength(1);
    expect(ends).toHaveLength(1);
    expect(starts[0]!.timestampMs).toBe(320);
    expect(starts[0]!.speechDurationMs).toBe(64);
    // The end is the end of the last confident window; 18 windows of silence (576 ms) confirm it.
    expect(ends[0]!.timestampMs).toBe(640);
    expect(ends[0]!.timestampMs - starts[0]!.timestampMs).toBe(320);
    expect(ends[0]!.silenceDurationMs).toBe(576);
    const confirmedAt = events.indexOf(ends[0]!);
    const before = events[confirmedAt - 1] as Extract<VADEvent, { type: 'inference_done' }>;
    expect(before.type).toBe('inference_done');
    expect(before.timestampMs).toBe(1216);
    expect(before.speaking).toBe(false);
    // speaking flags follow the detector
    const speaking = of(events, 'inference_done').map((e) => e.speaking);
    expect(speaking.slice(0, 11).every((s) => !s)).toBe(true);
    expect(speaking.slice(11, 37).every((s) => s)).toBe(true);
  });

  it("keeps every utterance's frames intact while later utterances are detected", async () => {
    const { vad } = await fakeVad({ minSilenceDurationMs: 100, prefixPaddingDurationMs: 0 });
    const levels = [0.9, 0.7, 0.8];
    const probabilities = levels.flatMap((p) => [...repeat(0, 8), ...repeat(p, 6)]).concat(repeat(0, 8));
    const events = await runStream(vad, framesOf(pcm16(probabilityAudio(probabilities)), 20));
    const starts = of(events, 'start_of_speech');
    const ends = of(events, 'end_of_speech');
    expect(ends).toHaveLength(3);
    // Read only after the whole stream ran: frames handed out earlier must not have been overwritten.
    for (const [i, level] of levels.entries()) {
      const speech = ends[i]!.frames[0]!.data;
      expect(speech.length).toBeGreaterThanOrEqual(6 * 512);
      expect(speech.slice(0, 6 * 512).every((v) => v === Math.round(level * 32767))).toBe(true);
      expect(starts[i]!.frames[0]!.data.every((v) => v === Math.round(level * 32767))).toBe(true);
    }
  });

  it('ignores speech shorter than the minimum, and silence shorter than the minimum', async () => {
    const { vad } = await fakeVad({ minSpeechDurationMs: 100, minSilenceDurationMs: 200 });
    const probabilities = [
      ...repeat(0, 5),
      ...repeat(0.9, 3), // 96 ms < 100: a click, not speech
      ...repeat(0, 5),
      ...repeat(0.9, 4), // 128 ms: speech
      ...repeat(0, 5), // 160 ms < 200: a pause inside the utterance
      ...repeat(0.9, 4),
      ...repeat(0, 10),
    ];
    const events = await runStream(vad, framesOf(pcm16(probabilityAudio(probabilities)), 30));
    expect(of(events, 'start_of_speech').map((e) => e.timestampMs)).toEqual([13 * 32]);
    expect(of(events, 'end_of_speech').map((e) => e.timestampMs)).toEqual([26 * 32]);
  });

  it('applies custom thresholds', async () => {
    const { vad } = await fakeVad({
      activationThreshold: 0.3,
      deactivationThreshold: 0.1,
      minSpeechDurationMs: 0,
    });
    const events = await runStream(
      vad,
      framesOf(pcm16(probabilityAudio([0, 0.35, 0.2, 0.2, 0.05, ...repeat(0, 20)])), 10),
    );
    expect(of(events, 'start_of_speech').map((e) => e.timestampMs)).toEqual([32]);
    expect(of(events, 'end_of_speech').map((e) => e.timestampMs)).toEqual([64]);
  });

  it('includes prefix padding in the speech frames, at the input rate', async () => {
    const { vad } = await fakeVad({
      prefixPaddingDurationMs: 100,
      minSpeechDurationMs: 64,
      minSilenceDurationMs: 64,
    });
    const probabilities = [...repeat(0.01, 20), ...repeat(0.9, 10), ...repeat(0, 4)];
    const samples = probabilityAudio(probabilities);
    for (let i = 0; i < samples.length; i++) samples[i] = samples[i]! + (i % 7); // mark positions
    const events = await runStream(vad, framesOf(pcm16(samples), 20));
    const start = of(events, 'start_of_speech')[0]!;
    const end = of(events, 'end_of_speech')[0]!;
    expect(start.timestampMs).toBe(640);
    const first = (640 - 100) * 16;
    const startFrame = start.frames[0]!;
    expect(startFrame.samplesPerChannel).toBe((704 - 540) * 16); // padding + 2 windows of confirmation
    expect(Array.from(startFrame.data.slice(0, 50))).toEqual(Array.from(samples.slice(first, first + 50)));
    const endFrame = end.frames[0]!;
    expect(end.timestampMs).toBe(960);
    expect(endFrame.samplesPerChannel).toBe((1024 - 540) * 16); // through the confirming silence
    expect(Array.from(endFrame.data)).toEqual(Array.from(samples.slice(first, 1024 * 16)));
    expect(endFrame.sampleRate).toBe(16000);
  });

  it('caps the buffered speech', async () => {
    const { vad } = await fakeVad({
      maxBufferedSpeechMs: 320,
      prefixPaddingDurationMs: 0,
      minSilenceDurationMs: 100,
    });
    const events = await runStream(
      vad,
      framesOf(pcm16(probabilityAudio([...repeat(0.9, 50), ...repeat(0, 10)])), 20),
    );
    const end = of(events, 'end_of_speech')[0]!;
    expect(end.timestampMs - of(events, 'start_of_speech')[0]!.timestampMs).toBe(1600);
    expect(end.frames[0]!.durationMs).toBe(320);
  });

  it('emits inference_done at the update interval', async () => {
    const { vad } = await fakeVad({ updateIntervalMs: 100 });
    const events = await runStream(vad, framesOf(pcm16(probabilityAudio(repeat(0.1, 20))), 20));
    expect(of(events, 'inference_done').map((e) => e.timestampMs)).toEqual([32, 160, 288, 416, 544]);
  });

  it('ends a running utterance when input ends', async () => {
    const { vad } = await fakeVad();
    const events = await runStream(
      vad,
      framesOf(pcm16(probabilityAudio([...repeat(0, 3), ...repeat(0.9, 10)])), 20),
    );
    const end = of(events, 'end_of_speech');
    expect(end).toHaveLength(1);
    expect(end[0]!.timestampMs).toBe(13 * 32);
    expect(end[0]!.timestampMs - of(events, 'start_of_speech')[0]!.timestampMs).toBe(320);
  });
});

describe('sharing the model', () => {
  it('batches windows of concurrent streams, each with its own state row', async () => {
    const { vad, model } = await fakeVad({ maxBatchSize: 32 });
    const streams = Array.from({ length: 8 }, (_, i) => ({
      probabilities: repeat((i + 1) / 10, 12),
    }));
    const results = await Promise.all(
      streams.map((s) => runStream(vad, framesOf(pcm16(probabilityAudio(s.probabilities)), 20))),
    );
    results.forEach((events, i) => {
      const done = of(events, 'inference_done');
      expect(done).toHaveLength(12);
      for (const e of done) expect(e.probability).toBeCloseTo((i + 1) / 10, 3);
    });
    // Every stream pushed in the same tick, so windows travel together, several steps per call.
    expect(Math.max(...model.calls.map((c) => c.batch))).toBe(8);
    expect(model.calls.length).toBeLessThanOrEqual(4);
    for (const call of model.calls) {
      expect(call.rows).toHaveLength(call.batch * call.steps);
      for (let step = 0; step < call.steps; step++) {
        const counters = call.rows
          .slice(step * call.batch, (step + 1) * call.batch)
          .map((r) => r.stateCounter);
        expect(new Set(counters).size).toBe(1); // all streams are at the same window, each row its own
      }
    }
  });

  it('runs one window per call for live streams and several for a backlog', async () => {
    const { vad, model } = await fakeVad();
    const stream = vad.stream();
    const reading = (async () => {
      for await (const _ of stream) {
        // drain
      }
    })();
    const frames = framesOf(pcm16(probabilityAudio(repeat(0.1, 40))), 32);
    for (const frame of frames.slice(0, 4)) {
      stream.pushFrame(frame);
      await new Promise((r) => setTimeout(r, 2));
    }
    for (const frame of frames.slice(4)) stream.pushFrame(frame);
    stream.endInput();
    await reading;
    expect(model.calls.slice(0, 4).map((c) => c.steps)).toEqual([1, 1, 1, 1]);
    // The whole backlog in one round trip: one row leaves room in the buffer for up to MAX_STEPS.
    expect(model.calls[4]!.steps).toBe(36);
    expect(model.calls.reduce((n, c) => n + c.steps, 0)).toBe(40);
  });

  it('holds a live window for the streams still coming until maxBatchDelayMs, and no longer', async () => {
    const { vad, model } = await fakeVad({ maxBatchDelayMs: 40 });
    const streams = [vad.stream(), vad.stream(), vad.stream()];
    const window = framesOf(pcm16(probabilityAudio([0.3])), 32)[0]!;
    const calledAt: number[] = [];
    const original = model.calls.push.bind(model.calls);
    model.calls.push = (...calls) => {
      calledAt.push(performance.now());
      return original(...calls);
    };
    // Two of three active streams have a window: the batch waits for the third, up to the deadline.
    const start = performance.now();
    streams[0]!.pushFrame(window);
    streams[1]!.pushFrame(window);
    await new Promise((r) => setTimeout(r, 20));
    expect(model.calls).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 150));
    expect(model.calls.map((c) => c.batch)).toEqual([2]);
    // The timer may lag the deadline by a little, never lead it by more than its 1 ms slack.
    expect(calledAt[0]! - start).toBeGreaterThanOrEqual(39);
    // Once every active stream has a window waiting, the batch leaves at once: nobody else can join.
    const pool = (vad as unknown as { pool: { timer: unknown } }).pool;
    streams[0]!.pushFrame(window);
    streams[1]!.pushFrame(window);
    await new Promise((r) => setTimeout(r, 5));
    expect(pool.timer).toBeDefined();
    const second = performance.now();
    streams[2]!.pushFrame(window);
    await new Promise((r) => setTimeout(r, 5));
    expect(model.calls.map((c) => c.batch)).toEqual([2, 3]);
    expect(calledAt[1]! - second).toBeLessThan(20);
    // Nothing waits any more, so the deadline timer is gone instead of waking the thread for nothing.
    expect(pool.timer).toBeUndefined();
    await Promise.all(streams.map((s) => s.close()));
  });

  it('respects maxBatchSize', async () => {
    const { vad, model } = await fakeVad({ maxBatchSize: 3 });
    await Promise.all(
      Array.from({ length: 7 }, () => runStream(vad, framesOf(pcm16(probabilityAudio(repeat(0.1, 4))), 20))),
    );
    expect(Math.max(...model.calls.map((c) => c.batch))).toBe(3);
    expect(model.calls.flatMap((c) => c.rows)).toHaveLength(28);
  });
});

describe('failures', () => {
  it('reports a failed inference, resets the stream state and carries on', async () => {
    const model = new FakeModel();
    model.failOn.add(1);
    const { vad } = await fakeVad({ minSilenceDurationMs: 64 }, model);
    const errors: SileroInferenceError[] = [];
    const stream = vad.stream({ onProblem: (p) => errors.push(problemError(p)) });
    const events: VADEvent[] = [];
    const reading = (async () => {
      for await (const e of stream) events.push(e);
    })();
    const frames = framesOf(pcm16(probabilityAudio(repeat(0.9, 8))), 32);
    for (const frame of frames.slice(0, 3)) stream.pushFrame(frame);
    await new Promise((r) => setTimeout(r, 5));
    for (const frame of frames.slice(3)) stream.pushFrame(frame);
    stream.endInput();
    await reading;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SileroInferenceError);
    expect(errors[0]!.code).toBe('inference_failed');
    expect(errors[0]!.timestampMs).toBe(96);
    expect(of(events, 'inference_done')).toHaveLength(8);
    expect(of(events, 'inference_done')[3]!.probability).toBe(0);
    const counters = model.calls.flatMap((c) => c.rows.map((r) => r.stateCounter));
    // Call 0 ran windows 0-2; call 1 (window 3 on) failed and recorded no row; the state restarted at 0.
    expect(counters).toEqual([0, 1, 2, 0, 1, 2, 3]);
  });

  it('drops audio it cannot keep up with and says so', async () => {
    const model = new FakeModel();
    let open!: () => void;
    model.gate = new Promise((resolve) => {
      open = resolve;
    });
    const { vad } = await fakeVad({ maxBacklogMs: 320 }, model);
    const errors: SileroInferenceError[] = [];
    const stream = vad.stream({ onProblem: (p) => errors.push(problemError(p)) });
    for (const frame of framesOf(pcm16(probabilityAudio(repeat(0.1, 10))), 20)) stream.pushFrame(frame);
    await new Promise((r) => setTimeout(r, 5));
    for (const frame of framesOf(pcm16(probabilityAudio(repeat(0.1, 40))), 20)) stream.pushFrame(frame);
    model.gate = undefined;
    open();
    stream.endInput();
    const events: VADEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(errors.some((e) => e.code === 'audio_dropped')).toBe(true);
    expect(stream.pendingAudioMs).toBe(0);
    const times = of(events, 'inference_done').map((e) => e.timestampMs);
    expect(times.at(-1)).toBe(1600); // timestamps still count the dropped audio
    expect(times.length).toBeLessThan(50);
  });

  it('close() ends iteration at once; an aborted signal closes the stream', async () => {
    const { vad } = await fakeVad();
    const stream = vad.stream();
    const reading = (async () => {
      const seen: VADEvent[] = [];
      for await (const e of stream) seen.push(e);
      return seen;
    })();
    stream.pushFrame(AudioFrame.silence(16000, 1, 1600));
    await stream.close();
    await expect(reading).resolves.toBeDefined();

    const controller = new AbortController();
    const aborted = vad.stream({ signal: controller.signal });
    const done = (async () => {
      for await (const _ of aborted) {
        // drain
      }
    })();
    aborted.pushFrame(AudioFrame.silence(16000, 1, 1600));
    controller.abort();
    await done;
    aborted.pushFrame(AudioFrame.silence(16000, 1, 1600)); // ignored after close
  });

  it('a stream opened with an aborted signal ends at once', async () => {
    const { vad } = await fakeVad();
    const stream = vad.stream({ signal: AbortSignal.abort() });
    stream.pushFrame(AudioFrame.silence(16000, 1, 1600));
    const seen: VADEvent[] = [];
    for await (const e of stream) seen.push(e);
    expect(seen).toEqual([]);
  });

  it('closing the VAD ends its streams', async () => {
    const { vad } = await fakeVad();
    const stream = vad.stream();
    const reading = (async () => {
      for await (const _ of stream) {
        // drain
      }
    })();
    await vad.close();
    await reading;
    expect(() => vad.stream()).toThrow(/closed/);
  });
});

describe('options', () => {
  it('validates', async () => {
    await expect(fakeVad({ activationThreshold: 0.3, deactivationThreshold: 0.4 })).rejects.toThrow(
      RangeError,
    );
    await expect(fakeVad({ activationThreshold: 1.5 })).rejects.toThrow(RangeError);
    await expect(fakeVad({ minSilenceDurationMs: -1 })).rejects.toThrow(RangeError);
    await expect(fakeVad({ sampleRate: 44100 as 16000 })).rejects.toThrow(RangeError);
    await expect(fakeVad({ workers: 0 })).rejects.toThrow(RangeError);
  });

  it('exposes the contract fields in ms', async () => {
    const { vad } = await fakeVad({
      minSilenceDurationMs: 400,
      minSpeechDurationMs: 80,
      updateIntervalMs: 64,
    });
    expect(vad.minSilenceDurationMs).toBe(400);
    expect(vad.minSpeechDurationMs).toBe(80);
    expect(vad.options.updateIntervalMs).toBe(64);
    expect(vad.options.deactivationThreshold).toBeCloseTo(0.35);
  });
});

/** The plugin's own error behind a reported problem. */
function problemError(problem: ProviderProblem): SileroInferenceError {
  if (problem.type !== 'audio_dropped' || !(problem.error instanceof SileroInferenceError)) {
    throw new Error(`unexpected problem ${JSON.stringify(problem)}`);
  }
  return problem.error;
}
