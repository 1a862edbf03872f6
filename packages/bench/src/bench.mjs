// `pnpm bench` (this package's `bench` script): the whole-session benchmark, Voxwire beside
// @livekit/agents 1.9 on the same machine, audio, fakes and settings. Every measurement runs in a
// fresh child process (src/case.mjs, src/sim.mjs) so one framework's native runtime, JIT state and heap
// cannot disturb the other's; the frameworks alternate at each session count, so drifting load on a
// shared machine hits both alike. See README.md for the method and the options.
import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { audioToolsMissing, timeline } from './audio.mjs';
import { REPLY, TTS_MS_PER_CHAR, turnSettings, VARIANTS, vadSettings } from './settings.mjs';
import { holds, renderTable } from './table.mjs';

const ALL_FIGURES = ['latency', 'scale', 'resources', 'interruption', 'sim', 'soak'];
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const list = (value) =>
  String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

if (flag('--help')) {
  console.log(`usage: node src/bench.mjs [options]
  --quick                  short runs (16 s of audio per session, up to 100 sessions, 10-minute soak)
  --smoke                  the smallest run that exercises every figure (the smoke test's)
  --only a,b               figures: ${ALL_FIGURES.join(', ')}, endpointing
  --endpointing            add figure 6 (turn-detector preset, preemptive generation vs VAD only)
  --frameworks a,b         voxwire, livekit (default both, when LiveKit loads)
  --sessions 1,10,25       session counts to try (default 1,10,25,100,300,500,1000)
  --max-sessions N         stop trying counts above N
  --seconds N              audio per session in each scaling case (rounded to 8 s turns)
  --soak-minutes N         simulated minutes of the soak (default 60)
  --driver                 also measure the pacing driver alone at each session count
  --cpu-rounds N           alternated pairs (and driver runs) at one session for the CPU ratio (default 3; quick 1)
  --source                 run Voxwire from its TypeScript sources (tsx) instead of dist/
  --json FILE              write every case's raw result to FILE`);
  process.exit(0);
}

const smoke = flag('--smoke');
const quick = flag('--quick') || smoke;
const requested = new Set(flag('--only') ? list(option('--only', '')) : ALL_FIGURES);
if (flag('--endpointing')) requested.add('endpointing');
const source = flag('--source');
const maxSessions = Number(option('--max-sessions', smoke ? 2 : quick ? 100 : 1000));
const sessionCounts = list(option('--sessions', smoke ? '1,2' : '1,10,25,100,300,500,1000'))
  .map(Number)
  .filter((n) => n <= maxSessions);
const caseSeconds = Number(option('--seconds', smoke ? 8 : quick ? 16 : 48));
/** One session gives few turns per run: it hears the same turns several times, so its p95 means something. */
const singleRepeats = smoke ? 1 : quick ? 2 : 4;
/** One pair at one session reads 0.22x-0.35x net for the same code on this VM: the ratio takes a median. */
const cpuRounds = Math.max(1, Number(option('--cpu-rounds', quick ? 1 : 3)));
const soakMinutes = Number(option('--soak-minutes', smoke ? 1 : quick ? 10 : 60));
const simSeconds = smoke ? 16 : quick ? 60 : 160;
const settleMs = smoke ? 2000 : 4000;
const jsonFile = option('--json', '');

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));
const nodeArgs = ['--expose-gc', ...(source ? ['--import', 'tsx', '--conditions', '@voxwire/source'] : [])];

/**
 * Every measuring process (both frameworks' cases, the soak) keeps V8's young generation at one size
 * (16 MiB semi-spaces, Node 20's largest on 64-bit). V8 doubles it whenever the bytes surviving its
 * scavenges since the last growth exceed its capacity, so any long-running process ends up there whatever
 * it holds; left alone, that one-off step of 16-32 MiB of RSS lands in whichever case crosses it first
 * (it was most of the "RSS per session" at 10 and 25 sessions) and says nothing about what a session
 * keeps. Pinned, it is in the baseline taken before the sessions start.
 */
const PINNED_YOUNG_GENERATION = ['--min-semi-space-size=16', '--max-semi-space-size=16'];

