import {
  type BatchTTS,
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
  type SynthesizedAudio,
  splitFrame,
} from '@voxwire/agents/provider-utils';
import type { HeardSpeech } from './heard-speech.js';

/**
 * The offline voice when no local TTS is installed: whatever the agent says, it plays back the user's
 * last utterance (a parrot), so the whole loop, interruptions included, can still be heard.
 */
export class ReplayTTS implements BatchTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'offline.replay';
  readonly sampleRate = 16000;
  readonly numChannels = 1;
  private lastPlayed: unknown;

  constructor(private readonly heard: HeardSpeech) {}

  async *synthesize(_text: string, options: ProviderCallOptions = {}): AsyncIterable<SynthesizedAudio> {
    const utterance = this.heard.lastUtterance;
    // A reply is cut into sentences: the utterance is played once, on the first of them.
    if (!utterance || utterance === this.lastPlayed) return;
    this.lastPlayed = utterance;
    for (const frame of splitFrame(utterance, 40)) {
      if (options.signal?.aborted) return;
      yield { frame };
    }
  }
}
