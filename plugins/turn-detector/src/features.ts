import type { ConversationTurn } from '@voxwire/agents/provider-utils';

/**
 * Text features of the end of a conversation, shared by training and inference: the same function turns
 * a training example and a live transcript into the same hashed indices, which is what makes the
 * exported model agree with the one that was trained.
 *
 * Every feature is a string (`w1:please`, `len:2`, `a:number`) hashed into one of `buckets` rows of the
 * model's embedding table, with a weight. Punctuation of the user's text is dropped on purpose: interim
 * transcripts have none and recognizers disagree about it, so the model has to judge from the words.
 */

/** Bump when the features change: a model trained on other features must not load. */
export const FEATURE_VERSION = 1;

export interface HashedFeatures {
  /** Embedding rows, ascending, each once. */
  readonly indices: Int32Array;
  /** The weight of each row (features hashed to the same row add up). */
  readonly weights: Float32Array;
}

const NUMBER_WORDS = new Set([
  'zero',
  'oh',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
]);
const LARGER_NUMBER_WORDS = new Set([
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'sixty',
  'seventy',
  'eighty',
  'ninety',
  'hundred',
  'thousand',
  'double',
  'triple',
]);

/** Lower-cased words: letters, digits and inner apostrophes; everything else separates words. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .split(/[^\p{L}\p{N}']+/u)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');
}

/** Digit strings become their length class, so "415" and "212" are the same feature. */
function tokenOf(word: string): string {
  if (/^\p{N}+$/u.test(word)) return `<d${Math.min(word.length, 5)}>`;
  return word;
}

/** Digits dictated at the end of the text: each digit character or spoken digit counts once. */
function trailingDigits(rawWords: readonly string[]): number {
  let count = 0;
  for (let i = rawWords.length - 1; i >= 0; i--) {
    const word = rawWords[i] as string;
    if (/^\p{N}+$/u.test(word)) count += word.length;
    else if (NUMBER_WORDS.has(word)) count += 1;
    else if (LARGER_NUMBER_WORDS.has(word)) count += 2;
    else break;
  }
  return count;
}

function lengthBucket(count: number): string {
  if (count <= 4) return String(count);
  if (count <= 6) return '5-6';
  if (count <= 9) return '7-9';
  if (count <= 14) return '10-14';
  return '15+';
}

/** The user's pending turn (consecutive user turns at the end, joined) and the assistant turn before it. */
export function lastExchange(turns: readonly ConversationTurn[]): {
  user: string;
  assistant: string | undefined;
} {
  const user: string[] = [];
  let i = turns.length - 1;
  for (; i >= 0 && turns[i]?.role === 'user'; i--) user.unshift((turns[i] as ConversationTurn).text);
  const before = i >= 0 ? turns[i] : undefined;
  return { user: user.join(' '), assistant: before?.text };
}

/** The named features of an exchange with their weights, before hashing (readable, for tests and debugging). */
export function namedFeatures(user: string, assistant: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  const add = (name: string, weight = 1): void => {
    out.set(name, (out.get(name) ?? 0) + weight);
  };
  const raw = words(user);
  const u = raw.map(tokenOf);
  const n = u.length;
  const at = (i: number): string => (i >= 0 ? (u[i] as string) : '^');
  add('bias');
  if (n === 0) add('empty');
  // The one punctuation mark kept: recognizers that punctuate add it only to what sounds like a question.
  if (/\?["')\]\s]*$/.test(user)) {
    add('uq');
    add(`uqf:${u[0] ?? '$'}`);
  }
  const len = lengthBucket(n);
  add(`len:${len}`);
  add(`w1:${at(n - 1)}`);
  add(`w2:${at(n - 2)}`);
  add(`w3:${at(n - 3)}`);
  add(`b1:${at(n - 2)} ${at(n - 1)}`);
  add(`b2:${at(n - 3)} ${at(n - 2)}`);
  add(`t1:${at(n - 3)} ${at(n - 2)} ${at(n - 1)}`);
  add(`q1:${at(n - 4)} ${at(n - 3)} ${at(n - 2)} ${at(n - 1)}`);
  add(`lw:${len}:${at(n - 1)}`);
  const last = at(n - 1);
  if (last.length >= 4 && !last.startsWith('<')) {
    add(`s2:${last.slice(-2)}`);
    add(`s3:${last.slice(-3)}`);
  }
  add(`f1:${u[0] ?? '$'}`);
  add(`f2:${u[0] ?? '$'} ${u[1] ?? '$'}`);
  const digits = trailingDigits(raw);
  add(`dc:${Math.min(digits, 20)}`);
  if (n > 0) {
    const bag = 1 / Math.sqrt(n);
    for (const token of u) add(`u:${token}`, bag);
  }

  if (assistant === undefined) {
    add('a:none');
  } else {
    const trimmed = assistant.trim();
    const question = trimmed.endsWith('?') ? 'q' : trimmed.includes('?') ? 'qm' : 'n';
    add(`aq:${question}`);
    add(`aql:${question}:${len}`);
    add(`aqw:${question}:${last}`);
    const a = words(assistant).map(tokenOf);
    const m = a.length;
    add(`alen:${lengthBucket(m)}`);
    if (m > 0) {
      const bag = 1 / Math.sqrt(m);
      for (const token of a) {
        add(`a:${token}`, bag);
        if (digits > 0) add(`ad:${Math.min(digits, 20)}:${token}`, bag);
      }
      add(`aw1:${a[m - 1]}`);
      add(`ab1:${m >= 2 ? a[m - 2] : '^'} ${a[m - 1]}`);
    }
  }
  return out;
}

/** 32-bit FNV-1a over the UTF-16 code units: cheap, stable across platforms and runtimes. */
export function hashFeature(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function hashFeatures(named: ReadonlyMap<string, number>, buckets: number): HashedFeatures {
  const rows = new Map<number, number>();
  for (const [name, weight] of named) {
    const row = hashFeature(name) % buckets;
    rows.set(row, (rows.get(row) ?? 0) + weight);
  }
  const sorted = [...rows.keys()].sort((a, b) => a - b);
  return {
    indices: Int32Array.from(sorted),
    weights: Float32Array.from(sorted, (row) => rows.get(row) as number),
  };
}

export function extractFeatures(
  user: string,
  assistant: string | undefined,
  buckets: number,
): HashedFeatures {
  return hashFeatures(namedFeatures(user, assistant), buckets);
}

export function conversationFeatures(turns: readonly ConversationTurn[], buckets: number): HashedFeatures {
  const { user, assistant } = lastExchange(turns);
  return extractFeatures(user, assistant, buckets);
}
