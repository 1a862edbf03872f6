import { TurnDetector, VoxwireError, TurnHandlingOptions } from '@voxwire/agents';
import { ConversationTurn, ProviderCallOptions } from '@voxwire/agents/provider-utils';

interface EndOfTurnModelOptions {
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
declare class EndOfTurnModel implements TurnDetector {
    private readonly model;
    readonly specificationVersion = "v1";
    readonly label = "turn-detector.EndOfTurnModel";
    private readonly defaultLanguage;
    private readonly threshold;
    private constructor();
    /**
     * Loads the model (once per process: later calls with the same path share it). Rejects with a
     * `TurnModelError` naming the file when it is missing or unusable.
     */
    static load(options?: EndOfTurnModelOptions): Promise<EndOfTurnModel>;
    /** Primary language subtags the model covers (`en` for the bundled model). */
    get languages(): readonly string[];
    supportsLanguage(language: string | undefined): boolean;
    unlikelyThreshold(language: string | undefined): number | undefined;
    predictEndOfTurn(turns: readonly ConversationTurn[], options?: ProviderCallOptions): Promise<number>;
}

type TurnModelErrorCode = 'not_found' | 'invalid' | 'unsupported' | 'load_failed';
/**
 * The end-of-turn model could not be loaded: its description, tokenizer or ONNX file is missing
 * (`not_found`), the description, tokenizer or model's inputs are not what this package can use
 * (`invalid`), a tokenizer is of a kind this package does not implement (`unsupported`, the message
 * names the kind), or onnxruntime rejected the file (`load_failed`). The message and `modelPath` name
 * the file.
 */
declare class TurnModelError extends VoxwireError {
    name: string;
    readonly code: TurnModelErrorCode;
    readonly modelPath: string;
    constructor(message: string, options: {
        code: TurnModelErrorCode;
        modelPath: string;
        cause?: unknown;
    });
}

/**
 * The description that sits beside a model's ONNX file (`<name>.json`): which features it was trained
 * on, its shape, the languages it covers with their thresholds, and how it was evaluated.
 */
interface TurnModelConfig {
    format: 'voxwire-turn-detector';
    featureVersion: number;
    /** The ONNX file, relative to this description. */
    model: string;
    /** Rows of the hashed-feature embedding table. */
    buckets: number;
    embeddingSize: number;
    hiddenSize: number;
    /** Per supported language (lower-case primary BCP-47 subtag, e.g. `en`): the unlikely threshold. */
    languages: Record<string, {
        unlikelyThreshold: number;
    }>;
    /** How the model was trained and what it scored on held-out data (informative). */
    training?: unknown;
}

/** The bundled English model's description (its ONNX file sits beside it). */
declare const DEFAULT_MODEL_PATH: string;

/**
 * Endpointing settings for a session with an end-of-turn model. The VAD reports the end of speech after a
 * short silence (200 ms) and the model picks the wait: the minimum delay (250 ms, counted from the voice's
 * end, so it overlaps the VAD's silence) when the words sound finished, up to the maximum when they do
 * not ("I'd like to order, um"). The VAD's silence is counted from Silero's last confident window, which
 * lags the voice by one to three windows, so 200 ms there is about 250 ms of real silence: the model
 * then judges the words without waiting longer than the delay it chose. Without a model keep the
 * session's defaults: a short VAD silence would then cut people off.
 *
 * ```ts
 * const vad = await SileroVAD.load({ minSilenceDurationMs: ENDPOINTING_PRESET.vadMinSilenceDurationMs });
 * const session = new AgentSession({ vad, stt, llm, tts, turnDetector, turnHandling: ENDPOINTING_PRESET.turnHandling });
 * ```
 */
declare const ENDPOINTING_PRESET: {
    readonly vadMinSilenceDurationMs: number;
    readonly turnHandling: Readonly<Pick<TurnHandlingOptions, 'minEndpointingDelay' | 'maxEndpointingDelay'>>;
};

interface ExternalEndOfTurnModelOptions {
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
 * A `TurnDetector` over an end-of-turn model of your own: an ONNX classifier that reads token ids made
 * by a simple Hugging Face tokenizer (WordLevel or WordPiece) and gives the probability that the user's
 * turn is complete. Runs on the calling thread with onnxruntime-node, like the bundled model.
 */
declare class ExternalEndOfTurnModel implements TurnDetector {
    private readonly model;
    private readonly tokenizer;
    readonly specificationVersion = "v1";
    readonly label = "turn-detector.ExternalEndOfTurnModel";
    /** Primary language subtags the model covers. */
    readonly languages: readonly string[];
    readonly maxTokens: number;
    private readonly thresholds;
    private readonly defaultLanguage;
    private constructor();
    /**
     * Loads the model and its tokenizer (each once per process: later calls with the same path share it).
     * Rejects with a `TurnModelError` naming the file when one is missing (`not_found`), the tokenizer is
     * not valid JSON or the model lacks `input_ids` (`invalid`), the tokenizer is of a kind this package
     * does not read (`unsupported`), or onnxruntime rejects the file (`load_failed`). Bad options throw a
     * `RangeError`.
     */
    static load(options: ExternalEndOfTurnModelOptions): Promise<ExternalEndOfTurnModel>;
    supportsLanguage(language: string | undefined): boolean;
    unlikelyThreshold(language: string | undefined): number | undefined;
    /** An empty conversation (no tokens at all) scores 0 without running the model. */
    predictEndOfTurn(turns: readonly ConversationTurn[], options?: ProviderCallOptions): Promise<number>;
}

export { DEFAULT_MODEL_PATH, ENDPOINTING_PRESET, EndOfTurnModel, type EndOfTurnModelOptions, ExternalEndOfTurnModel, type ExternalEndOfTurnModelOptions, type TurnModelConfig, TurnModelError, type TurnModelErrorCode };
