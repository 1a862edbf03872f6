import { VoxwireError, AudioFrameLike, VAD } from '@voxwire/agents';
import { VADStream, VADEvent, ProviderCallOptions } from '@voxwire/agents/provider-utils';

/** The model file is missing, unreadable, corrupt, or not a Silero VAD v5/v6 model. */
declare class SileroModelError extends VoxwireError {
    name: string;
    readonly modelPath: string;
    constructor(message: string, modelPath: string, options?: {
        cause?: unknown;
    });
}
/**
 * A stream could not analyse some audio. The stream recovers by itself: after `inference_failed` its
 * recurrent state is reset and the window counts as silence; after `audio_dropped` analysis resumes at
 * the newest audio.
 */
declare class SileroInferenceError extends VoxwireError {
    name: string;
    readonly code: 'inference_failed' | 'audio_dropped';
    /** Audio position (ms) of the affected window or of the first dropped sample. */
    readonly timestampMs: number;
    constructor(message: string, options: {
        code: 'inference_failed' | 'audio_dropped';
        timestampMs: number;
        cause?: unknown;
    });
}

type ModelSampleRate = 8000 | 16000;

/**
 * The batched graph of a Silero VAD v5/v6 file for one model rate, as ONNX bytes: for running it
 * elsewhere (another runtime, a benchmark). Unlike `SileroVAD.load`, which falls back to the file's own
 * graph, this rejects with `SileroModelError` when the file cannot be read or rebuilt.
 */
declare function buildBatchedModel(options?: {
    modelPath?: string;
    sampleRate?: ModelSampleRate;
}): Promise<Uint8Array>;

interface SileroVADOptions {
    /** Probability at or above which a window is speech. Default 0.5. */
    activationThreshold?: number;
    /** Probability below which a window is silence while speaking. Default `activationThreshold - 0.15` (at least 0.01). */
    deactivationThreshold?: number;
    /** Speech needed before `start_of_speech`. Default 50 ms. */
    minSpeechDurationMs?: number;
    /** Silence needed before `end_of_speech`. Default 550 ms. */
    minSilenceDurationMs?: number;
    /** Audio kept before the detected start and included in the speech frames. Default 500 ms. */
    prefixPaddingDurationMs?: number;
    /** Longest utterance (with padding) held for `end_of_speech` frames; later audio is not kept. Default 60 000 ms. */
    maxBufferedSpeechMs?: number;
    /** How often `inference_done` is emitted, in ms of audio. Default 32 ms (every window). */
    updateIntervalMs?: number;
    /** Rate the model runs at: 16 000 (512-sample windows) or 8 000 (256). Input of any rate is resampled. Default 16 000. */
    sampleRate?: ModelSampleRate;
    /** Only use the CPU execution provider. Default true. */
    forceCPU?: boolean;
    /** onnxruntime intra-op threads per session. Default 1: parallelism comes from `workers`. */
    threads?: number;
    /** Inference worker threads shared by every stream in the process (with `auto`, once started). Default: available cores, at most 4. */
    workers?: number;
    /**
     * Where inference runs. `auto` (default): on the main thread while inference takes a small share of
     * it, in `workers` worker threads, started then, once it takes more than 15% over 2 s, and back on the
     * main thread after a minute below 6% (see the README's "Placement"); always the main thread when
     * no worker file is found (TypeScript sources run without tsx, as test runners do). `workers`: worker threads from
     * the start. `main-thread`: never worker threads.
     */
    inference?: 'auto' | 'workers' | 'main-thread';
    /** Most streams per inference call. Default 64. */
    maxBatchSize?: number;
    /**
     * Longest a live window waits for other streams' windows to share its inference call, in ms: the
     * latency paid for cheaper inference with many streams. A batch leaves earlier when it is full, when
     * every active stream has a window waiting (always so with one stream) or when streams have a backlog.
     * Default 32 ms, one window: live streams sending equal frames finish their windows in step, so a
     * round of windows spans up to one frame period (20 ms for the usual 20 ms frames), and a delay that
     * covers it puts each stream's window in one shared call instead of splitting the round in two.
     */
    maxBatchDelayMs?: number;
    /** Unanalysed audio a stream holds before it drops the oldest (reported as an error). Default 30 000 ms. */
    maxBacklogMs?: number;
    /** Path of a Silero VAD v5/v6 ONNX file. Default: the model shipped in this package. */
    modelPath?: string;
    /**
     * `batched` (default): the file's weights run in a graph rebuilt so each layer is one matrix product
     * over the whole batch, checked against the file's graph when loaded (probabilities agree to about
     * 1e-6) and about 3x cheaper per window at 16+ streams. `original`: the file's own graph.
     */
    modelGraph?: 'batched' | 'original';
    /**
     * How batches of one or two streams' windows run with the batched graph. `wasm` (default): on a
     * WebAssembly SIMD copy of the network, checked against the file's graph when loaded like the batched
     * graph: a one-row call into onnxruntime costs about 2.5x as much when its code is out of the caches, as
     * it is for a stream or two calling every 32 ms (see the README's "Small batches"). `onnxruntime`: on
     * the batched graph like every other batch.
     */
    smallBatchKernel?: 'wasm' | 'onnxruntime';
    /** URL of the built inference worker, for bundlers that move it. Default: next to this module. */
    workerUrl?: URL;
}
type ResolvedOptions = Required<Omit<SileroVADOptions, 'workerUrl'>> & {
    workerUrl: URL | undefined;
};

