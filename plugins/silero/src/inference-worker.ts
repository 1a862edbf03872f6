/** Worker entry: owns one onnxruntime session and runs the batches the pool writes into shared memory. */
import { parentPort, workerData } from 'node:worker_threads';
import {
  batchViews,
  CMD_EXIT,
  CTRL_BATCH,
  CTRL_CMD,
  CTRL_CMD_SEQ,
  CTRL_CRASH,
  CTRL_DONE_SEQ,
  CTRL_ERROR_LENGTH,
  CTRL_RATE,
  CTRL_STATUS,
  CTRL_STEPS,
  CTRL_STOP,
  ERROR_TEXT_BYTES,
  type ModelSampleRate,
  STATUS_FAILED,
  STATUS_OK,
  type WorkerInit,
  type WorkerReply,
} from './protocol.js';
import { BatchRunner } from './batch-runner.js';
import { loadModel, reportOf } from './model-loader.js';
import { importOrt, messageOf } from './session.js';

async function main(init: WorkerInit): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('inference-worker must run in a worker thread');
  let runner: BatchRunner;
  try {
    const ort = await importOrt();
    const model = await loadModel(ort, {
      modelPath: init.modelPath,
      graph: init.graph,
      smallBatchKernel: init.smallBatchKernel,
      intraOpThreads: init.intraOpThreads,
      forceCPU: init.forceCPU,
    });
    runner = new BatchRunner(ort, model, init.maxBatch);
    port.postMessage({ type: 'ready', graphs: reportOf(model) } satisfies WorkerReply);
    await serve(init, runner);
  } catch (error) {
    port.postMessage({ type: 'load-error', message: messageOf(error) } satisfies WorkerReply);
  }
}

async function serve(init: WorkerInit, runner: BatchRunner): Promise<void> {
  const control = new Int32Array(init.control);
  const shared = batchViews(init.data, init.maxBatch);
  const timing = new Float64Array(init.timing);
  const errorText = new Uint8Array(init.errorText);
  const encoder = new TextEncoder();
  const stopped = () => Atomics.load(control, CTRL_STOP) === 1;
  // The control block is fresh, so the pool's first command is sequence 1. Reading the counter here
  // instead would race with a pool that got 'ready' and sent that command before this line ran.
  let seen = 0;
  for (;;) {
    // Blocking here is the point: this thread has nothing else to do until the pool signals.
    Atomics.wait(control, CTRL_CMD_SEQ, seen);
    seen = Atomics.load(control, CTRL_CMD_SEQ);
    if (control[CTRL_CMD] === CMD_EXIT) {
      await runner.release().catch(() => undefined);
      return;
    }
    // Exiting here rather than being terminated mid-run matters: onnxruntime aborts the whole process
    // when a worker is torn down inside a native call.
    if (Atomics.load(control, CTRL_CRASH) === 1) process.exit(70);
    const batch = control[CTRL_BATCH] as number;
    const steps = control[CTRL_STEPS] as number;
    const rate = control[CTRL_RATE] as ModelSampleRate;
    const started = performance.now();
    try {
      await runner.run(shared, batch, steps, rate, stopped);
      timing[0] = performance.now() - started;
      control[CTRL_STATUS] = STATUS_OK;
    } catch (error) {
      const written = encoder.encodeInto(messageOf(error), errorText.subarray(0, ERROR_TEXT_BYTES)).written;
      control[CTRL_ERROR_LENGTH] = written;
      control[CTRL_STATUS] = STATUS_FAILED;
    }
    Atomics.store(control, CTRL_DONE_SEQ, seen);
    Atomics.notify(control, CTRL_DONE_SEQ);
  }
}

void main(workerData as WorkerInit);
