export type { CartesiaSynthesizedAudio, CartesiaTTSStream } from './context-stream.js';
export { API_KEY_ENV, CartesiaConfigError } from './errors.js';
export type { CartesiaTTSMetrics } from './metrics.js';
export {
  type CartesiaExperimentalControls,
  type CartesiaGenerationConfig,
  type CartesiaTTSOptions,
  DEFAULT_API_VERSION,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_VOICE,
} from './options.js';
export type { CartesiaEncoding } from './pcm.js';
export type { WordTimestamp } from './protocol.js';
export { CartesiaTTS } from './tts.js';
export { CartesiaTTS as TTS } from './tts.js';
