// One thread of the split floor: its share of the streams as one batch, after a warm-up, on a signal.
import { parentPort, workerData } from 'node:worker_threads';
import { openRaw, runGroup } from './raw.mjs';

const { audios, windows, warmWindows, graph } = workerData;
const raw = await openRaw(graph);
await runGroup(raw, audios, warmWindows);
parentPort.postMessage('ready');
parentPort.once('message', async () => {
  await runGroup(raw, audios, windows);
  parentPort.postMessage('done');
});
