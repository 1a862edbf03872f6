// The benchmark's measurements are only as good as its harness: each case must analyse every window of
// every stream it was given, whatever the implementation. Run from sources (tsx), so no build is needed;
// the plugin then infers on the main thread, which changes the figures, not the counting.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const caseScript = fileURLToPath(new URL('./case.mjs', import.meta.url));

interface CaseResult {
  impl: string;
  cpuMs: number;
  wallMs: number;
  windows: number;
  audioSeconds: number;
  latencyMs?: { p50: number; p95: number };
}

async function measure(impl: string, streams: number, mode: 'batch' | 'paced', seconds: number) {
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions',
      '@voxwire/source',
      caseScript,
      impl,
      String(streams),
      mode,
      String(seconds),
    ],
    { cwd: root, timeout: 60_000, env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as CaseResult;
}

// Each stream gets its seconds plus half a window, cut into 512-sample windows at 16 kHz.
const windowsFor = (streams: number, seconds: number) => streams * Math.floor((seconds * 16000 + 256) / 512);

describe('benchmark cases', () => {
  it.each([
    ['raw1', 1, 'batch'],
    ['raw1Batched', 1, 'batch'],
    ['rawBatch', 3, 'batch'],
    ['rawSplit', 3, 'batch'],
    ['voxwire', 3, 'batch'],
    ['rawPacedBatched', 3, 'paced'],
    ['voxwire', 3, 'paced'],
    ['driver', 3, 'paced'],
  ] as const)('%s with %i stream(s), %s: every window analysed and timed', async (impl, streams, mode) => {
    const result = await measure(impl, streams, mode, 1);
    expect(result.impl).toBe(impl);
    expect(result.windows).toBe(windowsFor(streams, 1));
    expect(result.audioSeconds).toBeCloseTo((result.windows * 512) / 16000, 6);
    expect(result.cpuMs).toBeGreaterThan(0);
    expect(result.wallMs).toBeGreaterThan(0);
    if (mode === 'paced') {
      // Paced cases last as long as their audio, and report latency from window to result.
      expect(result.wallMs).toBeGreaterThan(900);
      expect(result.latencyMs?.p50).toBeGreaterThanOrEqual(0);
    }
  });
});
