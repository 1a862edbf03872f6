import type { ProviderProblem } from './providers/common.js';

/** Base class of every error the core throws on purpose, so users can tell ours from theirs. */
export class VoxwireError extends Error {
  override name = 'VoxwireError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface APIErrorOptions {
  /** Whether the same call may succeed if tried again. */
  retryable?: boolean;
  body?: unknown;
  cause?: unknown;
}

/** A provider call failed. `retryable` says whether trying again can help. */
export class APIError extends VoxwireError {
  override name = 'APIError';
  readonly retryable: boolean;
  readonly body: unknown;
  constructor(message: string, options: APIErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? true;
    this.body = options.body;
  }
}

/** The provider could not be reached, or the connection broke. Retryable unless said otherwise. */
export class APIConnectionError extends APIError {
  override name = 'APIConnectionError';
  constructor(message = 'Connection error', options: APIErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/** The provider did not answer in time. */
export class APITimeoutError extends APIConnectionError {
  override name = 'APITimeoutError';
  constructor(message = 'Request timed out', options: APIErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/** The provider answered with an error status. 408, 409, 429 and 5xx are retryable by default. */
export class APIStatusError extends APIError {
  override name = 'APIStatusError';
  readonly statusCode: number;
  readonly requestId: string | undefined;
  constructor(
    message: string,
    options: APIErrorOptions & { statusCode: number; requestId?: string | undefined },
  ) {
    super(message, { ...options, retryable: options.retryable ?? isRetryableStatus(options.statusCode) });
    this.statusCode = options.statusCode;
    this.requestId = options.requestId;
  }
}

export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
}

/**
 * A tool call failed in a way the LLM should hear about (bad arguments, a business rule). Its message
 * goes back to the model as the function call's output instead of crashing the turn.
 */
export class ToolError extends VoxwireError {
  override name = 'ToolError';
}

/**
 * A tool ran longer than its `timeoutMs` (or the session's `toolTimeoutMs`). The model is told the call
 * timed out, the session reports this error with source `tool`, and the tool's signal aborts.
 */
export class ToolTimeoutError extends ToolError {
  override name = 'ToolTimeoutError';
  constructor(
    readonly toolName: string,
    readonly timeoutMs: number,
  ) {
    super(`The tool "${toolName}" did not finish within ${timeoutMs} ms`);
  }
}

/** The session is closed (or closing): the call cannot be honoured. */
export class SessionClosedError extends VoxwireError {
  override name = 'SessionClosedError';
  constructor(message = 'The agent session is closed') {
    super(message);
  }
}

/** A session method that needs a running session was called before `start()`. */
export class SessionNotStartedError extends VoxwireError {
  override name = 'SessionNotStartedError';
}

/** A speech handle was interrupted before it finished. */
export class SpeechInterruptedError extends VoxwireError {
  override name = 'SpeechInterruptedError';
  constructor(message = 'The speech was interrupted') {
    super(message);
  }
}

/**
 * The audio output did not take a frame, or did not report the end of playout, by the time the audio
 * was due to have played plus the session's `playoutGraceMs`.
 */
export class AudioOutputTimeoutError extends VoxwireError {
  override name = 'AudioOutputTimeoutError';
}

/** Audio that cannot be used as given (wrong rate, channel count, or malformed buffer). */
export class InvalidAudioError extends VoxwireError {
  override name = 'InvalidAudioError';
}

/**
 * Bytes that are not a WAV file the codec can read: not RIFF/WAVE, chunks out of order or cut short, or
 * a sample format it does not decode. A kind of InvalidAudioError, so code that already catches bad
 * audio catches this too; the message says what is wrong.
 */
export class WavFormatError extends InvalidAudioError {
  override name = 'WavFormatError';
}

/** Sending on, or waiting for room in, a channel that was closed. */
export class ChannelClosedError extends VoxwireError {
  override name = 'ChannelClosedError';
  constructor(channelName: string) {
    super(`Channel "${channelName}" is closed`);
  }
}

/** Every provider of a FallbackAdapter failed. */
export class AllProvidersFailedError extends APIError {
  override name = 'AllProvidersFailedError';
  readonly errors: readonly unknown[];
  constructor(message: string, errors: readonly unknown[]) {
    super(message, { retryable: false, cause: errors[errors.length - 1] });
    this.errors = errors;
  }
}

export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'name' in error &&
    (error as { name: unknown }).name === 'AbortError'
  );
}

/**
 * A provider recovered from a problem by itself (a reconnect, dropped audio, a retry). The session
 * reports it as a recoverable `error` event; `problem` holds the provider's own account of it.
 */
export class ProviderProblemError extends VoxwireError {
  override name = 'ProviderProblemError';
  constructor(readonly problem: ProviderProblem) {
    super(describeProblem(problem), { cause: 'error' in problem ? problem.error : undefined });
  }
}

function describeProblem(problem: ProviderProblem): string {
  switch (problem.type) {
    case 'retrying':
      return `retrying (attempt ${problem.attempt}) in ${problem.delayMs} ms: ${problem.error.message}`;
    case 'reconnecting':
      return `reconnecting (attempt ${problem.attempt}) in ${problem.delayMs} ms: ${problem.error.message}`;
    case 'audio_dropped':
      return `dropped ${Math.round(problem.droppedMs)} ms of audio: ${problem.message}`;
    case 'warning':
      return problem.message;
  }
}
