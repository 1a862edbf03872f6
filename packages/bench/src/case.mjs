// One measurement in a fresh process (run by bench.mjs with --expose-gc):
//   node --expose-gc src/case.mjs '{"framework":"voxwire","sessions":10,"seconds":32}'
// N sessions share one VAD; each hears the same timeline of turns in real time, 20 ms frames paced
// against absolute due times (a late tick catches up, so pacing does not drift), the sessions' starts
// spread evenly over one turn period. Prints one JSON line.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { FRAME_MS, FRAME_SAMPLES, RATE, timeline } from './audio.mjs';
import { VARIANTS } from './settings.mjs';

const config = JSON.parse(process.argv[2] ?? '{}');
const framework = config.framework ?? 'voxwire';
const sessionCount = config.sessions ?? 1;
const variant = VARIANTS[config.variant ?? 'vad'];
const kind = config.kind ?? 'conversation';
const periodMs = 8000;
/** Distinct turns: `seconds` of them, heard `repeats` times after a warm-up turn (see audio.mjs). */
const cycle = Math.max(1, Math.round((config.seconds ?? 32) / (periodMs / 1000)));
const repeats = config.repeats ?? 1;
const warmup = config.warmup ?? true;
/** After the last frame, how long replies and cuts may still come. */
const SETTLE_MS = config.settleMs ?? 4000;

const gc = globalThis.gc ?? (() => {});
const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const stats = (values) => ({
  n: values.length,
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  max: values.length ? Math.max(...values) : null,
});

/**
 * The pinned young generation (bench.mjs) is reserved at start but its pages are touched only as objects
 * are allocated, so a process that has only loaded commits the rest of it during the run. That is a
 * fixed cost of the process, not of its sessions: fill it a few times over with short-lived objects
 * before the baseline so the baseline holds it whole (10 sessions read 8 MiB more RSS without this).
 */
function commitYoungGeneration() {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  const bytes = 4 * (young?.space_size ?? 0);
  let last;
  for (let allocated = 0; allocated < bytes; allocated += 1056) last = new Array(128).fill(allocated);
  return last?.length ?? 0;
}

function memory() {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss, external: m.external };
}

const audio = timeline({ kind, cycle, repeats, warmup, periodMs });
// `cutMs` cuts the timeline short (the smoke test's runs).
const frames = Math.min(
  Math.ceil(audio.samples.length / FRAME_SAMPLES),
  Math.round((config.cutMs ?? Number.POSITIVE_INFINITY) / FRAME_MS),
);
const frameOf = (sample) => Math.floor(sample / FRAME_SAMPLES);
/** Every utterance (a turn's words, a barge-in), in order, with the frames that matter to it. */
const utterances = [];
for (const turn of audio.turns) {
  utterances.push({
    turn: turn.index,
    warmup: turn.warmup,
    bargeIn: false,
    startFrame: frameOf(turn.start),
    endFrame: frameOf(turn.lastSpeech),
    parts: turn.parts,
    hesitant: turn.parts.length > 1,
  });
  if (turn.bargeIn) {
    utterances.push({
      turn: turn.index,
      warmup: turn.warmup,
      bargeIn: true,
      startFrame: frameOf(turn.bargeIn.start),
      endFrame: frameOf(turn.bargeIn.end),
      // The frame where the user has spoken for the interruption threshold (500 ms).
      thresholdFrame: frameOf(turn.bargeIn.start + (500 * RATE) / 1000),
      parts: [turn.bargeIn],
    });
  }
}
// Utterances a cut-short timeline does not finish are not part of the run.
while (utterances.length > 0 && utterances.at(-1).endFrame >= frames) utterances.pop();
const parts = utterances.flatMap((u) => u.parts).sort((a, b) => a.end - b.end);

const latencies = [];
const latenciesAfterBargeIn = [];
const latenciesHesitant = [];
const commits = [];
const commitsHesitant = [];
/** First agent audio minus the commit of the same turn: the reply path alone. */
const replyPaths = [];
const reactions = [];
const problems = {
  missedReplies: 0,
  extraReplies: 0,
  premature: 0,
  prematureCommits: 0,
  uncutBargeIns: 0,
  errors: 0,
};
const errorSamples = new Set();

