/**
 * A reader for the simple kinds of Hugging Face `tokenizer.json`: a WordLevel or WordPiece vocabulary
 * behind a BERT-style normalizer and pre-tokenizer, with the special tokens of the post-processor. Other
 * kinds (BPE, Unigram, byte-level, regex splits...) are refused by name rather than approximated: a
 * tokenizer that splits text differently from the one the model was trained with gives wrong ids
 * silently, which is worse than no loader.
 */

/** Why a tokenizer description cannot be used: `unsupported` names a kind this reader does not implement. */
export class TokenizerProblem extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'unsupported',
  ) {
    super(message);
  }
}

export interface WordTokenizer {
  /** `WordLevel` or `WordPiece`. */
  readonly model: string;
  /** Token ids of `text`, without the post-processor's special tokens. */
  encode(text: string): number[];
  /** Ids the post-processor adds before and after a single sequence (e.g. `[CLS]` and `[SEP]`). */
  readonly prefix: readonly number[];
  readonly suffix: readonly number[];
}

type Normalize = (text: string) => string;
type PreTokenize = (pieces: string[]) => string[];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): TokenizerProblem {
  return new TokenizerProblem(message, 'invalid');
}

function unsupported(message: string): TokenizerProblem {
  return new TokenizerProblem(message, 'unsupported');
}

/** Builds a tokenizer from a parsed `tokenizer.json`; throws a `TokenizerProblem` when it cannot. */
export function parseTokenizer(json: unknown): WordTokenizer {
  if (!isObject(json)) throw invalid('not a JSON object');
  if (!isObject(json.model)) throw invalid('no "model" object');
  const normalize = normalizerOf(json.normalizer, 'normalizer');
  const preTokenize = preTokenizerOf(json.pre_tokenizer, 'pre_tokenizer');
  const { model, vocab, wordIds } = vocabularyOf(json.model);
  const { prefix, suffix } = specialTokensOf(json.post_processor, vocab);
  return {
    model,
    prefix,
    suffix,
    encode(text) {
      const ids: number[] = [];
      for (const word of preTokenize([normalize(text)])) ids.push(...wordIds(word));
      return ids;
    },
  };
}

// --- normalizer -------------------------------------------------------------------------------------

function stripAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{Mn}/gu, '');
}

/** Control characters are dropped and every whitespace becomes a space, as BERT's clean_text does. */
function cleanText(text: string): string {
  return text.replace(/\ufffd|(?![\t\n\r])\p{Cc}|\p{Cf}|\p{Co}|\p{Cn}/gu, '').replace(/\s/gu, ' ');
}

/** CJK ideographs become words of their own (BERT's handle_chinese_chars). */
function spaceChineseChars(text: string): string {
  return text.replace(
    /[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\u{20000}-\u{2a6df}\u{2a700}-\u{2ceaf}\u{2f800}-\u{2fa1f}]/gu,
    (ch) => ` ${ch} `,
  );
}

function normalizerOf(value: unknown, where: string): Normalize {
  if (value === null || value === undefined) return (text) => text;
  if (!isObject(value) || typeof value.type !== 'string') throw invalid(`${where} has no "type"`);
  switch (value.type) {
    case 'BertNormalizer': {
      const lowercase = value.lowercase !== false;
      // strip_accents null means "when lowercasing", as in BERT's uncased models.
      const strip =
        value.strip_accents === null || value.strip_accents === undefined
          ? lowercase
          : value.strip_accents === true;
      const clean = value.clean_text !== false;
      const chinese = value.handle_chinese_chars !== false;
      return (text) => {
        let out = clean ? cleanText(text) : text;
        if (chinese) out = spaceChineseChars(out);
        if (lowercase) out = out.toLowerCase();
        if (strip) out = stripAccents(out);
        return out;
      };
    }
    case 'Lowercase':
      return (text) => text.toLowerCase();
    case 'StripAccents':
      return (text) => text.replace(/\p{Mn}/gu, '');
    case 'Strip':
      return (text) => text.trim();
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = value.type;
      return (text) => text.normalize(form);
    }
    case 'Sequence': {
      if (!Array.isArray(value.normalizers)) throw invalid(`${where} Sequence has no "normalizers" list`);
      const steps = value.normalizers.map((step, i) => normalizerOf(step, `${where}.normalizers[${i}]`));
      return (text) => steps.reduce((out, step) => step(out), text);
    }
    default:
      throw unsupported(
        `${where} type ${value.type} is not supported (supported: BertNormalizer, Lowercase, StripAccents, Strip, NFC, NFD, NFKC, NFKD, Sequence)`,
      );
  }
}

// --- pre-tokenizer ----------------------------------------------------------------------------------

/** BERT's punctuation: ASCII symbols as well as Unicode punctuation. */
const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/u;

function splitPunctuation(piece: string): string[] {
  const out: string[] = [];
  let word = '';
  for (const ch of piece) {
    if (PUNCTUATION.test(ch)) {
      if (word !== '') out.push(word);
      out.push(ch);
      word = '';
    } else {
      word += ch;
    }
  }
  if (word !== '') out.push(word);
  return out;
}

/** The Whitespace pre-tokenizer's `\w+|[^\w\s]+`, with \w as Unicode word characters (as in Rust's regex). */
const WORD_OR_SYMBOLS =
  /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+|[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}\s]+/gu;

function splitWhitespace(piece: string): string[] {
  return piece.split(/\s+/u).filter((word) => word !== '');
}

