import { words } from '../features.js';
import type { Dialogue } from './corpus.js';
import type { SeededRandom } from './rng.js';

/** What made an example: its category in the evaluation's confusion table. */
export type ExampleKind =
  | 'complete'
  | 'complete_question'
  | 'complete_one_word'
  | 'complete_padded'
  | 'cut'
  | 'filler'
  | 'conjunction'
  | 'digits_complete'
  | 'digits_cut'
  | 'address_complete'
  | 'address_cut';

export interface Example {
  user: string;
  assistant: string | undefined;
  /** 1: the turn is complete. */
  label: 0 | 1;
  kind: ExampleKind;
}

/** Spoken hesitations that end a pause without ending the turn. */
export const FILLERS = [
  'um',
  'uh',
  'uhm',
  'er',
  'hmm',
  'like',
  'you know',
  'i mean',
  'let me see',
  'let me think',
  'so um',
  'and uh',
  'well',
] as const;

/** Words that announce more to come. */
export const TRAILING_CONJUNCTIONS = [
  'and',
  'but',
  'or',
  'so',
  'because',
  'and also',
  'and then',
  'plus',
  'with',
  'as well as',
  'and maybe',
  'if',
] as const;

const OPENERS = ['um', 'uh', 'so', 'well', 'okay', 'yeah', 'oh'] as const;
const CLOSERS = ['please', 'thanks', 'thank you', 'thank you so much'] as const;

const SENTENCE_END = /[.?!]["')\]]*$/;
const TRAILING_PUNCTUATION = /[\s.?!,;:]+$/;

export function stripEnd(text: string): string {
  return text.replace(TRAILING_PUNCTUATION, '');
}

/**
 * Labelled examples from the user turns of real dialogues. Every user turn is a complete example (with
 * the agent turn before it). Incomplete ones are made from it, each with its own seeded draws:
 * - `cut`: the turn cut after a random word, never right after a sentence end (a turn cut there, say
 *   "Yes." of "Yes. I need a table", often is a complete turn on its own), and never where the words
 *   so far are, word for word, a whole user turn somewhere in the corpora (`wholeTurns`: "yes", "that
 *   works", "I want to book a table");
 * - `filler`: a cut, or the whole turn, followed by a hesitation ("um", "let me think");
 * - `conjunction`: a cut or the whole turn followed by a word that announces more ("and", "because").
 * Some complete turns also get a spoken opener ("um", "so") or closer ("please") so that a filler at
 * the start, or politeness at the end, is not mistaken for a cue.
 */
export function dialogueExamples(
  dialogue: Dialogue,
  rng: SeededRandom,
  wholeTurns: ReadonlySet<string>,
): Example[] {
  const out: Example[] = [];
  for (let i = 0; i < dialogue.turns.length; i++) {
    const turn = dialogue.turns[i];
    if (turn?.role !== 'user') continue;
    const text = turn.text.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    const before = dialogue.turns[i - 1];
    const assistant = before?.role === 'assistant' ? before.text : undefined;
    const tokens = text.split(' ');
    const kind =
      tokens.length === 1 ? 'complete_one_word' : text.endsWith('?') ? 'complete_question' : 'complete';
    out.push({ user: text, assistant, label: 1, kind });
    if (rng.chance(0.12)) {
      const padded = rng.chance(0.5)
        ? `${rng.pick(OPENERS)} ${text}`
        : `${stripEnd(text)} ${rng.pick(CLOSERS)}`;
      out.push({ user: padded, assistant, label: 1, kind: 'complete_padded' });
    }
    const cuts = tokens
      .slice(0, -1)
      .flatMap((token, index) => (SENTENCE_END.test(token) ? [] : [index + 1]))
      .filter((cut) => !wholeTurns.has(normalizedTurn(tokens.slice(0, cut).join(' '))));
    const cutText = (): string | undefined => {
      if (cuts.length === 0) return undefined;
      return stripEnd(tokens.slice(0, rng.pick(cuts)).join(' '));
    };
    if (rng.chance(0.85)) {
      const cut = cutText();
      if (cut) out.push({ user: cut, assistant, label: 0, kind: 'cut' });
    }
    if (rng.chance(0.3)) {
      const base = rng.chance(0.6) ? cutText() : stripEnd(text);
      if (base) out.push({ user: `${base} ${rng.pick(FILLERS)}`, assistant, label: 0, kind: 'filler' });
    }
    if (rng.chance(0.25)) {
      const base = rng.chance(0.5) ? cutText() : stripEnd(text);
      if (base)
        out.push({
          user: `${base} ${rng.pick(TRAILING_CONJUNCTIONS)}`,
          assistant,
          label: 0,
          kind: 'conjunction',
        });
    }
  }
  return out;
}

/** The words of a turn, for recognising the same words as another turn. */
export function normalizedTurn(text: string): string {
  return words(text).join(' ');
}

/** Every user turn of the dialogues, normalised. */
export function wholeUserTurns(dialogues: readonly Dialogue[]): Set<string> {
  const out = new Set<string>();
  for (const dialogue of dialogues) {
    for (const turn of dialogue.turns) if (turn.role === 'user') out.add(normalizedTurn(turn.text));
  }
  return out;
}
