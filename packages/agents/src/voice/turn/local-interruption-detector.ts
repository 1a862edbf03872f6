import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type {
  InterruptionDetector,
  InterruptionEvidence,
  InterruptionVerdict,
} from '../../providers/interruption-detector.js';

/**
 * Short acknowledgements per language (the primary subtag of a BCP-47 code). Multi-word entries are
 * phrases ("got it"); a transcript is a backchannel when it is made of these and nothing else.
 */
export const DEFAULT_BACKCHANNELS: Readonly<Record<string, readonly string[]>> = {
  en: [
    'mm',
    'mmm',
    'mhm',
    'mm-hmm',
    'mmhmm',
    'hmm',
    'hm',
    'uh-huh',
    'uh huh',
    'uhhuh',
    'yeah',
    'yea',
    'yes',
    'yep',
    'yup',
    'ok',
    'okay',
    'k',
    'right',
    'sure',
    'alright',
    'all right',
    'i see',
    'got it',
    'cool',
    'nice',
    'great',
    'wow',
    'oh',
    'ah',
    'aha',
    'exactly',
    'true',
    'totally',
    'indeed',
    'of course',
    'makes sense',
    'good',
  ],
  es: [
    'sí',
    'si',
    'vale',
    'claro',
    'ajá',
    'aja',
    'ya',
    'bueno',
    'mhm',
    'ok',
    'okay',
    'exacto',
    'entiendo',
    'de acuerdo',
    'ah',
    'oh',
    'bien',
    'perfecto',
  ],
  fr: [
    'oui',
    'ouais',
    "d'accord",
    'daccord',
    'ok',
    'okay',
    'mhm',
    'ah',
    'oh',
    'bien',
    'voilà',
    'voila',
    'exactement',
    'je vois',
    "c'est ça",
    'entendu',
    'super',
  ],
  de: [
    'ja',
    'jo',
    'genau',
    'okay',
    'ok',
    'mhm',
    'aha',
    'ah',
    'oh',
    'stimmt',
    'richtig',
    'alles klar',
    'gut',
    'klar',
    'verstehe',
    'ich verstehe',
    'super',
  ],
};

export interface LocalInterruptionDetectorOptions {
  /** Acknowledgements per language; replaces the defaults of the languages it names. */
  backchannels?: Readonly<Record<string, readonly string[]>>;
  /** Language used when the transcript's is unknown or has no list. Default `en`. */
  fallbackLanguage?: string;
  /** A longer transcript is never a backchannel. Default 3 words. */
  maxBackchannelWords?: number;
  /**
   * Speech with no words at all (a recognizer that is failing, or none) cuts once it lasts this long;
   * shorter wordless sound (a cough, breathing, a laugh) never does. Default 2000 ms.
   */
  wordlessInterruptMs?: number;
}

/**
 * The local default: no model, no network. Wordless sound is a non-speech noise until it lasts
 * `wordlessInterruptMs`; a transcript made only of acknowledgements in its language ("mm-hmm", "yeah
 * right", "okay") is a backchannel; anything else, a question mark, or more than
 * `maxBackchannelWords` words is a barge-in. So "yeah" resumes the agent and "yeah but wait" cuts it,
 * one interim transcript later than the plain thresholds would.
 */
export class LocalInterruptionDetector implements InterruptionDetector {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'local.backchannel-words';
  private readonly lists = new Map<string, { single: Set<string>; phrases: string[][] }>();
  private readonly fallback: string;
  private readonly maxWords: number;
  private readonly wordlessMs: number;

  constructor(options: LocalInterruptionDetectorOptions = {}) {
    const merged = { ...DEFAULT_BACKCHANNELS, ...options.backchannels };
    for (const [language, entries] of Object.entries(merged)) {
      const single = new Set<string>();
      const phrases: string[][] = [];
      for (const entry of entries) {
        const tokens = tokenize(entry);
        if (tokens.length === 1) single.add(tokens[0]!);
        else if (tokens.length > 1) phrases.push(tokens);
      }
      this.lists.set(language.toLowerCase(), { single, phrases });
    }
    this.fallback = (options.fallbackLanguage ?? 'en').toLowerCase();
    this.maxWords = options.maxBackchannelWords ?? 3;
    this.wordlessMs = options.wordlessInterruptMs ?? 2000;
  }

  classify(evidence: InterruptionEvidence): InterruptionVerdict {
    const tokens = tokenize(evidence.transcript);
    if (tokens.length === 0) return evidence.speechMs >= this.wordlessMs ? 'interrupt' : 'undecided';
    if (evidence.transcript.includes('?') || tokens.length > this.maxWords) return 'interrupt';
    const match = this.match(tokens, evidence.language);
    if (match === 'prefix') return evidence.userSpeaking ? 'undecided' : 'interrupt';
    return match === 'yes' ? 'backchannel' : 'interrupt';
  }

  /**
   * Whether the tokens are a sequence of acknowledgements of the language ("yeah", "i see"); `prefix`
   * when they end with the start of a phrase ("i" of "i see"), which more words may complete.
   */
  private match(tokens: readonly string[], language: string | undefined): 'yes' | 'no' | 'prefix' {
    const primary = language?.toLowerCase().split(/[-_]/u)[0];
    const list = (primary && this.lists.get(primary)) || this.lists.get(this.fallback);
    if (!list) return 'no';
    let i = 0;
    while (i < tokens.length) {
      const phrase = list.phrases.find((p) => p.every((t, k) => tokens[i + k] === t));
      if (phrase) i += phrase.length;
      else if (list.single.has(tokens[i]!)) i++;
      else {
        const rest = tokens.slice(i);
        const opens = list.phrases.some((p) => p.length > rest.length && rest.every((t, k) => p[k] === t));
        return opens ? 'prefix' : 'no';
      }
    }
    return 'yes';
  }
}

/** Lower-case words, punctuation dropped (inner hyphens and apostrophes kept: "uh-huh", "d'accord"). */
function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[’]/gu, "'")
    .split(/[\s,.;:!?¡¿"()]+/u)
    .map((t) => t.replace(/^['-]+|['-]+$/gu, ''))
    .filter((t) => t !== '');
}
