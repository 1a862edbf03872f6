import { TTSStreamAdapter } from '../../adapters/tts-stream-adapter.js';
import type { TTS, TTSStream } from '../../providers/tts.js';

const adapters = new WeakMap<TTS, TTSStreamAdapter>();

/** Opens a streaming synthesis, cutting text into sentences for providers that cannot stream text in. */
export function openTtsStream(tts: TTS, signal: AbortSignal): TTSStream {
  if (tts.capabilities.streaming) return tts.stream({ signal });
  let adapter = adapters.get(tts);
  if (!adapter) {
    adapter = new TTSStreamAdapter(tts);
    adapters.set(tts, adapter);
  }
  return adapter.stream({ signal });
}
