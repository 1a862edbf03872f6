import { words } from '../features.js';
import type { Dialogue } from './corpus.js';
import type { SeededRandom } from './rng.js';

/** What made an example: its category in the evaluation's confusion table. */
export type ExampleKind =
  | 'complete'
  | 'complete_question'
  | 'complete_one_word'
  | 'complete_padded'
  | 'complete_fragment'
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

/**
 * Words after which people pause mid-turn ("a table for", "I want the"): a cut after one is a surely
 * incomplete turn, while a cut after a content word ("at seven" of "at seven thirty") often reads
 * complete. Cuts after these are drawn `functionWordCutWeight` times as often.
 */
const FUNCTION_WORDS = new Set(
  (
    'a an the my your our their his her its this that these those some any to for at in on of from with by ' +
    'about into onto than as is are was were be been am will would could should can do does did have has had ' +
    "i i'm i'd i'll we you he she they it it's there what which who where when how want need like get " +
    'looking trying going after before until around near between through during over under than if whether ' +
    'and or but so because also just really very wondering hoping thinking planning wanted'
  ).split(' '),
);

export interface ExampleSettings {
  /** How much likelier a cut after a function word is than one after another word. */
  functionWordCutWeight: number;
  /** Share of complete questions that keep their question mark (recognizers that punctuate write it). */
  questionMarkKept: number;
  /**
   * Share of complete questions also taught in the other form, with their question mark removed or
   * kept. Every cut of a question lacks the mark, so a model that sees a whole question with it only
   * sometimes learns "opens like a question and has no ?" as unfinished, and then misjudges
   * recognizers that never punctuate. Taught in both forms, a question is complete with or without
   * it, and the words have to carry the judgement.
   */
  questionBothForms: number;
  /** Share of complete turns also taught with a filler inside ("I'd like, um, a latte"). */
  innerFillerShare: number;
  /** Share of user turns with annotated slot values that also teach a value alone as an answer ("San Jose"). */
  fragmentShare: number;
  /** Share of user turns cut a second time (another negative). */
  secondCutShare: number;
  /**
   * Share of user turns whose last few words are also taught as a complete turn: with the cuts (first
   * words, incomplete) this teaches the model to judge by how the words end, not by how many there are.
   */
  tailShare: number;
}

export const DEFAULT_EXAMPLE_SETTINGS: ExampleSettings = {
  functionWordCutWeight: 3,
  questionMarkKept: 0.5,
  questionBothForms: 1,
  innerFillerShare: 0.15,
  fragmentShare: 0.35,
  secondCutShare: 0.5,
  tailShare: 0.3,
};

/** How the dev and test examples are made, whatever the training recipe: one fixed yardstick. */
export const EVALUATION_EXAMPLE_SETTINGS: ExampleSettings = {
  functionWordCutWeight: 3,
  questionMarkKept: 0.5,
  questionBothForms: 0,
  innerFillerShare: 0.15,
  fragmentShare: 0.35,
  secondCutShare: 0.5,
  tailShare: 0.3,
};

const FRAGMENT_LEADS = new Set(['in', 'at', 'for', 'on', 'from', 'to', 'around', 'by', 'near', 'about']);

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
 * A second cut is drawn from half of the turns. Where the corpus marks the values the user gave (SGD's
 * slots), a value alone ("San Jose", "at 7 pm") is also a complete answer to the agent's turn, and so,
 * for some turns, are their last one to five words ("small and cheap" of "something small and cheap").
 * Some complete turns also get a spoken opener ("um", "so"), a closer ("please") or a filler inside,
 * so that a filler at the start or in the middle, or politeness at the end, is not mistaken for a cue.
 */
