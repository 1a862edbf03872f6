// Raw onnxruntime cost of one window (one row) in the model file's own graph and in the plugin's
// batched graph, at several batch sizes, on one thread. The two graphs alternate within each round, so
// machine load hits both alike; the median of the rounds is printed.
// `node src/graph-cost.mjs [rounds] [idleMs]` (the plugin must be built). With idleMs, the thread sleeps
// that long before every call and only the calls' own CPU is counted: what a live batch costs once its
// weights have gone cold, without the wake-up.
import { batchedGraphBytes, CONTEXT, openRaw, WINDOW } from './raw.mjs';

const rounds = Number(process.argv[2] ?? 3);
const idleMs = Number(process.argv[3] ?? 0);
const ROWS_PER_CASE = idleMs > 0 ? 1000 : 6000;
const graphs = { file: await openRaw(), batched: await openRaw(await batchedGraphBytes()) };

async function microsPerRow({ ort, session, extra }, batch) {
  const input = new Float32Array(batch * (CONTEXT + WINDOW));
  for (let i = 0; i < input.length; i++) input[i] = Math.sin(i / 9) * 0.2 * ((i >> 10) % 2);
  const feeds = {
    input: new ort.Tensor('float32', input, [batch, CONTEXT + WINDOW]),
    state: new ort.Tensor('float32', new Float32Array(2 * batch * 128), [2, batch, 128]),
    ...extra,
  };
  for (let i = 0; i < 20; i++) await session.run(feeds);
  const calls = Math.ceil(ROWS_PER_CASE / batch);
  if (idleMs === 0) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await session.run(feeds);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / (calls * batch);
  }
  let micros = 0;
  for (let i = 0; i < calls; i++) {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const start = process.cpuUsage();
    await session.run(feeds);
    const used = process.cpuUsage(start);
    micros += used.user + used.system;
  }
  return micros / (calls * batch);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `µs of CPU per window (row), ${idleMs > 0 ? `${idleMs} ms of idling before each call` : 'calls back to back'}, public API, 1 intra-op thread`,
);
console.log('batch   file graph   batched graph   batched / file');
for (const batch of [1, 8, 16, 32, 64]) {
  const runs = { file: [], batched: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of ['file', 'batched']) runs[name].push(await microsPerRow(graphs[name], batch));
  }
  const file = median(runs.file);
  const batched = median(runs.batched);
  console.log(
    `${String(batch).padStart(5)}   ${file.toFixed(1).padStart(10)}   ${batched.toFixed(1).padStart(13)}   ${(batched / file).toFixed(2).padStart(14)}x`,
  );
}
