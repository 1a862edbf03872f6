/**
 * What every provider specification shares: the version marker, the options every call takes, and the
 * channel for problems a provider recovered from by itself.
 *
 * A provider reports two kinds of trouble, and they travel differently:
 * - a **fatal** error ends the call: the promise rejects or the stream's iteration throws, with a typed
 *   `APIError` (`APIConnectionError`, `APIStatusError`, `APITimeoutError`) whose `retryable` tells the
 *   session whether trying again can help. `APIError`'s own default is `retryable: true`: give
 *   `retryable: false` to errors a retry cannot fix (a malformed answer, a refused key, a bad request);
 * - a **recoverable** problem (a reconnect, audio it had to drop, a retry, a degraded mode) does not end
 *   anything: the provider calls `onProblem` and goes on. The session turns each into an `error` event
 *   with `recoverable: true` and the provider's kind as `source`.
 */

/** The specification version this file describes. A provider sets `specificationVersion` to it. */
export const SPECIFICATION_VERSION = 'v1';
export type SpecificationVersion = typeof SPECIFICATION_VERSION;

/**
 * A word and when it is spoken, in ms. For a recognizer: of the stream's audio since it opened (so a
 * reconnecting provider keeps counting). For a synthesizer: of the audio this stream or `synthesize()`
 * call produced, from its first sample.
 */
export interface TimedWord {
  word: string;
  startMs: number;
  endMs: number;
  /** 0..1, when a recognizer reports it per word. */
  confidence?: number;
}

/** A problem the provider worked around; the call goes on. */
export type ProviderProblem =
  /** A request failed and will be tried again after `delayMs`. */
  | { type: 'retrying'; attempt: number; delayMs: number; error: Error }
  /** A live connection broke and is being re-established; buffered input is replayed after it. */
  | { type: 'reconnecting'; attempt: number; delayMs: number; error: Error }
  /**
   * Audio was discarded (a full buffer, a failed inference); what follows is heard again. Report once
   * per run of drops, not per frame: each report becomes an event for the user.
   */
  | { type: 'audio_dropped'; droppedMs: number; message: string; error?: Error }
  /** Anything else worth a user's attention that does not stop the call. */
  | { type: 'warning'; message: string; error?: Error };

/**
 * The options every provider call takes. Timeouts (connecting, waiting for an answer) are the
 * provider's own options; the session adds its own deadlines on top, so a provider without any still
 * cannot hold a turn forever.
 *
 * A provider class states its literal fields as `readonly` (`readonly kind = 'streaming'`), so that
 * TypeScript keeps the literal type the union needs.
 */
export interface ProviderCallOptions {
  /**
   * Aborting ends the call at once: pending work is cancelled, connections are released, a stream's
   * iteration finishes quietly (it does not throw because of the abort) and a promise rejects with the
   * signal's reason.
   */
  signal?: AbortSignal;
  /** Where recoverable problems go. Optional: a provider must work without it. */
  onProblem?: (problem: ProviderProblem) => void;
}
