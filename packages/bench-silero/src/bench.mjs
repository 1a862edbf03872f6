// `pnpm bench`: CPU per audio second and real-time factor of @voxwire/plugin-silero for 1, 32 and 100
// concurrent streams, batch-fed and real-time paced, beside raw onnxruntime on the same model (one
// window per call, and all streams in one call) and @livekit/agents-plugin-silero on the same audio.
// Every measurement runs in a fresh child process (so CPU of worker threads is counted and one
// implementation's native runtime cannot disturb another's); rounds interleave the implementations
// so drifting load on a shared machine hits all of them alike. Options: --quick, --rounds N,
// --json FILE, --only impl,impl, --streams 1,32, --modes batch,paced, --baseline FILE (another build's dist/index.js, e.g. a saved copy of
// the last release, measured as impl 'baseline' beside 'voxwire' in the batch-fed rows).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchAudio } from './audio.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const quick = flag('--quick');
const rounds = Number(option('--rounds', '1'));
const only = option('--only', '').split(',').filter(Boolean);
const baseline = option('--baseline', '');
const caseScript = fileURLToPath(new URL('./case.mjs', import.meta.url));

const STREAMS = option('--streams', '1,32,100').split(',').map(Number);
const MODES = option('--modes', 'batch,paced').split(',');
// Long enough that the start and the tail of a run (streams starting and finishing, the last JIT
// compilation) weigh little beside the steady state: at 32 streams a 15 s run read about 0.4 ms per
// stream dearer than a 60 s one (src/threads-diag.mjs).
// One stream analyses 5 minutes of audio, still under two seconds of CPU: ten one-minute runs of raw1Batched
// in one bench run ranged from 3.9 to 6.1 ms, too wide to compare implementations 10% apart.
const batchSeconds = (n) => (quick ? 0.25 : 1) * (n === 1 ? 300 : n === 32 ? 40 : 16);
const pacedSeconds = quick ? 4 : 12;

const { source } = benchAudio(); // makes the espeak-ng files once, before any child needs them
const livekitAvailable = (() => {
  try {
    execFileSync(
      process.execPath,
      ['-e', "import('@livekit/agents-plugin-silero').then(()=>process.exit(0))"],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: 'ignore',
      },
    );
    return true;
  } catch {
    return false;
  }
})();

const plan = [];
for (const n of STREAMS) {
  if (n === 1) plan.push({ impl: 'raw1', streams: n, mode: 'batch', seconds: batchSeconds(n) });
  plan.push({
    impl: n === 1 ? 'raw1Batched' : 'rawBatch',
    streams: n,
    mode: 'batch',
    seconds: batchSeconds(n),
  });
  if (n > 1) plan.push({ impl: 'rawSplit', streams: n, mode: 'batch', seconds: batchSeconds(n) });
  plan.push({ impl: 'voxwire', streams: n, mode: 'batch', seconds: batchSeconds(n) });
  if (baseline) plan.push({ impl: 'baseline', streams: n, mode: 'batch', seconds: batchSeconds(n) });
  if (livekitAvailable) plan.push({ impl: 'livekit', streams: n, mode: 'batch', seconds: batchSeconds(n) });
}
for (const n of STREAMS) {
  const floors = n === 1 ? ['raw1'] : ['raw1', 'rawPacedBatched'];
  for (const impl of ['driver', ...floors, 'voxwire', ...(livekitAvailable ? ['livekit'] : [])]) {
    plan.push({ impl, streams: n, mode: 'paced', seconds: pacedSeconds });
  }
}
const selected = plan.filter((c) => (only.length === 0 || only.includes(c.impl)) && MODES.includes(c.mode));

console.log(
  `Silero VAD benchmark: ${availableParallelism()} cores, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, audio: ${source}, ${rounds} round(s)${quick ? ', quick' : ''}`,
);
if (!livekitAvailable)
  console.log('@livekit/agents-plugin-silero could not be loaded: its rows are left out.');