export function dialogueExamples(
  dialogue: Dialogue,
  rng: SeededRandom,
  wholeTurns: ReadonlySet<string>,
  settings: ExampleSettings = DEFAULT_EXAMPLE_SETTINGS,
): Example[] {
  const out: Example[] = [];
  for (let i = 0; i < dialogue.turns.length; i++) {
    const turn = dialogue.turns[i];
    if (turn?.role !== 'user') continue;
    const original = turn.text.replace(/\s+/g, ' ').trim();
    if (original === '') continue;
    // Only a question mark survives feature extraction; recognizers write it only sometimes.
    const text =
      original.endsWith('?') && !rng.chance(settings.questionMarkKept) ? stripEnd(original) : original;
    const before = dialogue.turns[i - 1];
    const assistant = before?.role === 'assistant' ? before.text : undefined;
    const tokens = text.split(' ');
    const kind =
      tokens.length === 1 ? 'complete_one_word' : original.endsWith('?') ? 'complete_question' : 'complete';
    out.push({ user: text, assistant, label: 1, kind });
    if (original.endsWith('?') && settings.questionBothForms > 0 && rng.chance(settings.questionBothForms)) {
      out.push({ user: text === original ? stripEnd(original) : original, assistant, label: 1, kind });
    }
    if (rng.chance(0.12)) {
      const padded = rng.chance(0.5)
        ? `${rng.pick(OPENERS)} ${text}`
        : `${stripEnd(text)} ${rng.pick(CLOSERS)}`;
      out.push({ user: padded, assistant, label: 1, kind: 'complete_padded' });
    }
    if (tokens.length >= 3 && rng.chance(settings.innerFillerShare)) {
      // A hesitation inside a finished turn: only a filler at the end is a cue.
      const at = rng.int(1, tokens.length - 1);
      const inner = [...tokens.slice(0, at), `${rng.pick(FILLERS)},`, ...tokens.slice(at)].join(' ');
      out.push({ user: inner, assistant, label: 1, kind: 'complete_padded' });
    }
    const cuts = tokens
      .slice(0, -1)
      .flatMap((token, index) => (SENTENCE_END.test(token) ? [] : [index + 1]))
      .filter((cut) => !wholeTurns.has(normalizedTurn(tokens.slice(0, cut).join(' '))));
    const cutWeights = cuts.map((cut) => {
      const last = words(tokens[cut - 1] as string).at(-1);
      return last !== undefined && FUNCTION_WORDS.has(last) ? settings.functionWordCutWeight : 1;
    });
    const totalWeight = cutWeights.reduce((a, b) => a + b, 0);
    const cutText = (): string | undefined => {
      if (cuts.length === 0) return undefined;
      let draw = rng.next() * totalWeight;
      let at = 0;
      while (at < cuts.length - 1 && draw >= (cutWeights[at] as number)) draw -= cutWeights[at++] as number;
      return stripEnd(tokens.slice(0, cuts[at] as number).join(' '));
    };
    if (rng.chance(0.85)) {
      const cut = cutText();
      if (cut) out.push({ user: cut, assistant, label: 0, kind: 'cut' });
    }
    if (rng.chance(settings.secondCutShare)) {
      const cut = cutText();
      if (cut) out.push({ user: cut, assistant, label: 0, kind: 'cut' });
    }
    if (tokens.length >= 3 && rng.chance(settings.tailShare)) {
      const from = rng.int(Math.max(1, tokens.length - 5), tokens.length - 1);
      out.push({ user: tokens.slice(from).join(' '), assistant, label: 1, kind: 'complete_fragment' });
    }
    const values = dialogue.slotValues?.get(i);
    if (values && assistant !== undefined && rng.chance(settings.fragmentShare)) {
      // People answer a question with the value alone: "San Jose", "at 7 pm", "pizza and pasta".
      const value = rng.pick(values);
      const start = original.indexOf(value);
      const lead = start > 0 ? words(original.slice(0, start)).at(-1) : undefined;
      const fragment =
        lead !== undefined && FRAGMENT_LEADS.has(lead) && rng.chance(0.5) ? `${lead} ${value}` : value;
      out.push({ user: fragment, assistant, label: 1, kind: 'complete_fragment' });
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
