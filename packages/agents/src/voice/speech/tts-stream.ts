import { TTSStreamAdapter } from '../../adapters/tts-stream-adapter.js';
import type { ProviderProblem } from '../../providers/common.js';
import type { BatchTTS, TTS, TTSStream } from '../../providers/tts.js';

/**
 * Opens streaming syntheses for one session. A batch synthesizer gets the reply cut into sentences by
 * an adapter kept per session, so no state is shared between sessions.
 */
export class TtsStreamOpener {
  private readonly adapters = new WeakMap<BatchTTS, TTSStreamAdapter>();

  constructor(private readonly onProblem: (problem: ProviderProblem) => void) {}

  open(tts: TTS, signal: AbortSignal): TTSStream {
    const options = { signal, onProblem: this.onProblem };
    if (tts.kind === 'streaming') return tts.stream(options);
    let adapter = this.adapters.get(tts);
    if (!adapter) {
      adapter = new TTSStreamAdapter(tts);
      this.adapters.set(tts, adapter);
    }
    return adapter.stream(options);
  }
}