// The single-stream batch cases take a second each and carry the tightest target (1.1x), so they are
// repeated within every round (interleaved) and their median is used.
const SINGLE_REPEATS = 5;
const isSingle = (c) =>
  c.streams === 1 && c.mode === 'batch' && ['raw1', 'raw1Batched', 'voxwire', 'baseline'].includes(c.impl);
const singles = selected.filter(isSingle);
const order = [];
for (const c of selected) {
  if (!isSingle(c)) order.push(c);
  else if (c === singles[0]) for (let k = 0; k < SINGLE_REPEATS; k++) order.push(...singles);
}

const results = new Map();
for (let round = 0; round < rounds; round++) {
  for (const c of order) {
    const key = `${c.mode}/${c.impl}/${c.streams}`;
    process.stderr.write(`  ${key} (round ${round + 1}) ...`);
    try {
      const out = execFileSync(
        process.execPath,
        [
          caseScript,
          c.impl === 'baseline' ? 'voxwire' : c.impl,
          String(c.streams),
          c.mode,
          String(c.seconds),
        ],
        {
          env: c.impl === 'baseline' ? { ...process.env, VOXWIRE_SILERO_MODULE: baseline } : process.env,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 15 * 60_000,
        },
      );
      const r = JSON.parse(out.trim().split('\n').at(-1));
      results.set(key, [...(results.get(key) ?? []), r]);
      process.stderr.write(` ${(r.cpuMs / r.audioSeconds).toFixed(2)} ms CPU per audio s per stream\n`);
    } catch (error) {
      process.stderr.write(` failed: ${String(error.stderr || error.message).split('\n')[0]}\n`);
    }
  }
}

/** The median round by CPU, so one disturbed run does not decide a row. */
function row(mode, impl, streams) {
  const runs = results.get(`${mode}/${impl}/${streams}`);
  if (!runs?.length) return undefined;
  const sorted = [...runs].sort((a, b) => a.cpuMs - b.cpuMs);
  const r = sorted[Math.floor(sorted.length / 2)];
  return { ...r, perStream: r.cpuMs / r.audioSeconds };
}

const floor1 = row('batch', 'raw1', 1)?.perStream;
const floor1Batched = row('batch', 'raw1Batched', 1)?.perStream;

