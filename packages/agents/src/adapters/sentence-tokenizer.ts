/**
 * Splits streamed LLM text into sentences for a TTS that takes whole requests. Splitting too early
 * ("Dr." + "Smith") breaks prosody, splitting too late delays the first audio; ambiguous cases are
 * therefore merged, which only costs a little latency. Chinese and Japanese have no spaces between
 * sentences: they end at their own marks (。！？), with any closing quote or bracket after them.
 */

/** Abbreviations that end with a dot but rarely end a sentence. Compared lowercased, without the dot. */
const DEFAULT_ABBREVIATIONS = [
  'mr',
  'mrs',
  'ms',
  'mx',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'ft',
  'vs',
  'approx',
  'dept',
  'est',
  'fig',
  'inc',
  'ltd',
  'corp',
  'gen',
  'gov',
  'lt',
  'col',
  'sgt',
  'capt',
  'rev',
  'ave',
  'blvd',
  'rd',
  'no',
  'vol',
  'cf',
];

export interface SentenceTokenizerOptions {
  /**
   * Shortest sentence, in characters, sent on its own; shorter ones are joined to the next so the TTS
   * is not asked for tiny clips ("Hi!", "好的。"). A Chinese, Japanese or Korean character counts as two:
   * it is a syllable, as long to say as two or three Latin letters. `flush()` returns the remainder
   * whatever its length. Default 20.
   */
  minSentenceLength?: number;
  /** Added to the built-in abbreviations; case-insensitive, with or without the trailing dot. */
  abbreviations?: readonly string[];
}

/** Western marks: they end a sentence only before a space (or a CJK character), never inside "3.5". */
const TERMINATORS = '.!?…．';
/**
 * Chinese and Japanese marks: text has no spaces, so they end the sentence whatever follows. `．` is
 * not one of them: it is also the full-width decimal point.
 */
const CJK_TERMINATORS = '。｡！？';
// Closing marks that belong to the sentence they follow: `He said "stop." Then...`, `「行こう！」`
const CLOSERS = `"'”’)]}»*」』）】〕〉》〗〙〛］｝＂＇`;

export class SentenceTokenizer {
  readonly minSentenceLength: number;
  private readonly abbreviations: ReadonlySet<string>;

  constructor(options: SentenceTokenizerOptions = {}) {
    this.minSentenceLength = options.minSentenceLength ?? 20;
    if (!(this.minSentenceLength >= 0)) {
      throw new RangeError(`minSentenceLength must be non-negative, got ${this.minSentenceLength}`);
    }
    this.abbreviations = new Set([
      ...DEFAULT_ABBREVIATIONS,
      ...(options.abbreviations ?? []).map((a) => a.toLowerCase().replace(/\.$/, '')),
    ]);
  }

  /** A new incremental splitter; each one holds its own buffer. */
  stream(): SentenceStream {
    return new SentenceStream(this.minSentenceLength, this.abbreviations);
  }

  /** Splits a whole text. */
  tokenize(text: string): string[] {
    const stream = this.stream();
    return [...stream.push(text), ...stream.flush()];
  }
}

/** Incremental splitter: push text deltas as they arrive, collect the sentences they complete. */
export class SentenceStream {
  private buffer = '';
  /** Where the sentence being built starts in `buffer`. */
  private start = 0;
  /** Where scanning resumes: text before it holds no undecided boundary. */
  private scan = 0;

  constructor(
    private readonly minLength: number,
    private readonly abbreviations: ReadonlySet<string>,
  ) {}

