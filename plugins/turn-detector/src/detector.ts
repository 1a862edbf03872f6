import type { TurnDetector } from '@voxwire/agents';
import {
  type ConversationTurn,
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
} from '@voxwire/agents/provider-utils';
import { conversationFeatures } from './features.js';
import { primaryLanguage } from './model-config.js';
import { DEFAULT_MODEL_PATH, type LoadedTurnModel, loadTurnModel } from './model-loader.js';

export interface EndOfTurnModelOptions {
  /**
   * A model description (`.json`, with its ONNX file beside it) made by this package's training script.
   * Default: the bundled English model.
   */
  modelPath?: string;
  /**
   * The language assumed when the session does not know the user's (its recognizer reports none).
   * Default `en`; `null` endpoints on silence alone until a language is known.
   */
  defaultLanguage?: string | null;
  /**
   * Replaces the model's threshold for every language it covers: higher cuts people off less and
   * answers finished turns later more often (see the README's figures). Between 0 and 1.
   */
  unlikelyThreshold?: number;
}

/**
 * Scores how likely it is that the user has finished speaking, from the words of their pending turn and
 * the agent's turn before it. A small network over hashed word features, run by onnxruntime-node on the
 * calling thread (a prediction costs well under a millisecond; see the package's bench script).
 */
export class EndOfTurnModel implements TurnDetector {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'turn-detector.EndOfTurnModel';
  private readonly defaultLanguage: string | undefined;
  private readonly threshold: number | undefined;

  private constructor(
    private readonly model: LoadedTurnModel,
    options: EndOfTurnModelOptions,
  ) {
    const fallback = options.defaultLanguage === undefined ? 'en' : options.defaultLanguage;
    this.defaultLanguage = fallback === null ? undefined : fallback;
    const threshold = options.unlikelyThreshold;
    if (threshold !== undefined && !(threshold > 0 && threshold < 1)) {
      throw new RangeError(`unlikelyThreshold must be between 0 and 1, got ${threshold}`);
    }
    this.threshold = threshold;
  }

  /**
   * Loads the model (once per process: later calls with the same path share it). Rejects with a
   * `TurnModelError` naming the file when it is missing or unusable.
   */
  static async load(options: EndOfTurnModelOptions = {}): Promise<EndOfTurnModel> {
    const model = await loadTurnModel(options.modelPath ?? DEFAULT_MODEL_PATH);
    return new EndOfTurnModel(model, options);
  }

  /** Primary language subtags the model covers (`en` for the bundled model). */
  get languages(): readonly string[] {
    return Object.keys(this.model.config.languages);
  }

  supportsLanguage(language: string | undefined): boolean {
    return this.unlikelyThreshold(language) !== undefined;
  }

  unlikelyThreshold(language: string | undefined): number | undefined {
    const primary = primaryLanguage(language ?? this.defaultLanguage);
    if (primary === undefined) return undefined;
    const own = this.model.config.languages[primary]?.unlikelyThreshold;
    return own === undefined ? undefined : (this.threshold ?? own);
  }

  async predictEndOfTurn(
    turns: readonly ConversationTurn[],
    options: ProviderCallOptions = {},
  ): Promise<number> {
    options.signal?.throwIfAborted();
    const probability = await this.model.run(conversationFeatures(turns, this.model.config.buckets));
    options.signal?.throwIfAborted();
    return probability;
  }
}
