import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { defaultWorkerUrl, hasTypeScriptLoader } from './executor.js';

const run = promisify(execFile);

describe('inference workers when running from sources', () => {
  it('recognises the flags that load tsx, and nothing else', () => {
    expect(hasTypeScriptLoader(['--conditions=@voxwire/source', '--import', 'tsx'])).toBe(true);
    expect(hasTypeScriptLoader(['--import=tsx'])).toBe(true);
    expect(hasTypeScriptLoader(['--loader', 'tsx/esm'])).toBe(true);
    expect(hasTypeScriptLoader(['--import', './setup.js', '--no-warnings'])).toBe(false);
    expect(hasTypeScriptLoader([])).toBe(false);
  });

  it('finds no worker under a test runner that starts no loader in workers', () => {
    // Vitest transforms TypeScript itself: a worker started from a .ts file could not load it.
    expect(defaultWorkerUrl([])).toBeUndefined();
  });

  it('runs inference in worker threads under `node --import tsx`, as `pnpm dev` does, with no warning', async () => {
    const index = new URL('./index.ts', import.meta.url).href;
    const script = `
      process.on('warning', (w) => console.log('warning', w.code ?? w.name));
      const { SileroVAD } = await import(${JSON.stringify(index)});
      // 'auto' would start its workers only under load; this is about the workers starting from sources.
      const vad = await SileroVAD.load({ inference: 'workers' });
      const stream = vad.stream();
      const { AudioFrame } = await import('@voxwire/agents');
      for (let i = 0; i < 20; i++) stream.pushFrame(new AudioFrame(new Int16Array(320), 16000, 1, 320));
      stream.endInput();
      let events = 0;
      for await (const _ of stream) events++;
      console.log('inference', vad.inference, 'events', events > 0);
      await vad.close();
    `;
    const { stdout } = await run(
      process.execPath,
      ['--conditions=@voxwire/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 60_000 },
    );
    expect(stdout).toContain('inference workers events true');
    expect(stdout).not.toContain('warning');
  }, 90_000);
});
