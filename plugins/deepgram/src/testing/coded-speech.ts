import { AudioFrame } from '@voxwire/agents/provider-utils';

/**
 * Test audio that a fake recognizer can "hear" exactly: every word is a run of one constant sample
 * value (its index in `VOCABULARY`), silence is 0. A replayed or re-cut stream is recognized the same
 * way, so a test can tell a lost word from a duplicated one.
 */
export const VOCABULARY = [
  '',
  'hello',
  'world',
  'how',
  'are',
  'you',
  'today',
  'please',
  'book',
  'a',
  'table',
  'for',
  'two',
  'at',
  'seven',
  'thanks',
  'deepgram',
  'voxwire',
] as const;

export interface CodedSpeechOptions {
  sampleRate?: number;
  /** Each word lasts this long. Default 300. */
  wordMs?: number;
  /** Silence between words. Default 100. */
  gapMs?: number;
  /** Frames are cut to this length. Default 20. */
  frameMs?: number;
  /** Silence after the last word. Default 0. */
  trailingSilenceMs?: number;
}

/** Frames that say `words` (each from `VOCABULARY`), ready to push into an STT stream. */
export function speechFrames(words: readonly string[], options: CodedSpeechOptions = {}): AudioFrame[] {
  const sampleRate = options.sampleRate ?? 16_000;
  const perMs = sampleRate / 1000;
  const samples: number[] = [];
  const append = (value: number, ms: number): void => {
    for (let i = 0; i < Math.round(ms * perMs); i++) samples.push(value);
  };
  words.forEach((word, index) => {
    const code = VOCABULARY.indexOf(word as (typeof VOCABULARY)[number]);
    if (code <= 0) throw new RangeError(`"${word}" is not in the test vocabulary`);
    if (index > 0) append(0, options.gapMs ?? 100);
    append(code, options.wordMs ?? 300);
  });
  append(0, options.trailingSilenceMs ?? 0);
  return cut(Int16Array.from(samples), sampleRate, options.frameMs ?? 20);
}

/** Silence, cut into frames. */
export function silenceFrames(
  ms: number,
  options: { sampleRate?: number; frameMs?: number } = {},
): AudioFrame[] {
  const sampleRate = options.sampleRate ?? 16_000;
  return cut(new Int16Array(Math.round((ms * sampleRate) / 1000)), sampleRate, options.frameMs ?? 20);
}

function cut(samples: Int16Array, sampleRate: number, frameMs: number): AudioFrame[] {
  const size = Math.max(1, Math.round((frameMs * sampleRate) / 1000));
  const frames: AudioFrame[] = [];
  for (let start = 0; start < samples.length; start += size) {
    const piece = samples.slice(start, start + size);
    frames.push(new AudioFrame(piece, sampleRate, 1, piece.length));
  }
  return frames;
}

/** A word the fake recognizer heard, in ms of the stream it heard it on. */
export interface HeardWord {
  word: string;
  startMs: number;
  endMs: number;
}

/**
 * Follows a stream of coded samples and reports each word once its run ends. Positions are in ms
 * from the first sample fed.
 */
export class CodedSpeechRecognizer {
  private sampleCount = 0;
  private currentCode = 0;
  private currentStart = 0;
  /** The current run was already reported by `cutWord()`. */
  private cut = false;

  constructor(readonly sampleRate: number) {}

  get positionMs(): number {
    return (this.sampleCount * 1000) / this.sampleRate;
  }

  /** Whether a word is being spoken right now (its run has not ended). */
  get inWord(): boolean {
    return this.currentCode !== 0;
  }

  /** Feeds samples; returns the words whose run ended inside them, and whether a word began. */
  feed(samples: Int16Array): { words: HeardWord[]; started: number[] } {
    const words: HeardWord[] = [];
    const started: number[] = [];
    for (let i = 0; i < samples.length; i++) {
      const code = samples[i]!;
      if (code !== this.currentCode) {
        if (this.currentCode !== 0 && !this.cut) {
          words.push(this.word(this.currentCode, this.currentStart, this.sampleCount));
        }
        this.cut = false;
        if (code !== 0) started.push((this.sampleCount * 1000) / this.sampleRate);
        this.currentCode = code;
        this.currentStart = this.sampleCount;
      }
      this.sampleCount++;
    }
    return { words, started };
  }

  /** Ends the word being spoken, if any (the stream is finalized mid-word). */
  cutWord(): HeardWord | undefined {
    if (this.currentCode === 0 || this.cut) return undefined;
    this.cut = true;
    return this.word(this.currentCode, this.currentStart, this.sampleCount);
  }

  private word(code: number, start: number, end: number): HeardWord {
    return {
      word: VOCABULARY[code] ?? `unknown${code}`,
      startMs: (start * 1000) / this.sampleRate,
      endMs: (end * 1000) / this.sampleRate,
    };
  }
}
