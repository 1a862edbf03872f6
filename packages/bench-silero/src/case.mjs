// One measurement in a fresh process: `node case.mjs <impl> <streams> <batch|paced> <seconds>`.
// process.cpuUsage() covers every thread of the process, so worker threads are counted.
// Prints one JSON line.
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { benchAudio, loopAudio, RATE } from './audio.mjs';
import { batchedGraphBytes, CONTEXT, openRaw, runGroup, WINDOW } from './raw.mjs';

const [impl, streamsArg, mode, secondsArg] = process.argv.slice(2);
const streams = Number(streamsArg);
const seconds = Number(secondsArg);
const FRAME = 320; // 20 ms
const PHASES = 10; // paced streams are spread over 10 phases, 2 ms apart, as calls from many rooms would be
/** The plugin's default maxBatchDelayMs, for the batched live floor. */
const BATCH_DELAY_MS = Number(process.env.VOXWIRE_BATCH_DELAY_MS ?? 32);

const clip = benchAudio().samples;
// Half a window more than the round length: LiveKit's plugin holds back a window until more audio
// follows, and this way every implementation analyses the same number of windows.
const audios = Array.from({ length: streams }, (_, i) =>
  loopAudio(clip, seconds + WINDOW / 2 / RATE, (i * 7919 * 13) % clip.length),
);
const windowsPerStream = Math.floor(audios[0].length / WINDOW);
/**
 * Every implementation analyses this many windows per stream, through the same batch shapes it is then
 * measured on, before the measurement: the figures are steady-state costs, not JIT compilation or the
 * first runs of a new input shape. At least 3 s per stream and 3,000 windows in all: one stream's
 * 94 windows left its hottest functions to be optimized during the measurement.
 */
const WARM_WINDOWS = Math.min(windowsPerStream, Math.max(94, Math.ceil(3000 / streams)));

function cpuMs(since) {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(run) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const { endedAt, windows, ...extra } = (await run()) ?? {};
  const cpu = cpuMs(c0);
  const analysed = windows ?? streams * windowsPerStream;
  return {
    cpuMs: cpu,
    wallMs: (endedAt ?? performance.now()) - t0,
    windows: analysed,
    audioSeconds: (analysed * WINDOW) / RATE,
    ...extra,
  };
}

/** Resolves when `isDone()` or when nothing happened for `ms` after `since()`: some implementations hold back a last window. */
function settle(isDone, since, ms = 2000) {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (isDone() || performance.now() - since() > ms) {
        clearInterval(timer);
        resolve();
      }
    }, 100);
  });
}

/**
 * Real-time pacing: each stream gets a 20 ms frame every 20 ms, the streams spread over PHASES phases.
 * `onWindow(i)` must be called by the implementation for every inference result of stream i; the
 * latency is from the push of the frame that completed the window to that call.
 */
function pace(sinks, register) {
  const framesPerStream = Math.ceil(audios[0].length / FRAME);
  const pushed = new Int32Array(streams);
  const pushTimes = audios.map(() => new Float64Array(framesPerStream));
  const windowsDone = new Int32Array(streams);
  const latencies = [];
  let finished = 0;
  let total = 0;
  let lastActivity = performance.now();
  register((i) => {
    const n = ++windowsDone[i];
    total++;
    lastActivity = performance.now();
    const frame = Math.ceil((n * WINDOW) / FRAME) - 1;
    if (frame < framesPerStream && pushTimes[i][frame] > 0)
      latencies.push(lastActivity - pushTimes[i][frame]);
    if (n === windowsPerStream) finished++;
  });
  const start = performance.now() + 20;
  const tick = () => {
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (let i = 0; i < streams; i++) {
      const phase = (i % PHASES) * (20 / PHASES);
      for (;;) {
        const k = pushed[i];
        if (k >= framesPerStream) break;
        const due = start + phase + k * 20;
        if (due > now) {
          next = Math.min(next, due);
          break;
        }
        pushTimes[i][k] = now;
        lastActivity = now;
        sinks[i](audios[i].subarray(k * FRAME, (k + 1) * FRAME), k === framesPerStream - 1);
        pushed[i] = k + 1;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) setTimeout(tick, Math.max(0, next - performance.now()));
  };
  setTimeout(tick, 20);
  return settle(
    () => finished === streams,
    () => lastActivity,
  ).then(() => ({
    windows: total,
    endedAt: lastActivity,
    latencyMs: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
    },
  }));
}

