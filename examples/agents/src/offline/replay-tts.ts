import {
  type SynthesizedAudio,
  splitFrame,
  type TTS,
  type TTSCapabilities,
  type TTSStream,
  TTSStreamAdapter,
} from '@voxwire/agents';
import type { HeardSpeech } from './heard-speech.js';

/**
 * The offline voice when no local TTS is installed: whatever the agent says, it plays back the user's
 * last utterance (a parrot), so the whole loop, interruptions included, can still be heard.
 */
export class ReplayTTS implements TTS {
  readonly label = 'offline.replay';
  readonly sampleRate = 16000;
  readonly numChannels = 1;
  readonly capabilities: TTSCapabilities = { streaming: false };
  private adapter: TTSStreamAdapter | undefined;
  private lastPlayed: unknown;

  constructor(private readonly heard: HeardSpeech) {}

  async *synthesize(_text: string, options: { signal?: AbortSignal } = {}): AsyncIterable<SynthesizedAudio> {
    const utterance = this.heard.lastUtterance;
    // A reply is cut into sentences: the utterance is played once, on the first of them.
    if (!utterance || utterance === this.lastPlayed) return;
    this.lastPlayed = utterance;
    const frames = splitFrame(utterance, 40);
    for (const [i, frame] of frames.entries()) {
      if (options.signal?.aborted) return;
      yield { frame, segmentId: 'replay', final: i === frames.length - 1 };
    }
  }

  stream(options: { signal?: AbortSignal } = {}): TTSStream {
    this.adapter ??= new TTSStreamAdapter(this);
    return this.adapter.stream(options);
  }
}
