import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AudioFrame } from '@voxwire/agents';
import type { VADEvent } from '@voxwire/agents/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SileroInferenceError } from './errors.js';
import type { WorkerExecutor } from './executor.js';
import { PlacementPolicy, type PlacementSettings } from './placement.js';
import { createExecutorFactory } from './pool.js';
import { buildPackage, type TestBuild } from './test-support/build.js';
import { audioToolsAvailable, makeFixture, type Part } from './test-support/fixtures.js';
import { framesOf, runStream, segmentsOf } from './test-support/run.js';
import { DEFAULT_MODEL_PATH, openWithExecutor, SileroVAD } from './vad.js';

const tools = audioToolsAvailable();
const TIMELINE: Part[] = [
  { silenceMs: 700 },
  { say: 'the quick brown fox jumps over the lazy dog' },
  { silenceMs: 1200 },
];

const probabilities = (events: VADEvent[]) =>
  events.flatMap((e) => (e.type === 'inference_done' ? [e.probability] : []));

async function pacedStream(vad: SileroVAD, frames: AudioFrame[]): Promise<VADEvent[]> {
  const stream = vad.stream();
  const events: VADEvent[] = [];
  const reading = (async () => {
    for await (const event of stream) events.push(event);
  })();
  let audioMs = 0;
  for (const frame of frames) {
    stream.pushFrame(frame);
    audioMs += (frame.samplesPerChannel * 1000) / frame.sampleRate;
    if (audioMs >= 100) {
      audioMs = 0;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  stream.endInput();
  await reading;
  await stream.close();
  return events;
}

/** 'auto' with the real executors and a policy given by the test; `started` counts the workers started. */
function autoWithRealExecutors(
  workerUrl: URL,
  settings: PlacementSettings,
  warnings: string[],
  key: string,
  started = { workers: 0 },
) {
  const workers = createExecutorFactory('workers', workerUrl);
  return openWithExecutor(
    { modelPath: DEFAULT_MODEL_PATH, workers: 2, maxBatchSize: 7 },
    createExecutorFactory('main-thread'),
    key,
    {
      workers: (s) => {
        started.workers++;
        return workers(s);
      },
      policy: new PlacementPolicy(settings),
      warn: (message) => warnings.push(message),
    },
  );
}

describe.skipIf(!tools)('inference in worker threads (built worker)', () => {
  let built: TestBuild;
  let workers: SileroVAD;
  let inline: SileroVAD;

  beforeAll(async () => {
    built = await buildPackage();
    workers = await SileroVAD.load({ inference: 'workers', workerUrl: built.workerUrl, workers: 2 });
    inline = await SileroVAD.load({ inference: 'main-thread' });
  });
  afterAll(async () => {
    await workers?.close();
    await inline?.close();
    built?.dispose();
  });

  it('gives the same probabilities as inference on the main thread', async () => {
    expect(workers.inference).toBe('workers');
    const fixture = makeFixture(TIMELINE, 16000);
    const frames = framesOf(fixture, 20);
    const [a, b] = await Promise.all([runStream(workers, frames), runStream(inline, frames)]);
    expect(probabilities(a)).toHaveLength(probabilities(b).length);
    const expected = probabilities(b);
    for (const [i, p] of probabilities(a).entries()) expect(p).toBeCloseTo(expected[i]!, 5);
    const segments = segmentsOf(a);
    expect(segments).toHaveLength(1);
    expect(Math.abs(segments[0]!.startMs - fixture.segments[0]!.startMs)).toBeLessThanOrEqual(100);
    expect(Math.abs(segments[0]!.endMs - fixture.segments[0]!.endMs)).toBeLessThanOrEqual(100);
  });

  it('batches many streams without mixing their states', async () => {
    const fixtures = [16000, 24000, 48000, 8000].map((rate) => makeFixture(TIMELINE, rate));
    const alone = await Promise.all(fixtures.map((f) => runStream(inline, framesOf(f, 20))));
    // 12 concurrent streams over four different inputs, offset so rows of one batch differ.
    const together = await Promise.all(
      Array.from({ length: 12 }, (_, i) => runStream(workers, framesOf(fixtures[i % 4]!, 10 + (i % 3) * 10))),
    );
    expectSameAsAlone(together, alone);
  });

  it('recovers when a worker dies mid-stream', async () => {
    const vad = await SileroVAD.load({
      inference: 'workers',
      workerUrl: built.workerUrl,
      workers: 1,
      maxBatchSize: 7,
    });
    try {
      const slots = (vad as unknown as { pool: { slots: { executor?: WorkerExecutor }[] } }).pool.slots;
      const fixture = makeFixture(TIMELINE, 16000);
      const errors: SileroInferenceError[] = [];
      const stream = vad.stream({
        onProblem: (p) => {
          if (p.type === 'audio_dropped' && p.error instanceof SileroInferenceError) errors.push(p.error);
        },
      });
      const events: VADEvent[] = [];
      const reading = (async () => {
        for await (const e of stream) events.push(e);
      })();
      const frames = framesOf(fixture, 20);
      const half = frames.length >> 1;
      for (const frame of frames.slice(0, half)) stream.pushFrame(frame);
      while (stream.processedAudioMs < 300) await new Promise((r) => setTimeout(r, 1));
      slots[0]!.executor!.crashOnNextRun();
      for (const frame of frames.slice(half)) stream.pushFrame(frame);
      stream.endInput();
      await reading;
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(errors[0]!.code).toBe('inference_failed');
      // Analysis went on after a new worker started: the whole input was covered.
      expect(probabilities(events).length).toBe(Math.floor(fixture.samples.length / 512));
      expect(probabilities(events).at(-1)).toBeLessThan(0.1);
      expect(slots[0]!.executor!.alive).toBe(true);
    } finally {
      await vad.close();
    }
  });

  it("'auto' finds the worker, runs a light load on the main thread and starts no worker", async () => {
    const vad = await SileroVAD.load({ workerUrl: built.workerUrl });
    try {
      expect(vad.inference).toBe('auto');
      const events = await runStream(vad, framesOf(makeFixture(TIMELINE, 16000), 20));
      expect(probabilities(events).length).toBeGreaterThan(50);
      expect(vad.placement).toBe('main-thread');
      expect((vad as unknown as { pool: { workerSlots: unknown[] } }).pool.workerSlots).toHaveLength(0);
    } finally {
      await vad.close();
    }
  });

  it("'auto' moving batches between the main thread and real workers keeps every stream's probabilities", async () => {
    const warnings: string[] = [];
    const started = { workers: 0 };
    // Moves after every batch, both ways: the harshest schedule for the states.
    const vad = await autoWithRealExecutors(
      built.workerUrl,
      {
        startShare: -1,
        returnShare: Number.POSITIVE_INFINITY,
        windowMs: 1000,
        returnAfterMs: 0,
        retryAfterMs: 0,
      },
      warnings,
      'auto-flapping',
      started,
    );
    try {
      const fixtures = [16000, 24000, 48000, 8000].map((rate) => makeFixture(TIMELINE, rate));
      const alone = await Promise.all(fixtures.map((f) => runStream(inline, framesOf(f, 20))));
      // Paced at about five times real time, so the run outlasts several worker start-ups.
      const together = await Promise.all(
        Array.from({ length: 10 }, (_, i) => pacedStream(vad, framesOf(fixtures[i % 4]!, 10 + (i % 3) * 10))),
      );
      expectSameAsAlone(together, alone);
      expect(warnings).toEqual([]);
      // Workers were started, retired and started again while the streams ran.
      expect(started.workers).toBeGreaterThanOrEqual(4);
    } finally {
      await vad.close();
    }
  });

  it("'auto' runs the batch of a worker that died again on the main thread: no window lost", async () => {
    const warnings: string[] = [];
    const vad = await autoWithRealExecutors(
      built.workerUrl,
      { startShare: -1, returnShare: 0, windowMs: 1000, returnAfterMs: 0, retryAfterMs: 1e12 },
      warnings,
      'auto-crash',
    );
    try {
      const pool = (vad as unknown as { pool: { workerSlots: { executor?: WorkerExecutor }[] } }).pool;
      const fixture = makeFixture(TIMELINE, 16000);
      const problems: unknown[] = [];
      const stream = vad.stream({ onProblem: (p) => problems.push(p) });
      const events: VADEvent[] = [];
      const reading = (async () => {
        for await (const e of stream) events.push(e);
      })();
      const frames = framesOf(fixture, 20);
      const half = frames.length >> 1;
      for (const frame of frames.slice(0, half)) stream.pushFrame(frame);
      while (vad.placement !== 'workers' || stream.processedAudioMs < 300) {
        await new Promise((r) => setTimeout(r, 1));
      }
      for (const slot of pool.workerSlots) slot.executor!.crashOnNextRun();
      for (const frame of frames.slice(half)) stream.pushFrame(frame);
      stream.endInput();
      await reading;
      expect(problems).toEqual([]);
      expect(warnings).toEqual([expect.stringMatching(/moved inference back to the main thread/)]);
      expect(vad.placement).toBe('main-thread');
      const expected = probabilities(await runStream(inline, frames));
      const got = probabilities(events);
      expect(got).toHaveLength(expected.length);
      for (const [k, p] of got.entries()) expect(p).toBeCloseTo(expected[k]!, 4);
    } finally {
      await vad.close();
    }
  });

  it('lets process.exit() during inference exit cleanly', async () => {
    const script = join(built.root, 'exit.mjs');
    writeFileSync(
      script,
      `import { SileroVAD } from './dist/index.js';
const vad = await SileroVAD.load();
let seed = 1;
const noise = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 4000) - 2000;
for (let s = 0; s < 40; s++) {
  const stream = vad.stream();
  for (let i = 0; i < 500; i++) stream.pushFrame({ data: Int16Array.from({ length: 320 }, noise), sampleRate: 16000, channels: 1, samplesPerChannel: 320 });
}
setTimeout(() => process.exit(0), 30);
`,
    );
    // Without the exit hook, onnxruntime aborts the process (SIGABRT) when Node tears a worker down mid-run.
    await expect(promisify(execFile)(process.execPath, [script], { timeout: 20_000 })).resolves.toBeDefined();
  });

  it('starts its workers from code run with node --input-type=module -e', async () => {
    // 'auto' starts its workers only under load: ask for them, which is what this is about.
    const code = `const { SileroVAD } = await import(${JSON.stringify(built.indexUrl.href)});
const vad = await SileroVAD.load({ inference: 'workers' });
console.log(vad.inference, vad.modelGraph);
await vad.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe('workers batched');
  });

  it('starts its workers when Node runs with V8 flags (--max-old-space-size, --expose-gc)', async () => {
    // 'auto' starts its workers only under load: ask for them, which is what this is about.
    const code = `const { SileroVAD } = await import(${JSON.stringify(built.indexUrl.href)});
const vad = await SileroVAD.load({ inference: 'workers' });
console.log(vad.inference, vad.modelGraph);
await vad.close();`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--max-old-space-size=512', '--expose-gc', '--input-type=module', '-e', code],
      { timeout: 20_000 },
    );
    expect(stdout.trim()).toBe('workers batched');
  });

  it('finds its worker next to the built bundle and does not keep an idle process alive', async () => {
    const script = join(built.root, 'main.mjs');
    // Without workerUrl, 'workers' fails unless the worker is found next to the bundle.
    writeFileSync(
      script,
      `import { SileroVAD } from './dist/index.js';
const vad = await SileroVAD.load({ inference: 'workers' });
const stream = vad.stream();
const frames = [];
for (let i = 0; i < 50; i++) stream.pushFrame({ data: new Int16Array(320), sampleRate: 16000, channels: 1, samplesPerChannel: 320 });
stream.endInput();
let n = 0;
for await (const e of stream) if (e.type === 'inference_done') n++;
console.log(JSON.stringify({ inference: vad.inference, windows: n }));
// No close(): an idle pool must not hold the process open.
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 20_000 });
    expect(JSON.parse(stdout)).toEqual({ inference: 'workers', windows: 31 });
  });
});

/** Stream i ran input i % 4 alongside others: its probabilities are those of that input run alone. */
function expectSameAsAlone(together: VADEvent[][], alone: VADEvent[][]): void {
  together.forEach((events, i) => {
    const expected = probabilities(alone[i % 4]!);
    const got = probabilities(events);
    expect(got).toHaveLength(expected.length);
    for (const [k, p] of got.entries()) expect(p).toBeCloseTo(expected[k]!, 4);
  });
}