/**
 * Raw floors: `raw1` and `raw1Batched` run one window per call (on the file's graph and on the batched
 * graph), `rawBatch` all streams in one call. Floors for many streams run the batched graph, the
 * cheapest way found to run these weights, so the plugin's ratio to them is its own overhead.
 */
async function rawFloor(batched, graph) {
  const raw = await openRaw(graph);
  await runGroup(raw, batched ? audios : [audios[0]], WARM_WINDOWS);
  if (mode === 'paced') return rawPaced(raw.session, raw.ort, raw.extra);
  return measure(async () => {
    if (batched) await runGroup(raw, audios, windowsPerStream);
    else for (const audio of audios) await runGroup(raw, [audio], windowsPerStream);
  });
}

/**
 * The floor for using every core: the streams split evenly over one thread per core, each thread's
 * share run as one batch (raw onnxruntime, public API). What the plugin's workers do at best.
 */
async function rawSplit() {
  const { Worker } = await import('node:worker_threads');
  const graph = await batchedGraphBytes();
  const threads = Math.min(availableParallelism(), streams);
  const shares = Array.from({ length: threads }, (_, t) => audios.filter((_, i) => i % threads === t));
  const workers = shares.map(
    (share) =>
      new Worker(new URL('./raw-split-worker.mjs', import.meta.url), {
        workerData: { audios: share, windows: windowsPerStream, warmWindows: WARM_WINDOWS, graph },
      }),
  );
  const next = (w) => new Promise((resolve, reject) => w.once('message', resolve).once('error', reject));
  await Promise.all(workers.map(next));
  const result = await measure(async () => {
    const done = workers.map(next);
    for (const w of workers) w.postMessage('go');
    await Promise.all(done);
  });
  await Promise.all(workers.map((w) => w.terminate()));
  return result;
}

/** The floor for live audio: one window per call on the main thread, run as soon as it is complete. */
function rawPaced(session, ort, extra) {
  const inputs = audios.map(() => new Float32Array(CONTEXT + WINDOW));
  const states = audios.map(() => new Float32Array(256));
  const feeds = audios.map((_, i) => ({
    input: new ort.Tensor('float32', inputs[i], [1, CONTEXT + WINDOW]),
    state: new ort.Tensor('float32', states[i], [2, 1, 128]),
    ...extra,
  }));
  const received = new Int32Array(streams);
  const done = new Int32Array(streams);
  const busy = new Uint8Array(streams);
  let onWindow;
  const drain = async (i) => {
    if (busy[i]) return;
    busy[i] = 1;
    while ((done[i] + 1) * WINDOW <= received[i]) {
      const from = done[i] * WINDOW - CONTEXT;
      const input = inputs[i];
      for (let k = 0; k < CONTEXT + WINDOW; k++) input[k] = from + k < 0 ? 0 : audios[i][from + k] / 32768;
      const result = await session.run(feeds[i]);
      states[i].set(result.stateN.data);
      done[i]++;
      onWindow(i);
    }
    busy[i] = 0;
  };
  return measure(() =>
    pace(
      audios.map((_, i) => (data) => {
        received[i] += data.length;
        void drain(i);
      }),
      (callback) => {
        onWindow = callback;
      },
    ),
  );
}

/**
 * The floor for live audio batched as the plugin batches it: complete windows wait until every stream
 * has one or the oldest has waited BATCH_DELAY_MS, then run as one call on the main thread. On a
 * virtual machine each call after an idle gap costs more than the same call back to back (caches go
 * cold while the thread sleeps), so this is the least a batching VAD can spend per live stream here.
 */