function sessionState(index) {
  const s = {
    index,
    pushed: 0, // frames pushed
    partCursor: 0,
    endPushedAt: new Float64Array(utterances.length).fill(Number.NaN),
    thresholdPushedAt: new Float64Array(utterances.length).fill(Number.NaN),
    replied: new Uint8Array(utterances.length),
    committed: new Uint8Array(utterances.length),
    committedAt: new Float64Array(utterances.length).fill(Number.NaN),
    cut: new Uint8Array(utterances.length),
    markCursor: 0,
  };
  /** The utterance being heard (started, not ended) or -1, and the last ended one or -1. */
  const where = () => {
    let lastEnded = -1;
    let speaking = -1;
    for (let u = 0; u < utterances.length; u++) {
      if (utterances[u].endFrame < s.pushed) lastEnded = u;
      else {
        if (utterances[u].startFrame < s.pushed) speaking = u;
        break;
      }
    }
    return { lastEnded, speaking };
  };
  s.hooks = {
    heardText() {
      const heard = [];
      while (s.partCursor < parts.length && parts[s.partCursor].end < s.pushed * FRAME_SAMPLES) {
        heard.push(parts[s.partCursor++].text);
      }
      return heard.join(' ');
    },
    onAgentAudio() {
      const now = performance.now();
      const { lastEnded, speaking } = where();
      if (speaking >= 0) {
        problems.premature++;
        return;
      }
      if (lastEnded < 0 || s.replied[lastEnded]) {
        problems.extraReplies++;
        return;
      }
      s.replied[lastEnded] = 1;
      const u = utterances[lastEnded];
      if (u.warmup) return;
      const latency = now - s.endPushedAt[lastEnded];
      (u.bargeIn ? latenciesAfterBargeIn : u.hesitant ? latenciesHesitant : latencies).push(latency);
      if (!u.bargeIn && !u.hesitant && !Number.isNaN(s.committedAt[lastEnded])) {
        replyPaths.push(now - s.committedAt[lastEnded]);
      }
    },
    onUserTurnCommitted() {
      const now = performance.now();
      const { lastEnded, speaking } = where();
      if (speaking >= 0) {
        problems.prematureCommits++;
        return;
      }
      if (lastEnded < 0 || s.committed[lastEnded]) return;
      s.committed[lastEnded] = 1;
      s.committedAt[lastEnded] = now;
      const u = utterances[lastEnded];
      if (!u.bargeIn && !u.warmup)
        (u.hesitant ? commitsHesitant : commits).push(now - s.endPushedAt[lastEnded]);
    },
    onCleared() {
      const now = performance.now();
      for (let u = utterances.length - 1; u >= 0; u--) {
        const utterance = utterances[u];
        if (!utterance.bargeIn || utterance.startFrame >= s.pushed) continue;
        if (s.cut[u]) return;
        s.cut[u] = 1;
        if (utterance.warmup) return;
        if (!Number.isNaN(s.thresholdPushedAt[u])) reactions.push(now - s.thresholdPushedAt[u]);
        else reactions.push(-(utterance.thresholdFrame - s.pushed + 1) * FRAME_MS);
        return;
      }
    },
    onError(message) {
      problems.errors++;
      if (errorSamples.size < 3) errorSamples.add(message.slice(0, 160));
    },
  };
  /** Marks the frame just pushed: the end of an utterance, or an interruption threshold. */
  s.mark = (frame, now) => {
    for (let u = s.markCursor; u < utterances.length; u++) {
      const utterance = utterances[u];
      if (utterance.thresholdFrame === frame) s.thresholdPushedAt[u] = now;
      if (utterance.endFrame === frame) {
        s.endPushedAt[u] = now;
        s.markCursor = u + 1;
      }
      if (utterance.startFrame > frame) break;
    }
  };
  return s;
}

async function loadFramework() {
  if (framework === 'voxwire') return (await import('./voxwire.mjs')).createVoxwire(variant);
  if (framework === 'livekit') return (await import('./livekit.mjs')).createLiveKit(variant);
  if (framework === 'driver') {
    // The pacing loop alone, against sessions that drop every frame: its own cost, to read the others by.
    return {
      name: 'driver',
      floorMs: 0,
      createSession: async () => ({ push() {}, async close() {} }),
      close() {},
    };
  }
  throw new Error(`unknown framework ${framework}`);
}

