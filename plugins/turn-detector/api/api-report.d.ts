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

type TurnModelErrorCode = 'not_found' | 'invalid' | 'load_failed';
/**
 * The end-of-turn model could not be loaded: its description or ONNX file is missing (`not_found`),
 * the description is not one this package can use (`invalid`), or onnxruntime rejected the file
 * (`load_failed`). The message names the file.
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
 * short silence (250 ms) and the model picks the wait: the minimum delay when the words sound finished,
 * up to the maximum when they do not ("I'd like to order, um"). Without a model keep the session's
 * defaults: a short VAD silence would then cut people off.
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

export { DEFAULT_MODEL_PATH, ENDPOINTING_PRESET, EndOfTurnModel, type EndOfTurnModelOptions, type TurnModelConfig, TurnModelError, type TurnModelErrorCode };
