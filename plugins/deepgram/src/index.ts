export type {
  DeepgramMetrics,
  DeepgramMetricsListener,
  DeepgramRecognizeMetrics,
  DeepgramStreamMetrics,
  DeepgramTranscriptMetrics,
} from './metrics.js';
export {
  API_KEY_ENV,
  DEFAULT_BASE_URL,
  type DeepgramConnectionOptions,
  type DeepgramSTTOptions,
} from './options.js';
export { DeepgramSTT } from './stt.js';
export type { DeepgramSpeechAlternative, DeepgramWord } from './transcript.js';
export { DeepgramFluxSTT, type DeepgramFluxSTTOptions } from './flux.js';