function child(script, config, timeoutMs, extraNodeArgs = PINNED_YOUNG_GENERATION) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, ...extraNodeArgs, `${here}${script}`, JSON.stringify(config)],
      {
        cwd: root,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NODE_NO_WARNINGS: '1' },
      },
      (error, stdout, stderr) => {
        const line = stdout.trim().split('\n').at(-1);
        try {
          if (line) return resolve(JSON.parse(line));
        } catch {}
        const reason = String(stderr || error?.message || 'no output')
          .trim()
          .split('\n')
          .slice(0, 2)
          .join(' | ');
        resolve({
          ...config,
          failed: error?.killed ? `timed out after ${timeoutMs / 1000} s` : reason.slice(0, 200),
        });
      },
    );
  });
}

function livekitLoads() {
  try {
    execFileSync(
      process.execPath,
      ['-e', "import('@livekit/agents-plugin-silero').then(()=>process.exit(0))"],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: 'ignore',
        timeout: 60_000,
      },
    );
    return true;
  } catch {
    return false;
  }
}

const missingTools = audioToolsMissing();
if (missingTools.length > 0) {
  console.error(
    `The bench speaks with espeak-ng and sox: install them (apt-get install -y espeak-ng sox). Missing: ${missingTools.join(', ')}`,
  );
  process.exit(1);
}
timeline({ kind: 'conversation' }); // makes the cached clips once, before the children need them
timeline({ kind: 'endpointing' });

let frameworks = list(option('--frameworks', 'voxwire,livekit'));
const notes = [];
if (frameworks.includes('livekit') && !livekitLoads()) {
  frameworks = frameworks.filter((f) => f !== 'livekit');
  notes.push('@livekit/agents-plugin-silero could not be loaded: LiveKit columns are left out.');
}

const cases = [];
const progress = (c, label) => {
  const what = c.failed
    ? `failed: ${c.failed}`
    : c.unavailable
      ? `not available: ${c.unavailable}`
      : `latency p50 ${c.latencyMs?.p50?.toFixed(0)} ms p95 ${c.latencyMs?.p95?.toFixed(0)} ms, CPU ${c.cpuMsPerConversationSecond?.toFixed(2)} ms/conv-s/session, missed ${c.problems?.missedReplies}`;
  process.stderr.write(`  ${label}: ${what}\n`);
};

const conversationFigures = ['latency', 'scale', 'resources', 'interruption'].some((f) => requested.has(f));
const scaling = requested.has('scale') || requested.has('resources');
const endpointingFrameworks = smoke ? ['voxwire'] : frameworks;
const endpointingSeconds = smoke ? 8 : quick ? 32 : 64;
// The smoke run hears one turn with its barge-in, cut after 6 s, and no warm-up turn.
const tiny = smoke ? { warmup: false, cutMs: 6000 } : {};
const conversationCase = (fw, n) => {
  const repeats = n === 1 ? singleRepeats : 1;
  const seconds = 8 + caseSeconds * repeats; // with the warm-up turn
  // Session creation, the run, the settle, closing: generous, a saturated process is slow at all of it.
  const timeoutMs = (seconds + 60 + n * 0.5) * 1000 * (quick ? 1.5 : 2);
  const config = {
    framework: fw,
    sessions: n,
    seconds: caseSeconds,
    repeats,
    kind: 'conversation',
    variant: 'vad',
  };
  return [{ ...config, settleMs, ...tiny }, timeoutMs];
};
/** The pacing driver alone at `n` sessions: what both frameworks' CPU figures include. */
const driverCase = (n) =>
  child('case.mjs', { framework: 'driver', sessions: n, seconds: caseSeconds, settleMs: 0 }, 300_000);
const endpointingCase = (fw, variant) => [
  {
    framework: fw,
    sessions: 1,
    seconds: endpointingSeconds,
    kind: 'endpointing',
    variant,
    settleMs,
    ...tiny,
  },
  (endpointingSeconds + 100) * 1000,
];
const sims = {};
const simJobs = [];
if (requested.has('sim'))
  simJobs.push([
    'speed',
    {
      mode: 'speed',
      simulatedSeconds: simSeconds,
      warmupCpuMs: smoke ? 200 : quick ? 3000 : 8000,
      minCpuMs: smoke ? 200 : 3000,
    },
  ]);
if (requested.has('soak')) simJobs.push(['soak', { mode: 'soak', minutes: soakMinutes }]);
const runSim = async ([name, config]) => {
  const r = await child('sim.mjs', config, 1_800_000, config.mode === 'soak' ? PINNED_YOUNG_GENERATION : []);
  process.stderr.write(`  ${name}: ${r.failed ?? 'done'}\n`);
  if (!r.failed) sims[name] = r;
};

