// Figure 5, Voxwire only (LiveKit has no virtual-time harness): run in a fresh process with --expose-gc.
//   node --expose-gc src/sim.mjs '{"mode":"speed","simulatedSeconds":160}'
//     simulate() from @voxwire/testing on a scripted conversation: simulated seconds per CPU second,
//     after a warm-up (`warmupCpuMs`), over the runs the machine's other tenants left undisturbed and
//     over all runs, and for the first, cold run.
//   node --expose-gc src/sim.mjs '{"mode":"soak","minutes":60}'
//     one session on a VirtualClock for 60 simulated minutes, a turn every 12 s, with an audio consumer
//     that stalls for seconds every few replies and then resumes; heap and RSS sampled after GC every
//     5 simulated minutes. Prints one JSON line. bench.mjs runs it with V8's young generation pinned at
//     its largest size (PINNED_YOUNG_GENERATION), so that V8 growing it mid-run is not read as retained memory.
import { Agent, AgentSession, VirtualClock } from '@voxwire/agents';
import {
  FakeAudioInput,
  FakeAudioOutput,
  FakeLLM,
  FakeSTT,
  FakeTTS,
  MAX_SEGMENT_CODE,
  ScriptedVAD,
  simulate,
} from '@voxwire/testing';
import { createReference, quietRuns } from './interference.mjs';
import { conversation } from './sim-scenario.mjs';
import { REPLY } from './settings.mjs';

const config = JSON.parse(process.argv[2] ?? '{}');
const gc = globalThis.gc ?? (() => {});
const cpuMs = (since) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/**
 * Speed in steady state, the state a fuzz run of thousands of timelines spends its time in: V8 keeps
 * tiering the session's per-turn code up for about a hundred runs of this scenario (the median of ten
 * runs falls from about 120 ms to 40 ms of CPU over the first hundred on this VM), so runs are measured
 * only after `warmupCpuMs` of them. The first run, compilation included, is reported beside it: what a
 * single simulate() in a test costs.
 *
 * A fixed reference workload is timed between runs (interference.mjs): the runs it found the machine
 * undisturbed around give the judged figure, all runs are reported beside it. Measuring goes on until
 * there are at least 10 of each and `minCpuMs` of each, or `maxCpuMs` of runs in all.
 */
async function speed() {
  const scenario = conversation(config.simulatedSeconds ?? 160);
  const timed = async () => {
    const c0 = process.cpuUsage();
    const result = await simulate(scenario);
    return { simulatedMs: result.simulatedMs, cpuMs: cpuMs(c0), violations: result.violations.length };
  };
  const reference = createReference();
  const first = await timed();
  let warmupRuns = 0;
  for (let spent = 0; spent < (config.warmupCpuMs ?? 8000) && warmupRuns < 1000; warmupRuns++) {
    reference();
    spent += (await timed()).cpuMs;
  }
  const minCpuMs = config.minCpuMs ?? 3000;
  const maxCpuMs = config.maxCpuMs ?? 10 * minCpuMs;
  const enough = (list) => list.length >= 10 && list.reduce((sum, r) => sum + r.cpuMs, 0) >= minCpuMs;
  const runs = [];
  let total = 0;
  let before = reference();
  for (;;) {
    const run = await timed();
    const after = reference();
    runs.push({ ...run, referenceBeforeMs: before, referenceAfterMs: after });
    before = after;
    total += run.cpuMs;
    if (enough(runs) && enough(quietRuns(runs).quiet)) break;
    if (total >= maxCpuMs || runs.length >= 1000) break;
  }
  const { quiet, referenceBestMs, interference } = quietRuns(runs);
  return {
    mode: 'speed',
    runs: runs.length,
    warmupRuns,
    simulatedSecondsPerRun: runs[0].simulatedMs / 1000,
    ...speeds(runs),
    // Fewer than 10 undisturbed runs within maxCpuMs: there is no undisturbed figure, all runs are judged.
    quiet: quiet.length >= 10 ? { runs: quiet.length, ...speeds(quiet) } : undefined,
    referenceBestMs,
    interference,
    firstRunSpeed: first.simulatedMs / first.cpuMs,
    violations: first.violations + runs.reduce((n, r) => n + r.violations, 0),
  };
}

function speeds(runs) {
  const sorted = runs.map((r) => r.simulatedMs / r.cpuMs).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { speedMedian: at(0.5), speedP25: at(0.25), speedP75: at(0.75) };
}

/**
 * Stalls its consumer at the start of every `every`-th reply, then plays on; the stalls take the lengths
 * of `stallsMs` in turn.
 */
