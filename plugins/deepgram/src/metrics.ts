/**
 * What the recognizers here measure, on their Clock. The provider specification has no metrics
 * channel for recognizers, so they go to the `onMetrics` option (the session's own `eou` metrics
 * measure the turn as a whole).
 */
export type DeepgramMetrics = DeepgramTranscriptMetrics | DeepgramStreamMetrics | DeepgramRecognizeMetrics;

/** One final transcript with words in it. */
export interface DeepgramTranscriptMetrics {
  type: 'final_transcript';
  label: string;
  /** The connection's `dg-request-id`, when the server sent one. */
  requestId: string | undefined;
  /**
   * From the moment the audio holding the end of the transcript's last word was pushed to the moment
   * the final arrived: how long the user waited for Deepgram after they stopped speaking. Undefined
   * when that audio is no longer known (it was pushed long ago).
   */
  endOfSpeechToFinalMs: number | undefined;
  /** Answered a `Finalize` (the session committed the turn). */
  fromFinalize: boolean;
  /** Audio Deepgram finalized on this stream so far. */
  audioProcessedMs: number;
}

/** A live stream ended (normally, closed, or failed). */
export interface DeepgramStreamMetrics {
  type: 'stream_ended';
  label: string;
  /** Every connection's request id, oldest first. */
  requestIds: string[];
  /** Audio pushed into the stream. */
  audioSentMs: number;
  /** Audio Deepgram finalized (acknowledged); what a bill is based on is Deepgram's own count. */
  audioProcessedMs: number;
  /** Connections opened, 1 without reconnects. */
  connections: number;
  /** Clock time from the stream's creation to its end. */
  durationMs: number;
  /** Set when the stream ended with an error. */
  error: Error | undefined;
}

/** One `recognize()` call. */
export interface DeepgramRecognizeMetrics {
  type: 'recognize';
  label: string;
  requestId: string | undefined;
  audioDurationMs: number;
  /** From the call to its answer (retries included). */
  durationMs: number;
  error: Error | undefined;
}

export type DeepgramMetricsListener = (metrics: DeepgramMetrics) => void;

/** A listener that throws must not break recognition: it only observes. */
export function emitMetrics(listener: DeepgramMetricsListener | undefined, metrics: DeepgramMetrics): void {
  if (!listener) return;
  try {
    listener(metrics);
  } catch {
    // See above.
  }
}
