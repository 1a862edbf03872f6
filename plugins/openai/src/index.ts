export { API_KEY_ENV, BASE_URL_ENV, OpenAIConfigError, type OpenAIClientOptions } from './client.js';
export { LLM, type LLMOptions } from './llm/llm.js';
export type { LLMMetrics, LLMMetricsListener } from './metrics.js';
export { STT, type STTOptions } from './stt.js';
export { TTS, type TTSOptions } from './tts.js';
