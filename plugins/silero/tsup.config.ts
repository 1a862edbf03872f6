import { defineConfig } from 'tsup';

export default defineConfig({
  // The worker is loaded by path at run time, so it is an entry of its own beside index.js/index.cjs.
  entry: ['src/index.ts', 'src/inference-worker.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
  // import.meta.url locates the model and the worker; the CJS build needs it shimmed.
  shims: true,
});