class StallingOutput extends FakeAudioOutput {
  constructor(options, every, stallsMs) {
    super(options);
    this.clockRef = options.clock;
    this.every = every;
    this.stallsMs = stallsMs;
    this.segments = 0;
    this.stalls = 0;
    this.inSegmentNow = false;
  }
  async onCaptureFrame(frame) {
    // The sink takes the frame (so a clear still finds it and reports the segment cut, as the output
    // contract asks), then holds the writer back: the reply's next frames wait, and its audio runs dry.
    const taken = super.onCaptureFrame(frame);
    if (!this.inSegment || !this.inSegmentNow) {
      this.inSegmentNow = true;
      if (this.every > 0 && ++this.segments % this.every === 0) {
        const stallMs = this.stallsMs[this.stalls % this.stallsMs.length];
        this.stalls++;
        await this.clockRef.sleep(stallMs);
      }
    }
    return taken;
  }
  onFlush() {
    this.inSegmentNow = false;
    super.onFlush();
  }
  onClearBuffer() {
    this.inSegmentNow = false;
    super.onClearBuffer();
  }
}

async function soak() {
  const minutes = config.minutes ?? 60;
  const endMs = minutes * 60_000;
  const clock = new VirtualClock();
  const segments = [];
  const utterances = [];
  // A turn every 12 s: @voxwire/testing's fake microphone encodes at most MAX_SEGMENT_CODE + 1 (319)
  // utterances, which a turn every 10 s would exceed within the hour.
  const periodMs = Math.max(12_000, Math.ceil(endMs / (MAX_SEGMENT_CODE + 1)));
  for (let at = 1000, t = 0; at + 3000 < endMs; at += periodMs, t++) {
    segments.push({ startMs: at, endMs: at + 2000 });
    utterances.push({ transcript: `question number ${t}`, durationMs: 2000 });
  }
  const input = new FakeAudioInput({ clock, segments, endAtMs: endMs });
  // A stall shorter than the session's playout grace (2 s) delays its reply; a longer one fails it with
  // AudioOutputTimeoutError, and the session must go on answering either way.
  const stallsMs = config.stallsMs ?? [1500, 3000];
  const output = new StallingOutput({ clock, bufferMs: 200 }, config.stallEvery ?? 5, stallsMs);
  const fakeLLM = new FakeLLM({ clock, replies: [], fallback: { text: REPLY, ttftMs: 300 } });
  const session = new AgentSession({
    clock,
    vad: new ScriptedVAD(),
    stt: new FakeSTT({ clock, utterances }),
    llm: fakeLLM,
    tts: new FakeTTS({ clock }),
    userAwayTimeout: null,
  });
  let replies = 0;
  const errors = {};
  session.on('agent_state_changed', (e) => {
    if (e.newState === 'speaking') replies++;
  });
  session.on('error', (e) => {
    const name = e.error?.name ?? 'Error';
    errors[name] = (errors[name] ?? 0) + 1;
  });
  const samples = [];
  const sample = () => {
    // The fakes keep a record of every frame played and every request (for tests to inspect): harness
    // bookkeeping that grows by design, emptied here so the samples weigh the session alone.
    output.frames.length = 0;
    fakeLLM.requests.length = 0;
    gc();
    gc();
    const m = process.memoryUsage();
    samples.push({
      minute: clock.now() / 60_000,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      rss: m.rss,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
    });
  };
  const c0 = process.cpuUsage();
  await session.start({
    agent: new Agent({ instructions: 'You are the bench agent.' }),
    input: { audio: input },
    output: { audio: output },
  });
  sample();
  const every = clock.setRepeatingTimer(5 * 60_000, sample);
  await clock.sleep(endMs + 5000);
  every.cancel();
  const cpu = cpuMs(c0);
  const historyItems = session.history.items.length;
  // What the history holds as data, to read the heap's growth against (the history grows by design).
  const historyJsonBytes = JSON.stringify(session.history.items).length;
  await session.close();
  // Growth between the 10th simulated minute (everything warmed up) and the end.
  const from = samples.find((s) => s.minute >= 10) ?? samples[0];
  const to = samples.at(-1);
  return {
    mode: 'soak',
    minutes,
    turns: segments.length,
    replies,
    errors,
    stalls: output.stalls,
    stallsMs,
    historyItems,
    historyJsonBytes,
    cpuMs: cpu,
    speed: endMs / cpu,
    heapGrowthBytes: to.heapUsed - from.heapUsed,
    heapTotalGrowthBytes: to.heapTotal - from.heapTotal,
    rssGrowthBytes: to.rss - from.rss,
    fromMinute: from.minute,
    toMinute: to.minute,
    samples,
  };
}

const result = config.mode === 'soak' ? await soak() : await speed();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
