import type { TurnDetector } from '@voxwire/agents';
import {
  type ConversationTurn,
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
} from '@voxwire/agents/provider-utils';
import { type LoadedTokenModel, loadTokenizer, loadTokenModel } from './external-loader.js';
import { lastExchange } from './features.js';
import { primaryLanguage } from './model-config.js';
import type { WordTokenizer } from './tokenizer.js';

export const DEFAULT_EXTERNAL_THRESHOLD = 0.5;
export const DEFAULT_MAX_TOKENS = 128;

export interface ExternalEndOfTurnModelOptions {
  /** The ONNX file: input `input_ids` (int64 [1, n]), optionally `attention_mask`/`token_type_ids`, one output. */
  modelPath: string;
  /** The model's Hugging Face `tokenizer.json` (WordLevel or WordPiece). */
  tokenizerPath: string;
  /**
   * The probability below which the end of turn is unlikely: one number for every language in
   * `languages`, or one per language (primary subtag, e.g. `{ en: 0.6, de: 0.4 }`). Default 0.5.
   */
  unlikelyThreshold?: number | Readonly<Record<string, number>>;
  /**
   * Primary language subtags the model covers. Default: the keys of a per-language `unlikelyThreshold`,
   * otherwise `['en']`. Other languages get no threshold, and the session endpoints on silence alone.
   */
  languages?: readonly string[];
  /**
   * The language assumed when the session does not know the user's. Default: the first of `languages`;
   * `null` endpoints on silence alone until a language is known.
   */
  defaultLanguage?: string | null;
  /**
   * The longest sequence fed to the model, special tokens included; longer text keeps its end (the
   * user's latest words). Default 128.
   */
  maxTokens?: number;
}

/**
 * The token ids the model reads for a conversation: the agent's last turn and the user's pending turn
 * joined by a space, tokenized as one sequence, cut from the start to fit `maxTokens` with the
 * tokenizer's special tokens around it.
 */
export function conversationInputIds(
  tokenizer: WordTokenizer,
  turns: readonly ConversationTurn[],
  maxTokens: number,
): number[] {
  const { user, assistant } = lastExchange(turns);
  const text = assistant === undefined ? user : `${assistant} ${user}`;
  const room = maxTokens - tokenizer.prefix.length - tokenizer.suffix.length;
  const ids = tokenizer.encode(text);
  const kept = ids.length > room ? ids.slice(ids.length - room) : ids;
  return [...tokenizer.prefix, ...kept, ...tokenizer.suffix];
}

/**
 * A `TurnDetector` over an end-of-turn model of your own: an ONNX classifier that reads token ids made
 * by a simple Hugging Face tokenizer (WordLevel or WordPiece) and gives the probability that the user's
 * turn is complete. Runs on the calling thread with onnxruntime-node, like the bundled model.
 */
export class ExternalEndOfTurnModel implements TurnDetector {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'turn-detector.ExternalEndOfTurnModel';
  /** Primary language subtags the model covers. */
  readonly languages: readonly string[];
  readonly maxTokens: number;
  private readonly thresholds: ReadonlyMap<string, number>;
  private readonly defaultLanguage: string | undefined;

  private constructor(
    private readonly model: LoadedTokenModel,
    private readonly tokenizer: WordTokenizer,
    options: ExternalEndOfTurnModelOptions,
  ) {
    this.thresholds = thresholdsOf(options);
    this.languages = [...this.thresholds.keys()];
    const fallback = options.defaultLanguage === undefined ? this.languages[0] : options.defaultLanguage;
    this.defaultLanguage = fallback === null ? undefined : fallback;
    const specials = tokenizer.prefix.length + tokenizer.suffix.length;
    const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    if (!Number.isInteger(maxTokens) || maxTokens <= specials) {
      throw new RangeError(
        `maxTokens must be an integer above the tokenizer's ${specials} special tokens, got ${maxTokens}`,
      );
    }
    this.maxTokens = maxTokens;
  }

  /**
   * Loads the model and its tokenizer (each once per process: later calls with the same path share it).
   * Rejects with a `TurnModelError` naming the file when one is missing (`not_found`), the tokenizer is
   * not valid JSON or the model lacks `input_ids` (`invalid`), the tokenizer is of a kind this package
   * does not read (`unsupported`), or onnxruntime rejects the file (`load_failed`). Bad options throw a
   * `RangeError`.
   */
  static async load(options: ExternalEndOfTurnModelOptions): Promise<ExternalEndOfTurnModel> {
    // Check the options first: a typo should not cost a model load.
    thresholdsOf(options);
    const [model, tokenizer] = await Promise.all([
      loadTokenModel(options.modelPath),
      loadTokenizer(options.tokenizerPath),
    ]);
    return new ExternalEndOfTurnModel(model, tokenizer, options);
  }

  supportsLanguage(language: string | undefined): boolean {
    return this.unlikelyThreshold(language) !== undefined;
  }

  unlikelyThreshold(language: string | undefined): number | undefined {
    const primary = primaryLanguage(language ?? this.defaultLanguage);
    return primary === undefined ? undefined : this.thresholds.get(primary);
  }

  /** An empty conversation (no tokens at all) scores 0 without running the model. */
  async predictEndOfTurn(
    turns: readonly ConversationTurn[],
    options: ProviderCallOptions = {},
  ): Promise<number> {
    options.signal?.throwIfAborted();
    const ids = conversationInputIds(this.tokenizer, turns, this.maxTokens);
    if (ids.length === 0) return 0;
    const probability = await this.model.run(ids);
    options.signal?.throwIfAborted();
    return probability;
  }
}

function checkThreshold(value: unknown, where: string): number {
  if (typeof value !== 'number' || !(value > 0 && value < 1)) {
    throw new RangeError(`${where} must be between 0 and 1, got ${String(value)}`);
  }
  return value;
}

/** Language (primary subtag) -> threshold, in the order the languages were given. */
function thresholdsOf(options: ExternalEndOfTurnModelOptions): Map<string, number> {
  const given = options.unlikelyThreshold ?? DEFAULT_EXTERNAL_THRESHOLD;
  const perLanguage = new Map<string, number>();
  if (typeof given === 'object') {
    for (const [language, value] of Object.entries(given)) {
      perLanguage.set(primaryOf(language), checkThreshold(value, `unlikelyThreshold.${language}`));
    }
  }
  const languages =
    options.languages?.map(primaryOf) ?? (typeof given === 'object' ? [...perLanguage.keys()] : ['en']);
  if (languages.length === 0) throw new RangeError('languages must name at least one language');
  const out = new Map<string, number>();
  for (const language of languages) {
    const threshold =
      typeof given === 'number' ? checkThreshold(given, 'unlikelyThreshold') : perLanguage.get(language);
    if (threshold === undefined)
      throw new RangeError(`unlikelyThreshold has no entry for language ${language}`);
    out.set(language, threshold);
  }
  return out;
}

function primaryOf(language: string): string {
  const primary = primaryLanguage(language);
  if (primary === undefined) throw new RangeError(`not a language: ${JSON.stringify(language)}`);
  return primary;
}
