import { AudioFrame } from '@voxwire/agents';
import type { ProviderProblem, VADEvent } from '@voxwire/agents/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import type { InferenceExecutor } from './executor.js';
import { PlacementPolicy, type PlacementSettings } from './placement.js';
import type { AutoPlacement, ExecutorFactory } from './pool.js';
import { type FakeCall, FakeModel } from './test-support/fake-model.js';
import { openWithExecutor, type SileroVAD } from './vad.js';

/** Moves to the workers after every inline batch and back after every worker batch. */
const FLAPPING: PlacementSettings = {
  startShare: -1,
  returnShare: Number.POSITIVE_INFINITY,
  windowMs: 1000,
  returnAfterMs: 0,
  retryAfterMs: 0,
};
/** Moves to the workers at the first batch and stays there, never retrying after a failure. */
const STICKY: PlacementSettings = {
  startShare: -1,
  returnShare: 0,
  windowMs: 1000,
  returnAfterMs: 0,
  retryAfterMs: 1e12,
};

const WINDOW = 512;
/** Every (stream, window) has its own sample value, so each row a fake executor sees names its window. */
const sampleOf = (stream: number, window: number) => stream * 250 + window + 1;

interface Ran {
  where: 'inline' | 'worker';
  call: FakeCall;
}

interface FakeWorkers {
  factory: ExecutorFactory;
  created: number;
  closed: number;
}

let opened: SileroVAD[] = [];
let keys = 0;

afterEach(async () => {
  await Promise.all(opened.map((vad) => vad.close()));
  opened = [];
});

/** An executor that logs each batch it starts, in one log shared by every executor of a test. */
function logged(
  model: FakeModel,
  where: Ran['where'],
  log: Ran[],
  settingsOf: Parameters<ExecutorFactory>[0],
) {
  const inner = model.executor(settingsOf);
  let closed = false;
  let alive = true;
  const executor = {
    views: inner.views,
    graphs: inner.graphs,
    get alive() {
      return alive;
    },
    kill() {
      alive = false;
    },
    get closed() {
      return closed;
    },
    run(batch, steps, rate) {
      if (closed) return Promise.reject(new Error('run on a closed executor'));
      if (!alive) return Promise.reject(new Error('the Silero inference worker exited during a batch'));
      const running = inner.run(batch, steps, rate);
      log.push({ where, call: model.calls.at(-1) as FakeCall });
      return running;
    },
    async close() {
      closed = true;
    },
  } satisfies InferenceExecutor & Record<string, unknown>;
  return executor;
}

function fakeWorkers(
  model: FakeModel,
  log: Ran[],
  wrap?: (e: ReturnType<typeof logged>, index: number) => void,
) {
  const workers: FakeWorkers = { factory: async () => undefined as never, created: 0, closed: 0 };
  workers.factory = async (settings) => {
    const executor = logged(model, 'worker', log, settings);
    wrap?.(executor, workers.created);
    workers.created++;
    const close = executor.close;
    executor.close = async () => {
      if (!executor.closed) workers.closed++;
      await close();
    };
    return executor;
  };
  return workers;
}

async function autoVad(
  settings: PlacementSettings,
  workers: ExecutorFactory,
  log: Ran[],
  warnings: string[],
  inline = new FakeModel(),
): Promise<SileroVAD> {
  const auto: AutoPlacement = {
    workers,
    policy: new PlacementPolicy(settings),
    warn: (message) => warnings.push(message),
  };
  const factory: ExecutorFactory = async (s) => logged(inline, 'inline', log, s);
  // Small batches: a backlog then runs in many multi-step batches, and live rounds in two.
  const vad = await openWithExecutor({ workers: 2, maxBatchSize: 4 }, factory, `auto-${keys++}`, auto);
  opened.push(vad);
  return vad;
}

interface Fed {
  events: VADEvent[][];
  problems: ProviderProblem[];
}

