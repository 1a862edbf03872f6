import type { APIError } from '@voxwire/agents';

/**
 * Measured for every speech (`stream()`) and every `synthesize()` call, on the TTS's clock, and given
 * to `onMetrics` when it ends. The session measures its own time to first audio (`metrics_collected`
 * with `type: 'tts'`); these add what only the provider knows.
 */
export interface CartesiaTTSMetrics {
  label: string;
  model: string;
  /** `websocket` for `stream()`, `bytes` for `synthesize()`. */
  endpoint: 'websocket' | 'bytes';
  /** The Cartesia context id of the last attempt (WebSocket only). */
  contextId: string | undefined;
  /**
   * From the first text handed to Cartesia (`stream()`) or the call (`synthesize()`) to the first
   * audio byte, retries included; undefined when no audio came.
   */
  ttfbMs: number | undefined;
  /** Characters of text sent to be spoken. */
  characters: number;
  /** Duration of the audio received. */
  audioDurationMs: number;
  /** From the first text (or the call) to the end. */
  durationMs: number;
  /** Attempts made: 1 when nothing had to be retried. */
  attempts: number;
  /** True when the speech was cancelled (interrupted, aborted, closed) before its end. */
  cancelled: boolean;
  error: APIError | undefined;
}
