import type { TextOutput } from './io.js';

/**
 * Keeps the agent's transcript in step with the audio that has been sent: text is revealed in proportion
 * to the audio played so far (the speaking rate is learned from the text and audio produced so far), and
 * cut at a word boundary. An interrupted message therefore holds about what the user heard.
 */
export class TranscriptSync {
  private text = '';
  private audioMs = 0;
  private revealed = 0;
  private textComplete = false;

  constructor(private readonly output: TextOutput | undefined) {}

  get fullText(): string {
    return this.text;
  }

  pushText(text: string): void {
    this.text += text;
  }

  pushAudio(durationMs: number): void {
    this.audioMs += durationMs;
  }

  markTextComplete(): void {
    this.textComplete = true;
  }

  /** Reveals the text spoken by the first `playedMs` of audio. */
  revealUntil(playedMs: number): void {
    this.revealTo(this.charsAt(playedMs));
  }

  revealAll(): void {
    this.revealTo(this.text.length);
    this.output?.flush();
  }

  /** The text spoken by the first `playedMs` of audio, cut at a word boundary. */
  textAt(playedMs: number): string {
    return this.text.slice(0, this.charsAt(playedMs)).trim();
  }

  private charsAt(playedMs: number): number {
    if (this.audioMs <= 0) return 0;
    if (this.textComplete && playedMs >= this.audioMs) return this.text.length;
    const chars = Math.min(this.text.length, Math.floor((this.text.length * playedMs) / this.audioMs));
    if (chars >= this.text.length) return this.text.length;
    // Only whole words: back up to the last space.
    const cut = this.text.lastIndexOf(' ', chars);
    return Math.max(cut, 0);
  }

  private revealTo(chars: number): void {
    if (chars <= this.revealed) return;
    const piece = this.text.slice(this.revealed, chars);
    this.revealed = chars;
    this.output?.captureText(piece);
  }
}
