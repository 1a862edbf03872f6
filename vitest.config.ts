import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Workspace packages resolve to their TypeScript sources, so tests need no build first.
    conditions: ['@voxwire/source'],
  },
  ssr: {
    resolve: { conditions: ['@voxwire/source'], externalConditions: ['@voxwire/source'] },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'plugins/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
    // `*.live.test.ts` need a service this machine cannot run (a LiveKit server): each package runs its own
    // with `pnpm test:live`, so the suite never reports them as skipped.
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.fuzz.test.ts', '**/*.live.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
