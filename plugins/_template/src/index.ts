export { EchoLLM, type EchoLLMOptions } from './llm.js';
export { EchoSTT, type EchoSTTOptions } from './stt.js';
export { EchoTTS, type EchoTTSOptions } from './tts.js';
export type { EchoHttpOptions } from './http.js';
