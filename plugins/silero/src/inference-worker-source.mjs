// Starts the inference worker from its TypeScript source, for `pnpm dev` (node --import tsx). On Node 20
// a worker does not get the parent's module hooks from `--import tsx`, so it registers tsx itself before
// loading the source; a published package never uses this file (it runs dist/inference-worker.js).
const { register } = await import('tsx/esm/api');
register();
await import(new URL('./inference-worker.ts', import.meta.url).href);