async function main() {
  const loadStarted = performance.now();
  const impl = await loadFramework();
  const loadMs = performance.now() - loadStarted;
  commitYoungGeneration();
  const before = memory();
  const states = [];
  const sessions = [];
  const createStarted = performance.now();
  for (let i = 0; i < sessionCount; i++) {
    const state = sessionState(i);
    states.push(state);
    sessions.push(await impl.createSession(state.hooks));
  }
  const createMs = performance.now() - createStarted;

  const loop = monitorEventLoopDelay({ resolution: 10 });
  const start = performance.now() + 50;
  const offsets = states.map((_, i) => (i * periodMs) / sessionCount);
  const sessionMs = frames * FRAME_MS;
  // CPU and loop lag are measured once every session is past its warm-up turn.
  const windowStart = start + (warmup ? offsets.at(-1) + periodMs : 0);
  let cpu0 = process.cpuUsage();
  setTimeout(
    () => {
      cpu0 = process.cpuUsage();
      loop.enable();
    },
    Math.max(0, windowStart - performance.now()),
  );
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      let next = Number.POSITIVE_INFINITY;
      for (let i = 0; i < states.length; i++) {
        const s = states[i];
        for (;;) {
          if (s.pushed >= frames) break;
          const due = start + offsets[i] + s.pushed * FRAME_MS;
          if (due > now) {
            if (due < next) next = due;
            break;
          }
          const k = s.pushed;
          let samples = audio.samples.subarray(k * FRAME_SAMPLES, (k + 1) * FRAME_SAMPLES);
          if (samples.length < FRAME_SAMPLES) {
            samples = new Int16Array(FRAME_SAMPLES);
            samples.set(audio.samples.subarray(k * FRAME_SAMPLES));
          }
          sessions[i].push(samples);
          s.pushed = k + 1;
          s.mark(k, now);
        }
      }
      if (next === Number.POSITIVE_INFINITY) resolve();
      else setTimeout(tick, Math.max(0, next - performance.now()));
    };
    setTimeout(tick, 50);
  });
  const pacedMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const windowEnd = performance.now();
  loop.disable();
  // Replies and cuts still on their way; silence keeps the VADs running meanwhile, uncounted.
  const silence = new Int16Array(FRAME_SAMPLES);
  const settleUntil = performance.now() + SETTLE_MS;
  await new Promise((resolve) => {
    const pad = setInterval(() => {
      for (const session of sessions) session.push(silence);
      if (performance.now() >= settleUntil) {
        clearInterval(pad);
        resolve();
      }
    }, FRAME_MS);
  });
  const after = memory();
  for (const s of states) {
    utterances.forEach((u, i) => {
      if (!s.replied[i] && framework !== 'driver') problems.missedReplies++;
      if (u.bargeIn && !s.cut[i] && framework !== 'driver') problems.uncutBargeIns++;
    });
  }
  // Audio the sessions heard inside the measured window.
  let conversationMs = 0;
  for (const offset of offsets) {
    const from = Math.max(windowStart, start + offset);
    const to = Math.min(windowEnd, start + offset + sessionMs);
    conversationMs += Math.max(0, to - from);
  }
  const conversationSeconds = conversationMs / 1000;
  const result = {
    framework,
    variant: variant.name,
    kind,
    sessions: sessionCount,
    secondsPerSession: sessionMs / 1000,
    measuredConversationSeconds: conversationSeconds,
    utterancesPerSession: utterances.length,
    hesitantPerSession: utterances.filter((u) => u.hesitant).length,
    floorMs: impl.floorMs,
    loadMs,
    createMs,
    pacedMs,
    latencyMs: stats(latencies),
    latencyAfterBargeInMs: stats(latenciesAfterBargeIn),
    latencyHesitantMs: stats(latenciesHesitant),
    commitMs: stats(commits),
    commitHesitantMs: stats(commitsHesitant),
    replyPathMs: stats(replyPaths),
    interruptionMs: stats(reactions),
    cpuMs: (cpu.user + cpu.system) / 1000,
    cpuMsPerConversationSecond: (cpu.user + cpu.system) / 1000 / conversationSeconds,
    heapPerSessionBytes: (after.heapUsed - before.heapUsed) / sessionCount,
    rssPerSessionBytes: (after.rss - before.rss) / sessionCount,
    rssBytes: after.rss,
    loopLagP99Ms: loop.percentile(99) / 1e6,
    loopLagMaxMs: loop.max / 1e6,
    problems,
    errorSamples: [...errorSamples],
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await Promise.race([
    Promise.all(sessions.map((s) => s.close().catch(() => {}))),
    new Promise((resolve) => setTimeout(resolve, 5000)),
  ]);
  await impl.close?.();
  // Native handles (onnxruntime, @livekit/rtc-node) can hold the process open; the result is out.
  process.exit(0);
}

main().catch((error) => {
  if (error?.unavailable) {
    // A feature this build or install lacks (the turn detector, preemptive generation): a row, not a failure.
    process.stdout.write(
      `${JSON.stringify({ framework, variant: variant.name, kind, sessions: sessionCount, unavailable: error.message })}\n`,
    );
    process.exit(0);
  }
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
