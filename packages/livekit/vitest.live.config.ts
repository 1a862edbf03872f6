import { defineConfig } from 'vitest/config';

// The end-to-end test against a real LiveKit server (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET).
export default defineConfig({
  resolve: { conditions: ['@voxwire/source'] },
  ssr: { resolve: { conditions: ['@voxwire/source'], externalConditions: ['@voxwire/source'] } },
  test: { include: ['src/**/*.live.test.ts'], testTimeout: 60_000, hookTimeout: 60_000, pool: 'forks' },
});