if (smoke) {
  // The smoke run checks that every figure still runs, not what it measures: all at once, no stop rules.
  const jobs = [];
  if (conversationFigures) {
    for (const n of scaling ? sessionCounts : sessionCounts.slice(0, 1)) {
      for (const fw of frameworks) if (n === 1 || fw === 'voxwire') jobs.push(conversationCase(fw, n));
    }
  }
  if (requested.has('endpointing')) {
    for (const variant of ['vad-ttft300', 'preemptive', 'turn-detector']) {
      for (const fw of endpointingFrameworks) jobs.push(endpointingCase(fw, variant));
    }
  }
  await Promise.all([
    ...jobs.map(async ([config, timeoutMs]) => {
      const c = await child('case.mjs', config, timeoutMs);
      cases.push(c);
      progress(c, `${c.framework} ${c.variant} ${c.sessions} session(s)`);
    }),
    ...simJobs.map(runSim),
  ]);
} else {
  if (conversationFigures) {
    const counts = scaling ? sessionCounts : sessionCounts.slice(0, 1);
    const active = new Set(frameworks);
    const singles = new Map();
    for (const n of counts) {
      for (const fw of frameworks) {
        if (!active.has(fw)) continue;
        const c = await child('case.mjs', ...conversationCase(fw, n));
        cases.push(c);
        progress(c, `${fw} ${n} session(s)`);
        if (n === counts[0] && !c.failed) singles.set(fw, c);
        const one = singles.get(fw);
        // Each framework goes on only as far as it holds (p95 within 20 ms of one session), but always up
        // to 25 sessions, where the CPU target compares the two.
        if (c.failed || !one || (n !== counts[0] && n >= 25 && !holds(c, one))) active.delete(fw);
      }
      if (flag('--driver') && scaling) cases.push(await driverCase(n));
      if (scaling && n === 1 && n === counts[0] && frameworks.length > 1) {
        // More alternated rounds at one session, where the CPU ratio is judged: framework, framework,
        // driver, again, so the machine's load drifting over the run hits every figure of a round alike.
        for (let round = 1; round < cpuRounds; round++) {
          for (const fw of frameworks) {
            if (!singles.has(fw)) continue;
            const c = await child('case.mjs', ...conversationCase(fw, n));
            cases.push({ ...c, cpuRound: round });
            progress(c, `${fw} ${n} session(s), CPU round ${round + 1}`);
          }
          if (flag('--driver')) cases.push({ ...(await driverCase(n)), cpuRound: round });
        }
      }
      if (active.size === 0) break;
    }
  }
  for (const job of simJobs) await runSim(job);
  if (requested.has('endpointing')) {
    for (const variant of ['vad-ttft300', 'preemptive', 'turn-detector']) {
      for (const fw of endpointingFrameworks) {
        const c = await child('case.mjs', ...endpointingCase(fw, variant));
        cases.push(c);
        progress(c, `${fw} ${variant}`);
      }
    }
  }
}

const vad = vadSettings(VARIANTS.vad);
const turn = turnSettings(VARIANTS.vad);
const header = [
  `Voxwire whole-session bench${frameworks.includes('livekit') ? ' beside @livekit/agents 1.9.0 + @livekit/agents-plugin-silero 1.9.0' : ''}`,
  `machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, node ${process.version}, ${new Date().toISOString()}`,
  `command: node src/bench.mjs ${args.join(' ')}`.trimEnd(),
  `settings (both): Silero threshold ${vad.activationThreshold}, min speech ${vad.minSpeechMs} ms, min silence ${vad.minSilenceMs} ms; endpointing ${turn.minEndpointingDelayMs}..${turn.maxEndpointingDelayMs} ms; interruption after ${turn.minInterruptionMs} ms of speech, ${turn.minInterruptionWords} words, no pause-and-resume`,
  `fakes (both): final transcript at the session's VAD end of speech, LLM reply "${REPLY}" at once, TTS silent PCM ${TTS_MS_PER_CHAR} ms per character; one Silero VAD per process`,
  `audio: espeak-ng + sox, 16 kHz, 20 ms frames paced in real time, sessions staggered over one 8 s turn; per session an 8 s warm-up turn (not counted), then ${caseSeconds} s of turns (${singleRepeats}x for one session)${source ? '; Voxwire from sources' : ''}`,
  ...notes,
];
const table = renderTable({ header, cases, sims, frameworks, requested });
console.log(table);
if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify({ args, cases, sims }, null, 2)}\n`);
