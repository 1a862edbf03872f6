import type { APIError } from '@voxwire/agents';
import type { LLMUsage } from '@voxwire/agents/provider-utils';

/** Measured for every `chat()` request, on the LLM's Clock. */
export interface LLMMetrics {
  /** Unique per request within the process, e.g. `llm_req_3`. */
  requestId: string;
  label: string;
  model: string;
  /** Clock time when `chat()` started iterating. */
  startedAtMs: number;
  /** From the start (including retries) to the first text delta or tool call; undefined if none came. */
  ttftMs: number | undefined;
  /** From the start to the end of the request (success, failure or cancellation). */
  durationMs: number;
  /**
   * Completion tokens per second of generation (first token to end), from the reported usage; undefined
   * when the server reported no usage.
   */
  tokensPerSecond: number | undefined;
  usage: LLMUsage | undefined;
  /** HTTP attempts made, 1 when no retry was needed. */
  attempts: number;
  /** True when the caller aborted or stopped iterating before the end. */
  cancelled: boolean;
  /** Set when the request failed. */
  error: APIError | undefined;
}

export type LLMMetricsListener = (metrics: LLMMetrics) => void;

export function tokensPerSecond(
  usage: LLMUsage | undefined,
  ttftMs: number | undefined,
  durationMs: number,
): number | undefined {
  if (!usage) return undefined;
  const generationMs = durationMs - (ttftMs ?? 0);
  // A one-chunk answer has no measurable generation span; the whole request is the best estimate.
  const spanMs = generationMs > 0 ? generationMs : durationMs;
  return spanMs > 0 ? (usage.completionTokens * 1000) / spanMs : undefined;
}