/** CPU per audio second per stream, less the pacing driver's own share in paced mode. */
function net(mode, impl, streams) {
  const r = row(mode, impl, streams);
  if (!r) return undefined;
  if (mode !== 'paced') return r.perStream;
  const driver = row('paced', 'driver', streams);
  return driver ? r.perStream - driver.perStream : undefined;
}
const fmt = (v, digits = 2) => (v === undefined || v === null || Number.isNaN(v) ? '-' : v.toFixed(digits));
const ratio = (a, b) => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`);

const header = [
  'mode',
  'impl',
  'streams',
  'audio s',
  'CPU ms/audio s/stream',
  'net of driver',
  'RTF',
  'cores',
  'latency p50/p95 ms',
  'vs raw 1/call',
  'vs raw 1/call, batched graph',
  'vs raw batched',
  'vs raw split / live',
  'vs LiveKit',
];
const lines = [];
for (const mode of ['batch', 'paced']) {
  for (const n of STREAMS) {
    const batched = n === 1 ? floor1Batched : row('batch', 'rawBatch', n)?.perStream;
    // Paced rows compare with the live floors: batched as the plugin batches (or one window per call).
    const split =
      mode === 'paced'
        ? n === 1
          ? net('paced', 'raw1', 1)
          : net('paced', 'rawPacedBatched', n)
        : n === 1
          ? floor1Batched
          : row('batch', 'rawSplit', n)?.perStream;
    const lk = net(mode, 'livekit', n);
    for (const impl of [
      'raw1',
      'raw1Batched',
      'rawBatch',
      'rawSplit',
      'rawPacedBatched',
      'driver',
      'voxwire',
      'baseline',
      'livekit',
    ]) {
      const r = row(mode, impl, n);
      if (!r) continue;
      const latency = r.latencyMs ? `${fmt(r.latencyMs.p50, 1)}/${fmt(r.latencyMs.p95, 1)}` : '-';
      const own = net(mode, impl, n);
      lines.push([
        mode,
        impl,
        String(n),
        fmt(r.audioSeconds, 0),
        fmt(r.perStream),
        mode === 'paced' && impl !== 'driver' ? fmt(own) : '-',
        mode === 'batch' ? fmt(r.wallMs / 1000 / r.audioSeconds, 4) : fmt(r.cpuMs / 1000 / r.audioSeconds, 4),
        fmt(r.cpuMs / r.wallMs),
        latency,
        impl === 'driver' ? '-' : ratio(own, floor1),
        impl === 'driver' ? '-' : ratio(own, floor1Batched),
        impl === 'driver' ? '-' : ratio(own, batched),
        impl === 'driver' ? '-' : ratio(own, split),
        impl === 'livekit' || impl === 'driver' ? '-' : ratio(own, lk),
      ]);
    }
  }
}
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
const print = (cells) => console.log(cells.map((c, i) => c.padStart(widths[i])).join('  '));
console.log('');
print(header);
for (const l of lines) print(l);
console.log(
  '\nRTF: batch rows, wall time per second of audio across all streams; paced rows, CPU time per second of\n' +
    'audio. cores: CPU time / wall time. driver: the pacing loop alone (20 ms frames on 10 phases, and the\n' +
    "process's idle cost); paced ratios use CPU net of it. Floors: raw onnxruntime on the same weights and\n" +
    "thread settings (1 intra-op thread), batch-fed: one window per call on the model file's own graph\n" +
    "(raw1) and on the plugin's batched graph (raw1Batched); on the batched graph, all the streams in one\n" +
    'call (rawBatch, one core), or the streams split evenly over one thread per core, each share one call\n' +
    '(rawSplit: the floor for using every core). Paced rows compare with the live floor in the same\n' +
    'column: raw onnxruntime batching complete windows as the plugin does (32 ms at most), on one thread,\n' +
    'batched graph (rawPacedBatched; raw1 for one stream). Every case first analyses at least 3 s of audio\n' +
    'per stream and 3,000 windows in all, so the figures are steady-state costs.',
);

const v1 = row('batch', 'voxwire', 1)?.perStream;
const checks = [
  [
    "1 stream, batch-fed: <= 1.1x the raw one-window floor (the file's graph)",
    v1 !== undefined && floor1 !== undefined,
    v1 / floor1 <= 1.1,
    ratio(v1, floor1),
  ],
  [
    '1 stream, batch-fed: <= 1.1x the raw one-window floor on the same (batched) graph',
    v1 !== undefined && floor1Batched !== undefined,
    v1 / floor1Batched <= 1.1,
    ratio(v1, floor1Batched),
  ],
];
for (const n of [32, 100]) {
  for (const mode of ['batch', 'paced']) {
    const v = net(mode, 'voxwire', n);
    const label = `${n} streams, ${mode}: <= 2.5 ms CPU per audio s per stream${mode === 'paced' ? ' (net)' : ''}`;
    checks.push([label, v !== undefined, v <= 2.5, `${fmt(v)} ms`]);
  }
}
if (baseline) {
  const b1 = row('batch', 'baseline', 1)?.perStream;
  checks.push(['baseline build, 1 stream, batch-fed', b1 !== undefined, null, ratio(b1, floor1)]);
  for (const n of [32, 100]) {
    const b = row('batch', 'baseline', n)?.perStream;
    checks.push([`baseline build, ${n} streams, batch`, b !== undefined, null, `${fmt(b)} ms`]);
  }
}
console.log('\nTargets:');
for (const [label, measured, ok, value] of checks)
  console.log(`  ${!measured ? 'n/a ' : ok === null ? 'info' : ok ? 'PASS' : 'MISS'}  ${label} (${value})`);
console.log(
  `\nload at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

const jsonPath = option('--json', '');
if (jsonPath) writeFileSync(jsonPath, JSON.stringify(Object.fromEntries(results), null, 2));
