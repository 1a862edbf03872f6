// The bench's smoke test: the smallest run of every figure (Voxwire from its sources, LiveKit's one
// session beside it) must finish and print the whole table. It never asserts a figure: a shared CI
// machine cannot say anything about performance, only that the bench still measures.
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES, RATE, timeline } from './audio.mjs';
import * as testing from '@voxwire/testing';
import { createReference, quietRuns } from './interference.mjs';
import { compareBuilds } from './side-by-side.mjs';
import { cpuRatios, holds, judgedSpeed, sessionsHeld } from './table.mjs';

const run = promisify(execFile);
const bench = fileURLToPath(new URL('./bench.mjs', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

const missing = ['espeak-ng', 'sox'].filter((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});
// Under CI a missing tool fails the run (as the other real-speech suites do) instead of skipping.
const skip = missing.length > 0 && !process.env.CI;
if (skip) console.warn(`bench smoke test skipped: apt-get install -y ${missing.join(' ')}`);

describe.skipIf(skip)('bench audio', () => {
  it('lays turns out with known speech positions and silence between them', () => {
    const t = timeline({ kind: 'conversation', cycle: 2 });
    expect(t.samples.length).toBe(2 * 8 * RATE);
    const first = t.turns[0];
    expect(first.bargeIn).toBeDefined();
    expect(t.turns[1].bargeIn).toBeUndefined();
    // Speech exactly where the layout says, digital silence right after the last speech sample.
    expect(Math.abs(t.samples[first.lastSpeech])).toBeGreaterThan(0);
    expect(t.samples.subarray(first.lastSpeech + 1, first.bargeIn?.start).every((s) => s === 0)).toBe(true);
    expect(first.bargeIn?.start).toBe(first.lastSpeech + 1 + 0.8 * RATE);
    expect(FRAME_SAMPLES).toBe(RATE / 50);
  });

  it('repeats the same turns after a warm-up turn, so runs of any length hear the same words', () => {
    const t = timeline({ kind: 'conversation', cycle: 3, repeats: 2, warmup: true });
    expect(t.turns.map((turn) => turn.warmup)).toEqual([true, false, false, false, false, false, false]);
    expect(t.turns[4].text).toBe(t.turns[1].text);
    expect(t.turns[4].lastSpeech - t.turns[4].start).toBe(t.turns[1].lastSpeech - t.turns[1].start);
    expect(t.turns.map((turn) => turn.bargeIn !== undefined)).toEqual([
      true,
      true,
      false,
      true,
      true,
      false,
      true,
    ]);
  });

  it('puts a pause inside every hesitant turn of the endpointing timeline', () => {
    const t = timeline({ kind: 'endpointing', cycle: 2 });
    const hesitant = t.turns[1];
    expect(hesitant.parts).toHaveLength(2);
    const [a, b] = hesitant.parts;
    expect(b.start - a.end - 1).toBe(RATE); // 1000 ms
    expect(t.samples.subarray(a.end + 1, b.start).every((s) => s === 0)).toBe(true);
  });
});

describe('session-count rule', () => {
  const base = { framework: 'voxwire', variant: 'vad', kind: 'conversation', utterancesPerSession: 10 };
  const at = (sessions: number, p95: number, missedReplies = 0) => ({
    ...base,
    sessions,
    latencyMs: { p95 },
    problems: { missedReplies },
  });
  it('holds while p95 stays within 20 ms of one session and replies arrive', () => {
    const one = at(1, 600);
    expect(holds(at(10, 620), one)).toBe(true);
    expect(holds(at(10, 621), one)).toBe(false);
    expect(holds(at(100, 600, 50), one)).toBe(false);
    expect(sessionsHeld([one, at(10, 610), at(25, 615), at(100, 700), at(300, 605)], 'voxwire')).toBe(25);
  });
});

describe('CPU ratio over alternated rounds', () => {
  const cpu = (framework: string, ms: number, cpuRound?: number) => ({
    framework,
    sessions: 1,
    variant: 'vad',
    kind: 'conversation',
    cpuMsPerConversationSecond: ms,
    ...(cpuRound ? { cpuRound } : {}),
  });

  it('takes each round net of its own driver run and judges the median', () => {
    const r = cpuRatios(
      [
        cpu('voxwire', 30, undefined),
        cpu('livekit', 70),
        cpu('driver', 10),
        cpu('voxwire', 40, 1),
        cpu('livekit', 60, 1),
        cpu('driver', 20, 1),
        cpu('voxwire', 25, 2),
        cpu('livekit', 85, 2),
        cpu('driver', 5, 2),
      ],
      1,
    );
    expect(r?.rounds.map((x) => x.net)).toEqual([20 / 60, 20 / 40, 20 / 80]);
    expect(r?.net).toBe(20 / 60);
    expect(r?.whole).toBe(30 / 70);
  });

  it('has no net ratio unless every round measured its driver, and skips a failed case', () => {
    const r = cpuRatios(
      [
        cpu('voxwire', 30),
        cpu('livekit', 60),
        cpu('driver', 10),
        cpu('voxwire', 40, 1),
        cpu('livekit', 80, 1),
        { ...cpu('voxwire', 1, 2), failed: 'timed out' },
        cpu('livekit', 80, 2),
      ],
      1,
    );
    expect(r?.rounds).toHaveLength(2);
    expect(r?.net).toBeUndefined();
    expect(r?.whole).toBe(0.5);
    expect(cpuRatios([cpu('voxwire', 30)], 1)).toBeUndefined();
  });
});

describe('simulation speed on a shared machine', () => {
  const run = (cpuMs: number, referenceBeforeMs: number, referenceAfterMs: number) => ({
    simulatedMs: 160_000,
    cpuMs,
    referenceBeforeMs,
    referenceAfterMs,
  });

  it('keeps the runs whose references on both sides stayed within 20% of the best reference', () => {
    const runs = [
      run(30, 1.0, 1.1),
      run(55, 1.1, 1.9),
      run(31, 1.19, 1.2),
      run(52, 1.7, 1.0),
      run(29, 1.05, 1.0),
    ];
    const r = quietRuns(runs);
    expect(r.referenceBestMs).toBe(1.0);
    expect(r.quiet.map((x) => x.cpuMs)).toEqual([30, 31, 29]);
    // References sorted: 1.0 1.0 1.0 1.05 1.1 1.1 1.19 1.2 1.7 1.9; the median is the sixth.
    expect(r.interference).toBeCloseTo(1.1, 10);
    expect(quietRuns([])).toEqual({ quiet: [], referenceBestMs: undefined, interference: undefined });
  });

  it('judges the undisturbed median when there is one, else the median of all runs', () => {
    expect(judgedSpeed({ speedMedian: 3000, quiet: { runs: 12, speedMedian: 5200 } })).toBe(5200);
    expect(judgedSpeed({ speedMedian: 3000 })).toBe(3000);
  });

  it('compares two builds pair by pair, alternating which runs first', async () => {
    // The same build on both sides: the comparison's own bookkeeping, not a figure.
    const r = await compareBuilds(testing, testing, { pairs: 3, warmupPairs: 0, seconds: 20 });
    expect(r.all?.pairs).toBe(3);
    expect(r.all?.nextMsMedian).toBeGreaterThan(0);
    expect(Number.isFinite(r.all?.nextOverPreviousMedian)).toBe(true);
    expect(r.interference).toBeGreaterThanOrEqual(1);
  });

  it('times the reference workload in CPU ms, with an effect the compiler cannot drop', () => {
    const reference = createReference();
    const times = [reference(), reference(), reference()];
    expect(times.every((ms) => ms > 0 && Number.isFinite(ms))).toBe(true);
  });
});

describe.skipIf(skip)('bench smoke run', () => {
  it('runs a tiny version of every figure and prints the table', async () => {
    const { stdout } = await run(process.execPath, [bench, '--smoke', '--source', '--endpointing'], {
      cwd: root,
      timeout: 170_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    });
    for (const heading of [
      '1. Reply latency',
      '2./3. Sessions per process',
      '4. Interruption',
      '5. @voxwire/testing',
      '6. Endpointing',
    ]) {
      expect(stdout).toContain(heading);
    }
    // Measured, whatever the values: a latency, a CPU figure, a simulation speed, every variant's row.
    expect(stdout).toMatch(/^ {3}median\s+\d+ ms/m);
    expect(stdout).toMatch(/^ {3}1\s+voxwire\s+\d+ ms\s+\d+ ms\s+\d+\/\d+\s+\d+\.\d+/m);
    expect(stdout).toMatch(/simulated seconds per CPU second\s+\d+x/);
    expect(stdout).toMatch(/soak 1 simulated min/);
    for (const variant of ['vad-ttft300', 'preemptive', 'turn-detector']) {
      expect(stdout).toMatch(new RegExp(`^ {3}${variant}\\s+voxwire\\s+(\\d+ ms|not available)`, 'm'));
    }
  }, 180_000);
});
