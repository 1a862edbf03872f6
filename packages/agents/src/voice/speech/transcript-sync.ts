import type { TextOutput } from '../../providers/audio-io.js';
import type { TimedWord } from '../../providers/common.js';

/**
 * How many characters a voice speaks per ms, learned from speeches played to the end. Until the first
 * one, a typical synthetic voice (about 15 characters a second), kept on the low side: a transcript that
 * lags the audio a little is better than one that claims words nobody heard.
 */
export class SpeakingRate {
  private charsPerMs = 0.015;

  get value(): number {
    return this.charsPerMs;
  }

  learn(chars: number, audioMs: number): void {
    if (chars < 20 || audioMs < 500) return;
    const observed = chars / audioMs;
    this.charsPerMs = this.charsPerMs * 0.7 + observed * 0.3;
  }
}

/**
 * Keeps the agent's transcript in step with the audio that has been heard, cut at a word boundary. When
 * the synthesizer times its words, a word counts as heard once half of it has played. Otherwise, once a
 * step's text and audio are both complete the mapping is exact (proportional); before that the text
 * usually runs ahead of the synthesized audio, so the learned speaking rate bounds the estimate. An
 * interrupted message therefore holds about what the user heard, never more.
 */
export class TranscriptSync {
  private text = '';
  private audioMs = 0;
  private revealed = 0;
  private textComplete = false;
  private audioComplete = false;
  /** Timed words found in the text, in order: where each ends in the text and when half of it played. */
  private readonly timed: Array<{ endChar: number; heardAtMs: number }> = [];
  /** Where the search for the next timed word starts in the text. */
  private wordCursor = 0;

  constructor(
    private readonly output: TextOutput | undefined,
    private readonly rate: SpeakingRate,
  ) {}

  get fullText(): string {
    return this.text;
  }

  pushText(text: string): void {
    this.text += text;
  }

  pushAudio(durationMs: number): void {
    this.audioMs += durationMs;
  }

  /**
   * Word timings from the synthesizer. Each word is looked for in the text after the previous one; a
   * word the text does not hold as written (a voice that reads "2" as "two") is skipped, and the words
   * around it still place the transcript.
   */
  pushWords(words: readonly TimedWord[]): void {
    const lower = this.text.toLowerCase();
    for (const { word, startMs, endMs } of words) {
      const needle = word.trim().toLowerCase();
      if (needle === '') continue;
      const at = lower.indexOf(needle, this.wordCursor);
      if (at < 0) continue;
      this.wordCursor = at + needle.length;
      const heardAtMs = (startMs + Math.max(endMs, startMs)) / 2;
      const last = this.timed[this.timed.length - 1];
      // Times only move forward: a provider's rounding must not reveal a word before the one before it.
      this.timed.push({ endChar: this.wordCursor, heardAtMs: Math.max(heardAtMs, last?.heardAtMs ?? 0) });
    }
  }

  markTextComplete(): void {
    this.textComplete = true;
  }

  /** All the audio of the step's text has been produced. */
  markAudioComplete(): void {
    this.audioComplete = true;
  }

  /** Reveals the text spoken by the first `playedMs` of audio. */
  revealUntil(playedMs: number): void {
    this.revealTo(this.charsAt(playedMs));
  }

  /** The step played to the end: everything was heard, and the voice's rate is learned from it. */
  revealAll(): void {
    if (this.textComplete && this.audioComplete) this.rate.learn(this.text.length, this.audioMs);
    this.revealTo(this.text.length);
    this.output?.flush();
  }

  /** The text spoken by the first `playedMs` of audio, cut at a word boundary. */
  textAt(playedMs: number): string {
    return this.text.slice(0, this.charsAt(playedMs)).trim();
  }

  private charsAt(playedMs: number): number {
    if (this.audioMs <= 0 || playedMs <= 0) return 0;
    const exact = this.textComplete && this.audioComplete;
    if (exact && playedMs >= this.audioMs) return this.text.length;
    if (this.timed.length > 0) return this.timedCharsAt(playedMs);
    const proportional = Math.floor((this.text.length * playedMs) / this.audioMs);
    const chars = exact ? proportional : Math.min(proportional, Math.floor(playedMs * this.rate.value));
    if (chars >= this.text.length) return this.text.length;
    // Only whole words: back up to the last space.
    return Math.max(this.text.lastIndexOf(' ', chars), 0);
  }

  /** The end of the last word half heard by `playedMs`; words timed later are not claimed yet. */
  private timedCharsAt(playedMs: number): number {
    let chars = 0;
    for (const word of this.timed) {
      if (word.heardAtMs > playedMs) break;
      chars = word.endChar;
    }
    return chars;
  }

  private revealTo(chars: number): void {
    if (chars <= this.revealed) return;
    const piece = this.text.slice(this.revealed, chars);
    this.revealed = chars;
    this.output?.captureText(piece);
  }
}
