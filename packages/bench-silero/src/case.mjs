// One measurement in a fresh process: `node case.mjs <impl> <streams> <batch|paced> <seconds>`.
// process.cpuUsage() covers every thread of the process, so worker threads are counted.
// Prints one JSON line.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { benchAudio, loopAudio, RATE } from './audio.mjs';

const [impl, streamsArg, mode, secondsArg] = process.argv.slice(2);
const streams = Number(streamsArg);
const seconds = Number(secondsArg);
const FRAME = 320; // 20 ms
const WINDOW = 512;
const CONTEXT = 64;
const PHASES = 10; // paced streams are spread over 10 phases, 2 ms apart, as calls from many rooms would be

const clip = benchAudio().samples;
// Half a window more than the round length: LiveKit's plugin holds back a window until more audio
// follows, and this way every implementation analyses the same number of windows.
const audios = Array.from({ length: streams }, (_, i) =>
  loopAudio(clip, seconds + WINDOW / 2 / RATE, (i * 7919 * 13) % clip.length),
);
const windowsPerStream = Math.floor(audios[0].length / WINDOW);

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

async function rawFloor(batched) {
  const require = createRequire(import.meta.url);
  const ort = require('onnxruntime-node');
  const { DEFAULT_MODEL_PATH } = await import('@voxwire/plugin-silero');
  const session = await ort.InferenceSession.create(DEFAULT_MODEL_PATH, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
  // Streams run one after another (one window per call), or all together (one row each per call).
  const runGroup = async (group, windows) => {
    const b = group.length;
    const input = new Float32Array(b * (CONTEXT + WINDOW));
    const state = new Float32Array(2 * b * 128);
    const feeds = {
      input: new ort.Tensor('float32', input, [b, CONTEXT + WINDOW]),
      state: new ort.Tensor('float32', state, [2, b, 128]),
      sr,
    };
    for (let w = 0; w < windows; w++) {
      for (let r = 0; r < b; r++) {
        const audio = group[r];
        const base = r * (CONTEXT + WINDOW);
        const from = w * WINDOW - CONTEXT;
        for (let k = 0; k < CONTEXT + WINDOW; k++) {
          const at = from + k;
          input[base + k] = at < 0 ? 0 : audio[at] / 32768;
        }
      }
      const result = await session.run(feeds);
      state.set(result.stateN.data);
    }
  };
  await runGroup([audios[0]], 60); // warm-up
  if (mode === 'paced') return rawPaced(session, ort, sr);
  return measure(async () => {
    if (batched) await runGroup(audios, windowsPerStream);
    else for (const audio of audios) await runGroup([audio], windowsPerStream);
  });
}

/** The floor for live audio: one window per call on the main thread, run as soon as it is complete. */
function rawPaced(session, ort, sr) {
  const inputs = audios.map(() => new Float32Array(CONTEXT + WINDOW));
  const states = audios.map(() => new Float32Array(256));
  const feeds = audios.map((_, i) => ({
    input: new ort.Tensor('float32', inputs[i], [1, CONTEXT + WINDOW]),
    state: new ort.Tensor('float32', states[i], [2, 1, 128]),
    sr,
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
  });
  const frameOf = (data) => new AudioFrame(data, RATE, 1, data.length);
  {
    const warm = vad.stream();
    for (let k = 0; k < 100; k++) warm.pushFrame(frameOf(audios[0].subarray(k * FRAME, (k + 1) * FRAME)));
    warm.endInput();
    for await (const _ of warm) {
      // drain
    }
  }
  if (mode === 'batch') {
    return measure(async () => {
      await Promise.all(
        audios.map(async (audio) => {
          const s = vad.stream();
          let pushed = 0;
          // Keep about a second queued: as fast as inference goes, without holding the whole input.
          const topUp = () => {
            const end = Math.min(audio.length, pushed + RATE);
            for (; pushed < end; pushed += FRAME)
              s.pushFrame(frameOf(audio.subarray(pushed, pushed + FRAME)));
            if (pushed >= audio.length) s.endInput();
          };
          topUp();
          for await (const e of s) {
            if (e.type === 'inference_done' && pushed < audio.length && s.pendingAudioMs < 500) topUp();
          }
        }),
      );
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
  {
    const warm = vad.stream();
    for (let k = 0; k < 100; k++) warm.pushFrame(frameOf(audios[0].subarray(k * FRAME, (k + 1) * FRAME)));
    await consume(warm, Math.floor((100 * FRAME) / WINDOW));
  }
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
  rawBatch: () => rawFloor(true),
  voxwire,
  livekit,
  driver,
};

const result = await runners[impl]();
process.stdout.write(`${JSON.stringify({ impl, streams, mode, seconds, ...result })}\n`);
// @livekit/rtc-node keeps native handles that hold the process open; the result is out, so leave.
process.exit(0);