/**
 * A Silero VAD stream: the `VADStream` contract plus backlog figures. Windows it could not analyse and
 * audio it dropped to keep up go to the stream's `onProblem`.
 */
declare class SileroVADStream implements VADStream {
    #private;
    private constructor();
    /** Unanalysed audio waiting for inference, in ms. */
    get pendingAudioMs(): number;
    /** Audio analysed so far, in ms. */
    get processedAudioMs(): number;
    pushFrame(frame: AudioFrameLike): void;
    endInput(): void;
    close(): Promise<void>;
    [Symbol.asyncIterator](): AsyncIterator<VADEvent>;
}

/**
 * The inference worker thread could not be started (not a problem of the model file): for example Node
 * refused the flags it was started with. `load()` rejects with this one unwrapped, so the message does not
 * blame the model.
 */
declare class SileroWorkerStartError extends VoxwireError {
    name: string;
}

/** The model shipped in this package. */
declare const DEFAULT_MODEL_PATH: string;
/**
 * Silero voice activity detection. `SileroVAD.load()` opens the model once per process (on the main
 * thread, moving to worker threads when the load needs them); every stream shares it and keeps its own
 * recurrent state.
 *
 * ```ts
 * const vad = await SileroVAD.load({ minSilenceDurationMs: 400 });
 * const stream = vad.stream();
 * ```
 */
declare class SileroVAD implements VAD {
    readonly options: Readonly<ResolvedOptions>;
    private readonly pool;
    private readonly poolKey;
    readonly specificationVersion = "v1";
    readonly label = "silero";
    readonly minSilenceDurationMs: number;
    readonly minSpeechDurationMs: number;
    /**
     * How this instance places inference: `workers` or `main-thread` as asked, or `auto` (the default when
     * the built worker file is found): on the main thread while inference is light, in worker threads once
     * it takes more than 15% of the main thread. `placement` says where it runs now.
     */
    readonly inference: 'auto' | 'workers' | 'main-thread';
    /**
     * The graph that runs at this instance's `sampleRate`: `original` when asked for, or when the batched
     * rebuild did not match this model file (a warning then says why).
     */
    readonly modelGraph: 'batched' | 'original';
    /**
     * How batches of one or two streams' windows run at this instance's `sampleRate`: `wasm` when asked
     * for (the default) and the WebAssembly network matched the model file, otherwise `onnxruntime`.
     */
    readonly smallBatchKernel: 'wasm' | 'onnxruntime';
    private closed;
    private readonly streams;
    private constructor();
    /**
     * Loads the model (or joins the process's already loaded one). Rejects with `SileroModelError`,
     * naming the path, when the file is missing or cannot be loaded.
     */
    static load(options?: SileroVADOptions): Promise<SileroVAD>;
    /** Where the process's inference for this configuration runs now. */
    get placement(): 'workers' | 'main-thread';
    stream(options?: ProviderCallOptions): SileroVADStream;
    /** Closes this instance's streams and releases its use of the shared model; the last user stops the workers. */
    close(): Promise<void>;
}

export { DEFAULT_MODEL_PATH, SileroInferenceError, SileroModelError, SileroVAD, type SileroVADOptions, SileroVADStream, SileroWorkerStartError, buildBatchedModel };
