import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
  // import.meta.url locates the bundled model; the CJS build needs it shimmed.
  shims: true,
});
