import { defineConfig } from 'tsup';

export default defineConfig({
  // The job-process entry sits next to index.js, where the pool looks for it.
  entry: { index: 'src/index.ts', 'job-process-main': 'src/worker/job-process-main.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
  // import.meta.url in the CommonJS build too: the job-process pool finds its entry next to itself.
  shims: true,
});