async function rawPacedBatched() {
  const raw = await openRaw(await batchedGraphBytes());
  const { ort, session, extra } = raw;
  await runGroup(raw, audios, WARM_WINDOWS);
  const row = CONTEXT + WINDOW;
  const input = new Float32Array(streams * row);
  const state = new Float32Array(streams * 256);
  const states = audios.map(() => new Float32Array(256));
  const received = new Int32Array(streams);
  const done = new Int32Array(streams);
  const queued = new Uint8Array(streams);
  const queue = [];
  let oldest = 0;
  let running = false;
  let timer;
  let onWindow;
  const enqueue = (i) => {
    if (queued[i] || (done[i] + 1) * WINDOW > received[i]) return;
    if (queue.length === 0) oldest = performance.now();
    queued[i] = 1;
    queue.push(i);
  };
  const maybeRun = () => {
    if (running || queue.length === 0) return;
    const wait = BATCH_DELAY_MS - (performance.now() - oldest);
    if (queue.length < streams && wait > 0) {
      if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          maybeRun();
        }, Math.ceil(wait));
      }
      return;
    }
    void run();
  };
  const run = async () => {
    running = true;
    const batch = queue.splice(0);
    const b = batch.length;
    for (let r = 0; r < b; r++) {
      const i = batch[r];
      queued[i] = 0;
      const from = done[i] * WINDOW - CONTEXT;
      for (let k = 0; k < row; k++) input[r * row + k] = from + k < 0 ? 0 : audios[i][from + k] / 32768;
      state.set(states[i].subarray(0, 128), r * 128);
      state.set(states[i].subarray(128), (b + r) * 128);
    }
    const result = await session.run({
      input: new ort.Tensor('float32', input.subarray(0, b * row), [b, row]),
      state: new ort.Tensor('float32', state.subarray(0, b * 256), [2, b, 128]),
      ...extra,
    });
    const next = result.stateN.data;
    for (let r = 0; r < b; r++) {
      const i = batch[r];
      states[i].set(next.subarray(r * 128, (r + 1) * 128), 0);
      states[i].set(next.subarray((b + r) * 128, (b + r + 1) * 128), 128);
      done[i]++;
      onWindow(i);
    }
    running = false;
    for (const i of batch) enqueue(i);
    maybeRun();
  };
  return measure(() =>
    pace(
      audios.map((_, i) => (data) => {
        received[i] += data.length;
        enqueue(i);
        maybeRun();
      }),
      (callback) => {
        onWindow = callback;
      },
    ),
  );
}

async function voxwire() {
  const { AudioFrame } = await import('@voxwire/agents');
  // VOXWIRE_SILERO_MODULE points at another build (e.g. a saved copy of dist/index.js) to compare two
  // versions side by side in one run, under the same machine load.
  const { SileroVAD } = await import(process.env.VOXWIRE_SILERO_MODULE ?? '@voxwire/plugin-silero');
  const vad = await SileroVAD.load({
    inference: process.env.VOXWIRE_INFERENCE ?? 'auto',
    ...(process.env.VOXWIRE_BATCH_DELAY_MS
      ? { maxBatchDelayMs: Number(process.env.VOXWIRE_BATCH_DELAY_MS) }
      : {}),
    ...(process.env.VOXWIRE_MAX_BATCH ? { maxBatchSize: Number(process.env.VOXWIRE_MAX_BATCH) } : {}),
    ...(process.env.VOXWIRE_WORKERS ? { workers: Number(process.env.VOXWIRE_WORKERS) } : {}),
    ...(process.env.VOXWIRE_THREADS ? { threads: Number(process.env.VOXWIRE_THREADS) } : {}),
    ...(process.env.VOXWIRE_MAX_SPEECH_MS
      ? { maxBufferedSpeechMs: Number(process.env.VOXWIRE_MAX_SPEECH_MS) }
      : {}),
  });
  const frameOf = (data) => new AudioFrame(data, RATE, 1, data.length);
  const feed = (inputs) =>
    Promise.all(
      inputs.map(async (audio) => {
        const s = vad.stream();
        let pushed = 0;
        // Keep about a second queued: as fast as inference goes, without holding the whole input.
        const topUp = () => {
          const end = Math.min(audio.length, pushed + RATE);
          for (; pushed < end; pushed += FRAME) s.pushFrame(frameOf(audio.subarray(pushed, pushed + FRAME)));
          if (pushed >= audio.length) s.endInput();
        };
        topUp();
        for await (const e of s) {
          if (e.type === 'inference_done' && pushed < audio.length && s.pendingAudioMs < 500) topUp();
        }
      }),
    );
  await feed(audios.map((audio) => audio.subarray(0, WARM_WINDOWS * WINDOW)));
  if (mode === 'batch') {
    return measure(async () => {
      await feed(audios);
      return { inference: vad.inference };
    });
  }
  const live = audios.map(() => vad.stream());
  return measure(() =>
    pace(
      live.map((s) => (data, last) => {
        s.pushFrame(frameOf(data));
        if (last) s.endInput();
      }),
      (onWindow) =>
        live.forEach(async (s, i) => {
          for await (const e of s) if (e.type === 'inference_done') onWindow(i);
        }),
    ),
  );
}

