import { rmSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

// The configs below build in parallel, so none of them may clean: the output folder is emptied once,
// when this file loads, before any of them starts.
rmSync('dist', { recursive: true, force: true });

const common: Options = {
  format: ['esm', 'cjs'],
  sourcemap: true,
  clean: false,
  target: 'node20',
  treeshake: true,
};

/** One build per export path (`.` and `./provider-utils`): dist/index.* and dist/provider-utils.*. */
const entries = { index: 'src/index.ts', 'provider-utils': 'src/provider-utils/index.ts' };

export default defineConfig([
  {
    ...common,
    entry: entries,
    dts: false,
    // Code both entries use goes to shared chunks, in CJS too: with a copy per entry, an `APIError`
    // thrown through one entry would fail the `instanceof` checks made by the other.
    splitting: true,
  },
  // Declarations per entry, so that each .d.ts is whole (the API reports read them) instead of
  // importing declaration chunks with hashed names.
  ...Object.entries(entries).map(
    ([name, file]): Options => ({
      ...common,
      entry: { [name]: file },
      // Members marked @internal are the session's own wiring, not API.
      dts: { only: true, compilerOptions: { stripInternal: true } },
    }),
  ),
]);
