export { EspeakNotFoundError } from './errors.js';
export { EspeakTTS, type EspeakTTSOptions } from './tts.js';