function preTokenizerOf(value: unknown, where: string): PreTokenize {
  if (value === null || value === undefined) {
    throw unsupported(`${where} is missing (a tokenizer without one reads the whole text as one word)`);
  }
  if (!isObject(value) || typeof value.type !== 'string') throw invalid(`${where} has no "type"`);
  switch (value.type) {
    case 'BertPreTokenizer':
      return (pieces) => pieces.flatMap(splitWhitespace).flatMap(splitPunctuation);
    case 'WhitespaceSplit':
      return (pieces) => pieces.flatMap(splitWhitespace);
    case 'Whitespace':
      return (pieces) => pieces.flatMap((piece) => piece.match(WORD_OR_SYMBOLS) ?? []);
    case 'Punctuation': {
      const behavior = value.behavior ?? 'Isolated';
      if (behavior !== 'Isolated')
        throw unsupported(
          `${where} Punctuation behavior ${String(behavior)} is not supported (supported: Isolated)`,
        );
      return (pieces) => pieces.flatMap(splitPunctuation);
    }
    case 'Sequence': {
      if (!Array.isArray(value.pretokenizers)) throw invalid(`${where} Sequence has no "pretokenizers" list`);
      const steps = value.pretokenizers.map((step, i) =>
        preTokenizerOf(step, `${where}.pretokenizers[${i}]`),
      );
      return (pieces) => steps.reduce((out, step) => step(out), pieces);
    }
    default:
      throw unsupported(
        `${where} type ${value.type} is not supported (supported: BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Sequence)`,
      );
  }
}

// --- model ------------------------------------------------------------------------------------------

function vocabularyOf(model: Json): {
  model: string;
  vocab: ReadonlyMap<string, number>;
  wordIds: (word: string) => number[];
} {
  const type = model.type;
  if (type !== 'WordLevel' && type !== 'WordPiece') {
    throw unsupported(
      `model type ${type === undefined ? '(none)' : String(type)} is not supported (supported: WordLevel, WordPiece)`,
    );
  }
  if (!isObject(model.vocab)) throw invalid(`${type} model has no "vocab" object`);
  const vocab = new Map<string, number>();
  for (const [token, id] of Object.entries(model.vocab)) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) {
      throw invalid(
        `vocab entry ${JSON.stringify(token)} has id ${JSON.stringify(id)}, not a non-negative integer`,
      );
    }
    vocab.set(token, id);
  }
  const unkToken = typeof model.unk_token === 'string' ? model.unk_token : '[UNK]';
  const unk = vocab.get(unkToken);
  if (unk === undefined) throw invalid(`unk_token ${JSON.stringify(unkToken)} is not in the vocab`);
  if (type === 'WordLevel') {
    return { model: type, vocab, wordIds: (word) => [vocab.get(word) ?? unk] };
  }
  const prefix = typeof model.continuing_subword_prefix === 'string' ? model.continuing_subword_prefix : '##';
  const maxChars = typeof model.max_input_chars_per_word === 'number' ? model.max_input_chars_per_word : 100;
  return {
    model: type,
    vocab,
    wordIds(word) {
      const chars = [...word];
      if (chars.length > maxChars) return [unk];
      // Greedy longest match first; a word with any piece outside the vocab is one [UNK], as in BERT.
      const ids: number[] = [];
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let found: number | undefined;
        while (end > start) {
          const piece = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
          found = vocab.get(piece);
          if (found !== undefined) break;
          end--;
        }
        if (found === undefined) return [unk];
        ids.push(found);
        start = end;
      }
      return ids;
    },
  };
}

// --- post-processor ---------------------------------------------------------------------------------

function specialId(entry: unknown, where: string): number {
  // BertProcessing writes ["[CLS]", 101].
  if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'number') {
    throw invalid(`post_processor ${where} is not a [token, id] pair`);
  }
  return entry[1] as number;
}

function specialTokensOf(
  value: unknown,
  vocab: ReadonlyMap<string, number>,
): { prefix: number[]; suffix: number[] } {
  if (value === null || value === undefined) return { prefix: [], suffix: [] };
  if (!isObject(value) || typeof value.type !== 'string') throw invalid('post_processor has no "type"');
  switch (value.type) {
    case 'BertProcessing':
    case 'RobertaProcessing':
      return { prefix: [specialId(value.cls, 'cls')], suffix: [specialId(value.sep, 'sep')] };
    case 'TemplateProcessing':
      return templateTokens(value, vocab);
    default:
      throw unsupported(
        `post_processor type ${value.type} is not supported (supported: BertProcessing, RobertaProcessing, TemplateProcessing)`,
      );
  }
}

/** The `single` template: special tokens, then the sequence `A`, then special tokens. */
function templateTokens(
  value: Json,
  vocab: ReadonlyMap<string, number>,
): { prefix: number[]; suffix: number[] } {
  if (!Array.isArray(value.single))
    throw invalid('post_processor TemplateProcessing has no "single" template');
  const specials = isObject(value.special_tokens) ? value.special_tokens : {};
  const prefix: number[] = [];
  const suffix: number[] = [];
  let seenSequence = false;
  for (const item of value.single) {
    if (isObject(item) && isObject(item.Sequence)) {
      if (seenSequence) throw unsupported('post_processor template with the sequence twice is not supported');
      seenSequence = true;
      continue;
    }
    const name = isObject(item) && isObject(item.SpecialToken) ? item.SpecialToken.id : undefined;
    if (typeof name !== 'string')
      throw invalid('post_processor template item is neither SpecialToken nor Sequence');
    const declared = specials[name];
    const ids = isObject(declared) && Array.isArray(declared.ids) ? declared.ids : undefined;
    const resolved = ids ?? (vocab.has(name) ? [vocab.get(name)] : undefined);
    if (!resolved?.every((id) => typeof id === 'number')) {
      throw invalid(`post_processor special token ${JSON.stringify(name)} has no id`);
    }
    (seenSequence ? suffix : prefix).push(...(resolved as number[]));
  }
  if (!seenSequence) throw invalid('post_processor template has no sequence');
  return { prefix, suffix };
}
