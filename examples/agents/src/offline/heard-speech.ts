import { AudioFrame } from '@voxwire/agents';
import {
  AudioResampler,
  concatenateFrames,
  type BatchSTT,
  rmsDbfs,
  SPECIFICATION_VERSION,
  type SpeechAlternative,
  splitFrame,
  toMono,
} from '@voxwire/agents/provider-utils';

/** Rate the remembered utterance is kept at: enough for a voice, small in memory. */
const KEEP_RATE = 16000;
/** Longest utterance remembered for playback. */
const KEEP_MAX_MS = 15_000;
/** The VAD hands over its padding and the silence that ended the turn: only louder audio counts as speech. */
const SPEECH_DBFS = -45;
const STEP_MS = 20;

/**
 * The offline stand-in for speech-to-text: no recognizer can be had without a key or a model, so each
 * utterance the VAD cuts is "transcribed" as its length, e.g. `(1.4 s of speech)`, and the latest one
 * is remembered so a `ReplayTTS` can play it back.
 */
export class HeardSpeech implements BatchSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** The session's VAD cuts the utterances. */
  readonly kind = 'batch';
  readonly label = 'offline.heard-speech';
  readonly inputSampleRates = [KEEP_RATE];
  private last: AudioFrame | undefined;

  /** The last utterance heard, mono at 16 kHz, or undefined before the first one. */
  get lastUtterance(): AudioFrame | undefined {
    return this.last;
  }

  async recognize(frames: readonly AudioFrame[]): Promise<SpeechAlternative[]> {
    if (frames.length === 0) return [{ text: '' }];
    const speech = trimSilence(toMono(concatenateFrames(frames)));
    this.remember(speech);
    return [{ text: describeSpeech(speech.durationMs) }];
  }

  private remember(mono: AudioFrame): void {
    const resampler = new AudioResampler(mono.sampleRate, KEEP_RATE);
    const kept = concatenateFrames([...resampler.push(mono), ...resampler.flush()]);
    const maxSamples = (KEEP_MAX_MS * KEEP_RATE) / 1000;
    this.last =
      kept.samplesPerChannel > maxSamples
        ? new AudioFrame(kept.data.slice(0, maxSamples), KEEP_RATE, 1, maxSamples)
        : kept;
  }
}

/** Cuts the quiet start and end (the VAD's padding and the silence that ended the turn). */
function trimSilence(audio: AudioFrame): AudioFrame {
  const steps = splitFrame(audio, STEP_MS);
  const loud = steps.map((step) => rmsDbfs(step) > SPEECH_DBFS);
  const first = loud.indexOf(true);
  if (first < 0) return audio;
  return concatenateFrames(steps.slice(first, loud.lastIndexOf(true) + 1));
}

export function describeSpeech(ms: number): string {
  return `(${(ms / 1000).toFixed(1)} s of speech)`;
}

/** Reads back the length from a `describeSpeech()` text, or undefined for any other text. */
export function heardSeconds(text: string): number | undefined {
  const match = /^\((\d+(?:\.\d+)?) s of speech\)$/u.exec(text.trim());
  return match ? Number(match[1]) : undefined;
}
