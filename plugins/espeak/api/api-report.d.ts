import { APIConnectionError } from '@voxwire/agents';
import { BatchTTS, ProviderCallOptions, SynthesizedAudio } from '@voxwire/agents/provider-utils';

/** The espeak-ng program could not be run. The message says how to install it. */
declare class EspeakNotFoundError extends APIConnectionError {
    name: string;
    readonly binary: string;
    constructor(binary: string, cause?: unknown);
}

interface EspeakTTSOptions {
    /** An espeak-ng voice, e.g. `en-us`, `en-gb`, `fr`, `de`, `en-us+f3` (`espeak-ng --voices` lists them). Default `en-us`. */
    voice?: string;
    /** Speaking rate in words per minute (80-450). Default 175. */
    wordsPerMinute?: number;
    /** Pitch, 0-99. Default 50. */
    pitch?: number;
    /** The program to run: a name on PATH or a path. Default `espeak-ng`. */
    binary?: string;
    /** Length of the audio frames handed to the session. Default 40 ms. */
    frameMs?: number;
}
/**
 * Text-to-speech through the local `espeak-ng` program: robotic, but instant, offline and free, which
 * makes it the voice of Voxwire's no-key examples. Each sentence runs one short-lived process whose
 * output is streamed as it is produced; an aborted synthesis kills the process.
 *
 * ```ts
 * await EspeakTTS.check(); // throws EspeakNotFoundError, with install instructions, when it is missing
 * const session = new AgentSession({ vad, stt, llm, tts: new EspeakTTS({ voice: 'en-gb' }) });
 * ```
 */
declare class EspeakTTS implements BatchTTS {
    readonly specificationVersion = "v1";
    /** One process per text: the session cuts streamed text into sentences for it. */
    readonly kind = "batch";
    readonly label = "espeak-ng";
    readonly sampleRate = 22050;
    readonly numChannels = 1;
    readonly binary: string;
    private readonly args;
    private readonly frameMs;
    constructor(options?: EspeakTTSOptions);
    /**
     * Checks that the program runs and returns its version line. Rejects with `EspeakNotFoundError`
     * (whose message says how to install it) when it does not.
     */
    static check(binary?: string): Promise<string>;
    synthesize(text: string, options?: ProviderCallOptions): AsyncIterable<SynthesizedAudio>;
}

export { EspeakNotFoundError, EspeakTTS, type EspeakTTSOptions };