/**
 * `streams` streams of `windows` windows each. Live: one window per stream per turn of the event loop,
 * so batches run while audio arrives; otherwise all at once (a backlog, run in multi-step batches).
 */
async function feed(vad: SileroVAD, streams: number, windows: number, live: boolean): Promise<Fed> {
  const fed: Fed = { events: [], problems: [] };
  const handles = Array.from({ length: streams }, (_, s) => {
    const events: VADEvent[] = [];
    fed.events.push(events);
    const stream = vad.stream({ onProblem: (p) => fed.problems.push(p) });
    const reading = (async () => {
      for await (const e of stream) events.push(e);
    })();
    return { stream, reading, s };
  });
  for (let k = 0; k < windows; k++) {
    for (const { stream, s } of handles) {
      stream.pushFrame(new AudioFrame(new Int16Array(WINDOW).fill(sampleOf(s, k)), 16000, 1, WINDOW));
    }
    if (live) await new Promise((resolve) => setImmediate(resolve));
  }
  for (const { stream } of handles) stream.endInput();
  await Promise.all(handles.map((h) => h.reading));
  return fed;
}

/**
 * Every window ran exactly once, in order within its stream, and with the state its stream left after
 * the window before (the fake's state counts windows): nothing lost, repeated or mixed up by switching.
 */
function expectEveryWindowOnce(log: Ran[], fed: Fed, streams: number, windows: number): void {
  expect(fed.problems).toEqual([]);
  const seen = Array.from({ length: streams }, () => [] as number[]);
  for (const { call } of log) {
    for (const row of call.rows) {
      const value = Math.round((row.window[0] as number) * 32768);
      const stream = Math.floor((value - 1) / 250);
      const window = value - 1 - stream * 250;
      expect(row.stateCounter).toBe(window);
      seen[stream]!.push(window);
    }
  }
  const all = Array.from({ length: windows }, (_, k) => k);
  for (let s = 0; s < streams; s++) {
    expect(seen[s]).toEqual(all);
    const done = fed.events[s]!.filter((e) => e.type === 'inference_done');
    expect(done.map((e) => e.timestampMs)).toEqual(all.map((k) => (k + 1) * 32));
  }
}