  /** Adds a text delta; returns the sentences it completed, trimmed, in order. */
  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    let i = this.scan;
    while (i < this.buffer.length) {
      const end = this.boundaryAt(i);
      if (end === 'more') break;
      if (end === undefined) {
        i++;
        continue;
      }
      this.candidate(end, out);
      i = Math.max(end, i + 1);
    }
    this.scan = i;
    this.compact();
    return out;
  }

  /** Returns whatever is left as a last sentence (if not blank) and resets. */
  flush(): string[] {
    const rest = this.buffer.slice(this.start).trim();
    this.buffer = '';
    this.start = 0;
    this.scan = 0;
    return rest ? [rest] : [];
  }

  /**
   * Decides whether a sentence ends at or just after position `i`. Returns the end offset (exclusive),
   * undefined for "not here", or 'more' when the text so far cannot tell.
   */
  private boundaryAt(i: number): number | undefined | 'more' {
    const buf = this.buffer;
    const c = buf[i]!;
    if (c === '\n') return i + 1;
    if (!isTerminator(c)) return undefined;
    // Only the start of a run of terminators is examined; "?!", "..." and "？！" are one mark.
    if (i > this.start && isTerminator(buf[i - 1]!)) return undefined;
    let j = i;
    while (j < buf.length && isTerminator(buf[j]!)) j++;
    const markEnd = j;
    while (j < buf.length && CLOSERS.includes(buf[j]!)) j++;
    if (j >= buf.length) return 'more';
    const mark = buf.slice(i, markEnd).replaceAll('．', '.');
    const next = buf[j]!;
    // 「行こう！」と言った: a quote closed by its own mark and followed by kana goes on ("..., he said").
    if (j > markEnd && isHiragana(next)) return undefined;
    if ([...mark].some((m) => CJK_TERMINATORS.includes(m))) return j;
    if (!isSpace(next)) {
      // "3.5", "example.com", "e.g.x": a mark glued to the next character is not an ending, unless that
      // character is Chinese or Japanese ("好的.然后"), which has no space before it.
      if (!isWide(next)) return undefined;
      if (/[!?]/.test(mark)) return j;
      // A glued ellipsis is a pause inside the sentence more often than its end.
      return mark === '.' && !this.isAbbreviation(i) ? j : undefined;
    }
    if (/[!?]/.test(mark)) return j;
    if (mark.startsWith('.') && mark.replace(/[^.]/g, '').length === 1 && this.isAbbreviation(i)) {
      return undefined;
    }
    // After a dot or an ellipsis, a lowercase word continues the sentence ("Well... maybe", "approx. five").
    let k = j;
    while (k < buf.length && isSpace(buf[k]!)) {
      if (buf[k] === '\n') return j;
      k++;
    }
    if (k >= buf.length) return 'more';
    return isLowercase(buf[k]!) ? undefined : j;
  }

  /** Whether the word ending at the dot at `dot` is an abbreviation, an initial or a dotted acronym. */
  private isAbbreviation(dot: number): boolean {
    let s = dot;
    // A word glued to Chinese or Japanese text starts after it: "请问Dr." is "Dr".
    while (s > this.start && !isSpace(this.buffer[s - 1]!) && !isWide(this.buffer[s - 1]!)) s--;
    const word = this.buffer.slice(s, dot).replace(/^[("'“‘[{«]+/, '');
    if (word.length === 0) return false;
    if (word.includes('.')) return true; // "e.g", "U.S", "a.m"
    if (/^\p{Lu}$/u.test(word)) return true; // "J. R. R. Tolkien"
    return this.abbreviations.has(word.toLowerCase());
  }

  private candidate(end: number, out: string[]): void {
    const text = this.buffer.slice(this.start, end).trim();
    if (text.length === 0) {
      this.start = end;
      return;
    }
    // Too short on its own: keep it, and it joins the next sentence.
    if (spokenLength(text) < this.minLength) return;
    out.push(text);
    this.start = end;
  }

  private compact(): void {
    if (this.start === 0) return;
    this.buffer = this.buffer.slice(this.start);
    this.scan -= this.start;
    this.start = 0;
  }
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\u00a0' || c === '\u3000';
}

function isTerminator(c: string): boolean {
  return TERMINATORS.includes(c) || CJK_TERMINATORS.includes(c);
}

function isLowercase(c: string): boolean {
  return /\p{Ll}/u.test(c);
}

function isHiragana(c: string): boolean {
  return /\p{Script=Hiragana}/u.test(c);
}

/** Letters of the scripts written without spaces between words (and Korean syllables, as wide). */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WIDE_LETTERS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

function isWide(c: string): boolean {
  return WIDE.test(c);
}

/** Length for `minSentenceLength`: characters, with Chinese, Japanese and Korean ones counted twice. */
function spokenLength(text: string): number {
  return text.length + (text.match(WIDE_LETTERS)?.length ?? 0);
}

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
/** The prolonged sound mark lengthens the kana before it ("コーヒー" is two), it is not a word. */
const KANA_EXTENDERS = 'ーｰ';
// A word is a run of letters, digits and marks, joined across inner apostrophes, hyphens and dots
// ("don't", "state-of-the-art", "3.5"). Chinese and Japanese have no spaces to split on, so each of
// their characters counts as a word: a Chinese character is about a word, a kana a syllable.
const LETTER = `(?![${CJK}${KANA_EXTENDERS}])[\\p{L}\\p{N}\\p{M}]`;
const WORD = new RegExp(`[${CJK}][${KANA_EXTENDERS}]*|${LETTER}+(?:['’.\\-]${LETTER}+)*`, 'gu');

/** The words of a text, punctuation dropped. */
export function splitWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** How many words a transcript holds, e.g. to compare with `minInterruptionWords`. */
export function countWords(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) n++;
  return n;
}
