import { VoxwireError } from '@voxwire/agents';

/** The model file is missing, unreadable, corrupt, or not a Silero VAD v5/v6 model. */
export class SileroModelError extends VoxwireError {
  override name = 'SileroModelError';
  readonly modelPath: string;
  constructor(message: string, modelPath: string, options?: { cause?: unknown }) {
    super(message, options);
    this.modelPath = modelPath;
  }
}

/**
 * A stream could not analyse some audio. The stream recovers by itself: after `inference_failed` its
 * recurrent state is reset and the window counts as silence; after `audio_dropped` analysis resumes at
 * the newest audio.
 */
export class SileroInferenceError extends VoxwireError {
  override name = 'SileroInferenceError';
  readonly code: 'inference_failed' | 'audio_dropped';
  /** Audio position (ms) of the affected window or of the first dropped sample. */
  readonly timestampMs: number;
  constructor(
    message: string,
    options: { code: 'inference_failed' | 'audio_dropped'; timestampMs: number; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.timestampMs = options.timestampMs;
  }
}
