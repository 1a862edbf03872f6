/**
 * Builds the package the way it ships (an ESM bundle plus the worker entry beside it) into a temporary
 * directory laid out like the published package, so tests exercise real worker threads without
 * depending on a prior `pnpm build`.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface TestBuild {
  root: string;
  indexUrl: URL;
  workerUrl: URL;
  dispose(): void;
}

export async function buildPackage(): Promise<TestBuild> {
  const root = mkdtempSync(join(tmpdir(), 'voxwire-silero-build-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  symlinkSync(join(packageRoot, 'model'), join(root, 'model'), 'dir');
  await build({
    entryPoints: {
      index: join(packageRoot, 'src/index.ts'),
      'inference-worker': join(packageRoot, 'src/inference-worker.ts'),
    },
    outdir: join(root, 'dist'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The core is bundled from its sources (it is not built here); the native runtime stays external.
    conditions: ['@voxwire/source'],
    external: ['onnxruntime-node'],
    logLevel: 'error',
  });
  return {
    root,
    indexUrl: pathToFileURL(join(root, 'dist/index.js')),
    workerUrl: pathToFileURL(join(root, 'dist/inference-worker.js')),
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}
