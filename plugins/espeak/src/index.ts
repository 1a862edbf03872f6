export { EspeakNotFoundError } from './errors.js';
export { EspeakTTS, type EspeakTTSOptions } from './tts.js';
export { type PcmFormat, StreamingWavReader } from './wav-reader.js';
