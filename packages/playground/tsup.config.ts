import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
  // import.meta.url locates the page's files (public/ beside dist/); the CJS build needs it shimmed.
  shims: true,
});