async function livekit() {
  const { initializeLogger, VADEventType } = await import('@livekit/agents');
  initializeLogger({ pretty: false, level: 'error' });
  const { AudioFrame } = await import('@livekit/rtc-node');
  const silero = await import('@livekit/agents-plugin-silero');
  const vad = await silero.VAD.load();
  const frameOf = (data) => new AudioFrame(Int16Array.from(data), RATE, 1, data.length);
  let total = 0;
  let lastEvent = performance.now();
  const consume = async (s, expected, onWindow) => {
    let n = 0;
    const reading = (async () => {
      for await (const e of s) {
        if (e.type !== VADEventType.INFERENCE_DONE) continue;
        total++;
        lastEvent = performance.now();
        onWindow?.();
        if (++n >= expected) break;
      }
    })();
    await Promise.race([
      reading,
      settle(
        () => n >= expected,
        () => lastEvent,
      ),
    ]);
    s.close();
  };
  await Promise.all(
    audios.map((audio) => {
      const warm = vad.stream();
      for (let at = 0; at < WARM_WINDOWS * WINDOW; at += FRAME)
        warm.pushFrame(frameOf(audio.subarray(at, at + FRAME)));
      return consume(warm, WARM_WINDOWS - 1);
    }),
  );
  if (mode === 'batch') {
    return measure(async () => {
      total = 0;
      lastEvent = performance.now();
      await Promise.all(
        audios.map((audio) => {
          const s = vad.stream();
          for (let at = 0; at < audio.length; at += FRAME)
            s.pushFrame(frameOf(audio.subarray(at, at + FRAME)));
          return consume(s, windowsPerStream);
        }),
      );
      return { windows: total, endedAt: lastEvent };
    });
  }
  const live = audios.map(() => vad.stream());
  const expected = windowsPerStream;
  return measure(() =>
    pace(
      live.map((s) => (data) => s.pushFrame(frameOf(data))),
      (onWindow) => live.forEach((s, i) => void consume(s, expected, () => onWindow(i))),
    ),
  );
}

/** The pacing driver alone, results faked at once: its own CPU, to read the paced rows against. */
async function driver() {
  return measure(() => {
    let callback;
    return pace(
      audios.map((_, i) => (data) => {
        for (let k = 0; k + WINDOW <= data.length + WINDOW; k += WINDOW) void data[k];
        callback?.(i);
      }),
      (onWindow) => {
        const counters = new Float64Array(streams);
        callback = (i) => {
          counters[i] += FRAME;
          while (counters[i] >= WINDOW) {
            counters[i] -= WINDOW;
            onWindow(i);
          }
        };
      },
    );
  });
}

const runners = {
  raw1: () => rawFloor(false),
  raw1Batched: async () => rawFloor(false, await batchedGraphBytes()),
  rawBatch: async () => rawFloor(true, await batchedGraphBytes()),
  rawSplit,
  rawPacedBatched,
  voxwire,
  livekit,
  driver,
};

const result = await runners[impl]();
process.stdout.write(`${JSON.stringify({ impl, streams, mode, seconds, ...result })}\n`);
// @livekit/rtc-node keeps native handles that hold the process open; the result is out, so leave.
process.exit(0);
