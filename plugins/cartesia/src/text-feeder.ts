import { type SentenceStream, SentenceTokenizer } from '@voxwire/agents/provider-utils';

/** What to send on a context, in order: a piece of transcript, or a request to synthesize what came so far. */
export type FeedStep = { type: 'text'; text: string } | { type: 'flush' };

const TERMINATORS = '.!?…．。｡！？\n';
const CLOSERS = `"'”’)]}»*」』）】〕〉》〗〙〛］｝＂＇`;
const SPACES = ' \t\r\u00a0\u3000';

/**
 * Turns text deltas, as the LLM writes them, into what a Cartesia context is sent: each delta goes out
 * at once (Cartesia joins a context's transcripts verbatim), and a flush follows each sentence end, so
 * the first sentence is spoken without waiting for the server's buffer delay.
 *
 * A flush must fall exactly at the sentence end: text sent before it is spoken with the sentence, and a
 * word cut by a flush sounds cut. Whether a mark ends a sentence is only known once the next word has
 * started ("Dr. Smith", "3.5"), so the text from an undecided mark on is held back until the tokenizer
 * has decided; everything else is sent as it arrives. Cartesia's contexts need no other splitting.
 */
export class TextFeeder {
  private readonly sentences: SentenceStream;
  /** Everything pushed so far, verbatim. */
  private text = '';
  /** How much of `text` has been handed out. */
  private sent = 0;
  /** Where, in `text`, the tokenizer's sentences are searched from. */
  private searchFrom = 0;
  /** Text went out since the last flush. */
  private unflushed = false;

  constructor(tokenizer: SentenceTokenizer = new SentenceTokenizer()) {
    this.sentences = tokenizer.stream();
  }

  /** All text pushed so far. */
  get pushed(): string {
    return this.text;
  }

  push(delta: string): FeedStep[] {
    if (delta === '') return [];
    this.text += delta;
    const steps: FeedStep[] = [];
    for (const sentence of this.sentences.push(delta)) {
      // The tokenizer returns each sentence trimmed but otherwise as written: find where it ends.
      const at = this.text.indexOf(sentence, this.searchFrom);
      if (at < 0) continue;
      const end = at + sentence.length;
      this.searchFrom = end;
      if (end > this.sent) this.emit(end, steps);
      this.flushInto(steps);
    }
    this.emit(this.holdPoint(), steps);
    return steps;
  }

  /** The LLM paused: send everything held back and ask for it to be spoken now. */
  flush(): FeedStep[] {
    const steps: FeedStep[] = [];
    this.emit(this.text.length, steps);
    // The tokenizer starts afresh: what it held is being spoken now.
    this.sentences.flush();
    this.searchFrom = this.text.length;
    this.flushInto(steps);
    return steps;
  }

  /** End of input: whatever is still held back. */
  end(): FeedStep[] {
    const steps: FeedStep[] = [];
    this.emit(this.text.length, steps);
    this.sentences.flush();
    return steps;
  }

  private emit(until: number, steps: FeedStep[]): void {
    if (until <= this.sent) return;
    const text = this.text.slice(this.sent, until);
    steps.push({ type: 'text', text });
    this.sent = until;
    if (text.trim() !== '') this.unflushed = true;
  }

  /** A flush with nothing new to speak would only wait for an empty answer. */
  private flushInto(steps: FeedStep[]): void {
    if (!this.unflushed) return;
    this.unflushed = false;
    steps.push({ type: 'flush' });
  }

  /**
   * The start of the last run of sentence marks whose fate is still open: only closing quotes and
   * spaces follow it so far. Text from there on waits for the next push.
   */
  private holdPoint(): number {
    let i = this.text.length;
    while (i > this.sent && SPACES.includes(this.text[i - 1]!)) i--;
    while (i > this.sent && CLOSERS.includes(this.text[i - 1]!)) i--;
    if (i <= this.sent || !TERMINATORS.includes(this.text[i - 1]!)) return this.text.length;
    while (i > this.sent && TERMINATORS.includes(this.text[i - 1]!)) i--;
    return i;
  }
}
