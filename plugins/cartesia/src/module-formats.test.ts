import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeCartesiaServer } from './testing/fake-cartesia-server.js';
import { KEY } from './testing/helpers.js';

/**
 * The published JavaScript, loaded by name in a separate Node process, once with `require` and once
 * with `import`: the plugin must open its WebSocket from both (the Cartesia SDK's ESM build cannot).
 * The files are built here exactly as `tsup.config.ts` builds them, minus the declarations.
 */

const run = promisify(execFile);
const pluginDir = fileURLToPath(new URL('..', import.meta.url));
const agentsDir = fileURLToPath(new URL('../../../packages/agents/', import.meta.url));
let server: FakeCartesiaServer;

beforeAll(async () => {
  const { build } = await import('tsup');
  const common = {
    format: ['esm', 'cjs'] as ('esm' | 'cjs')[],
    target: 'node20',
    sourcemap: true,
    treeshake: true,
    clean: false,
    dts: false,
    silent: true,
    // Not the packages' own config files: they resolve paths against the working directory.
    config: false,
  };
  if (!existsSync(`${agentsDir}dist/index.cjs`) || !existsSync(`${agentsDir}dist/provider-utils.js`)) {
    await build({
      ...common,
      external: externals(`${agentsDir}package.json`),
      entry: {
        index: `${agentsDir}src/index.ts`,
        'provider-utils': `${agentsDir}src/provider-utils/index.ts`,
      },
      outDir: `${agentsDir}dist`,
      splitting: true,
    });
  }
  await build({
    ...common,
    entry: { index: `${pluginDir}src/index.ts` },
    outDir: `${pluginDir}dist`,
    external: [...externals(`${pluginDir}package.json`), '@voxwire/agents/provider-utils'],
  });
  server = await FakeCartesiaServer.start({ apiKey: KEY });
}, 180_000);

/** What tsup leaves out of a package's bundle when it reads the package's own manifest. */
function externals(manifestPath: string): string[] {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, Record<string, string>>;
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
}

afterAll(async () => {
  await server?.close();
});

const body = `
  const tts = new CartesiaTTS({ apiKey: process.env.CARTESIA_TEST_KEY, baseURL: process.env.CARTESIA_TEST_URL });
  const stream = tts.stream();
  stream.pushText('Hello from a module. ');
  stream.pushText('It works.');
  stream.endInput();
  let streamedMs = 0;
  for await (const chunk of stream) streamedMs += chunk.frame.durationMs;
  let bytesMs = 0;
  for await (const chunk of tts.synthesize('Bytes too.')) bytesMs += chunk.frame.durationMs;
  await tts.close();
  console.log(JSON.stringify({ streamedMs, bytesMs, words: stream.words.length }));
`;

async function speakIn(args: string[]): Promise<{ streamedMs: number; bytesMs: number; words: number }> {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const { stdout } = await run(process.execPath, args, {
    cwd: pluginDir,
    env: { ...env, CARTESIA_TEST_KEY: KEY, CARTESIA_TEST_URL: server.url },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('the built package', () => {
  it('works when loaded with require (CommonJS)', async () => {
    const script = `const { CartesiaTTS } = require('@voxwire/plugin-cartesia');
      (async () => { ${body} })().catch((e) => { console.error(e); process.exit(1); });`;
    const result = await speakIn(['-e', script]);
    expect(result).toEqual({ streamedMs: 300, bytesMs: 100, words: 6 });
  });

  it('works when loaded with import (ES module)', async () => {
    const script = `import { CartesiaTTS } from '@voxwire/plugin-cartesia';\n${body}`;
    const result = await speakIn(['--input-type=module', '-e', script]);
    expect(result).toEqual({ streamedMs: 300, bytesMs: 100, words: 6 });
  });
});