describe("inference: 'auto' placement (fake executors)", () => {
  for (const live of [true, false]) {
    it(`switches between batches without losing, repeating or reordering a window (${live ? 'live' : 'backlog'})`, async () => {
      const log: Ran[] = [];
      const warnings: string[] = [];
      const workers = fakeWorkers(new FakeModel(), log);
      const vad = await autoVad(FLAPPING, workers.factory, log, warnings);
      expect(vad.inference).toBe('auto');
      expect(vad.placement).toBe('main-thread');
      const fed = await feed(vad, 6, 80, live);
      expectEveryWindowOnce(log, fed, 6, 80);
      // Batches really moved back and forth, several times.
      let switches = 0;
      for (let i = 1; i < log.length; i++) if (log[i]!.where !== log[i - 1]!.where) switches++;
      expect(switches).toBeGreaterThanOrEqual(4);
      expect(warnings).toEqual([]);
      // Every worker started was retired, and closed once.
      await vad.close();
      expect(workers.created).toBeGreaterThanOrEqual(4);
      expect(workers.closed).toBe(workers.created);
    });
  }

  it('starts the workers once and sends later batches to them', async () => {
    const log: Ran[] = [];
    const warnings: string[] = [];
    const workers = fakeWorkers(new FakeModel(), log);
    const vad = await autoVad(STICKY, workers.factory, log, warnings);
    const fed = await feed(vad, 3, 40, true);
    expectEveryWindowOnce(log, fed, 3, 40);
    expect(vad.placement).toBe('workers');
    expect(workers.created).toBe(2);
    expect(log[0]!.where).toBe('inline');
    expect(log.at(-1)!.where).toBe('worker');
    // Once moved, no batch went back to the main thread.
    const first = log.findIndex((r) => r.where === 'worker');
    expect(log.slice(first).every((r) => r.where === 'worker')).toBe(true);
  });

  it('stays on the main thread while inference is light (default thresholds)', async () => {
    const log: Ran[] = [];
    const warnings: string[] = [];
    const workers = fakeWorkers(new FakeModel(), log);
    const vad = await autoVad(new PlacementPolicy().settings, workers.factory, log, warnings);
    // The fake reports 0.25 ms per batch: far below 6% of any window.
    const fed = await feed(vad, 4, 60, true);
    expectEveryWindowOnce(log, fed, 4, 60);
    expect(workers.created).toBe(0);
    expect(vad.placement).toBe('main-thread');
  });

  it('stays on the main thread, with one warning, when the workers cannot start', async () => {
    const log: Ran[] = [];
    const warnings: string[] = [];
    let attempts = 0;
    const failing: ExecutorFactory = async () => {
      attempts++;
      throw new Error('no threads today');
    };
    const vad = await autoVad(STICKY, failing, log, warnings);
    const fed = await feed(vad, 3, 40, true);
    expectEveryWindowOnce(log, fed, 3, 40);
    expect(log.every((r) => r.where === 'inline')).toBe(true);
    expect(attempts).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/keeps inference on the main thread.*no threads today/);
    expect(vad.placement).toBe('main-thread');
  });

  it('uses the workers that started when some could not', async () => {
    const log: Ran[] = [];
    const warnings: string[] = [];
    const model = new FakeModel();
    const good = fakeWorkers(model, log);
    let calls = 0;
    const half: ExecutorFactory = async (s) => {
      if (calls++ === 1) throw new Error('second one refused');
      return good.factory(s);
    };
    const vad = await autoVad(STICKY, half, log, warnings);
    const fed = await feed(vad, 3, 40, false);
    expectEveryWindowOnce(log, fed, 3, 40);
    expect(vad.placement).toBe('workers');
    expect(warnings).toEqual([expect.stringMatching(/1 of 2 worker threads.*second one refused/)]);
  });

  for (const live of [true, false]) {
    it(`runs a dead worker's batch again on the main thread and warns (${live ? 'live' : 'backlog'})`, async () => {
      const log: Ran[] = [];
      const warnings: string[] = [];
      let runs = 0;
      const workers = fakeWorkers(new FakeModel(), log, (executor) => {
        const run = executor.run;
        executor.run = (batch, steps, rate) => {
          // The third batch any worker is given dies with its worker, before it ran.
          if (++runs === 3) executor.kill();
          return run(batch, steps, rate);
        };
      });
      const vad = await autoVad(STICKY, workers.factory, log, warnings);
      const fed = await feed(vad, 5, 60, live);
      expectEveryWindowOnce(log, fed, 5, 60);
      expect(warnings).toEqual([expect.stringMatching(/moved inference back to the main thread.*exited/)]);
      expect(vad.placement).toBe('main-thread');
      const died = log.findLastIndex((r) => r.where === 'worker');
      expect(log.slice(died + 1).length).toBeGreaterThan(0);
      expect(log.slice(died + 1).every((r) => r.where === 'inline')).toBe(true);
      // Both workers were closed (the dead one and the one retired with it); none was started again.
      expect(workers.created).toBe(2);
      expect(workers.closed).toBe(2);
    });
  }

  it('closes workers that finish starting after the VAD closed', async () => {
    const log: Ran[] = [];
    const warnings: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inner = fakeWorkers(new FakeModel(), log);
    const slow: ExecutorFactory = async (s) => {
      await gate;
      return inner.factory(s);
    };
    const vad = await autoVad(STICKY, slow, log, warnings);
    const fed = await feed(vad, 2, 10, true);
    expectEveryWindowOnce(log, fed, 2, 10);
    await vad.close();
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(inner.created).toBe(2);
    expect(inner.closed).toBe(2);
  });
});
