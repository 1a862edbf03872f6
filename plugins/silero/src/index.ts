export { SileroInferenceError, SileroModelError } from './errors.js';
export { buildBatchedModel } from './batched-model.js';
export type { SileroVADOptions } from './options.js';
export { SileroVADStream } from './stream.js';
export { SileroWorkerStartError } from './worker-start.js';
export { DEFAULT_MODEL_PATH, SileroVAD } from './vad.js';
