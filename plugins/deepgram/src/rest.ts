import {
  APIConnectionError,
  APIError,
  APIStatusError,
  type AudioFrame,
  abortReason,
  type Clock,
  encodeWav,
  InvalidAudioError,
  isAbortError,
  type ProviderProblem,
  parseRetryAfterMs,
  type RetryPolicy,
  withRetry,
  withTimeout,
} from '@voxwire/agents/provider-utils';
import { emitMetrics, type DeepgramMetricsListener } from './metrics.js';
import { API_KEY_ENV } from './options.js';
import type { SecretScrubber } from './secrets.js';
import { type DeepgramSpeechAlternative, parseAlternatives } from './transcript.js';

/** An error body worth quoting is short. */
const MAX_ERROR_TEXT = 2_000;

export interface RestCall {
  label: string;
  baseUrl: string;
  apiKey: string;
  scrubber: SecretScrubber;
  clock: Clock;
  retry: Partial<RetryPolicy>;
  timeoutMs: number;
  query: URLSearchParams;
  language: string | undefined;
  signal: AbortSignal | undefined;
  onProblem: ((problem: ProviderProblem) => void) | undefined;
  onMetrics: DeepgramMetricsListener | undefined;
}

/**
 * `POST /v1/listen` (pre-recorded audio) with the utterance as a WAV file: each attempt within
 * `timeoutMs`, retryable failures (connection, 408/429/5xx) retried per policy, honouring
 * `retry-after`.
 */
export async function recognizeOverRest(
  frames: readonly AudioFrame[],
  sampleRate: number,
  call: RestCall,
): Promise<DeepgramSpeechAlternative[]> {
  const { signal, label, scrubber } = call;
  if (signal?.aborted) throw abortReason(signal);
  for (const frame of frames) {
    if (frame.sampleRate !== sampleRate || frame.channels !== 1) {
      throw new InvalidAudioError(
        `${label}: frames must be mono at ${sampleRate} Hz, got ${frame.channels} channel(s) at ${frame.sampleRate} Hz`,
      );
    }
  }
  const audioDurationMs = frames.reduce((total, frame) => total + frame.durationMs, 0);
  if (audioDurationMs === 0) return [{ text: '', words: [], startMs: 0, endMs: 0 }];
  const startedAt = call.clock.now();
  const url = new URL('/v1/listen', call.baseUrl);
  url.search = call.query.toString();
  const body = encodeWav(frames);
  let requestId: string | undefined;
  const onProblem = call.onProblem;
  try {
    const result = await withRetry(
      (_attempt, attemptSignal) =>
        withTimeout(
          async (requestSignal) => {
            const answer = await post(url, body, call.apiKey, requestSignal, label);
            requestId = answer.requestId;
            return answer.alternatives(call.language);
          },
          { clock: call.clock, timeoutMs: call.timeoutMs, signal: attemptSignal, label },
        ),
      {
        policy: call.retry,
        clock: call.clock,
        ...(signal ? { signal } : {}),
        ...(onProblem
          ? { onProblem: (problem: ProviderProblem) => onProblem(scrubProblem(problem, scrubber)) }
          : {}),
      },
    );
    emitMetrics(call.onMetrics, {
      type: 'recognize',
      label,
      requestId,
      audioDurationMs,
      durationMs: call.clock.now() - startedAt,
      error: undefined,
    });
    return result;
  } catch (error) {
    if (signal?.aborted && isAbortError(error)) throw error;
    const clean = scrubber.error(error instanceof Error ? error : new APIError(String(error)));
    emitMetrics(call.onMetrics, {
      type: 'recognize',
      label,
      requestId,
      audioDurationMs,
      durationMs: call.clock.now() - startedAt,
      error: clean,
    });
    throw clean;
  }
}

interface Answer {
  requestId: string | undefined;
  alternatives(language: string | undefined): DeepgramSpeechAlternative[];
}

async function post(
  url: URL,
  body: Uint8Array,
  apiKey: string,
  signal: AbortSignal,
  label: string,
): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Token ${apiKey}`, 'Content-Type': 'audio/wav' },
      body,
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new APIConnectionError(`${label}: the request failed: ${describe(error)}`, { cause: error });
  }
  const requestId = response.headers.get('dg-request-id') ?? undefined;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (signal.aborted) throw error;
    throw new APIConnectionError(`${label}: the answer was cut off: ${describe(error)}`, { cause: error });
  }
  if (!response.ok) throw statusError(label, response, text, requestId);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new APIError(`${label}: the answer is not JSON: ${text.slice(0, 120)}`, {
      retryable: false,
      body: text,
    });
  }
  const results = (parsed as { results?: { channels?: unknown } } | null)?.results;
  const channel = Array.isArray(results?.channels)
    ? (results.channels[0] as Record<string, unknown>)
    : undefined;
  const id =
    requestId ??
    ((parsed as { metadata?: { request_id?: unknown } }).metadata?.request_id as string | undefined);
  return {
    requestId: id,
    alternatives: (language) => {
      const detected = typeof channel?.detected_language === 'string' ? channel.detected_language : undefined;
      const alternatives = parseAlternatives(channel?.alternatives, 0, language ?? detected);
      if (alternatives === undefined) {
        throw new APIError(`${label}: the answer has no transcript: ${text.slice(0, 120)}`, {
          retryable: false,
          body: parsed,
        });
      }
      return alternatives.length > 0 ? alternatives : [{ text: '', words: [], startMs: 0, endMs: 0 }];
    },
  };
}

function statusError(
  label: string,
  response: Response,
  text: string,
  requestId: string | undefined,
): APIStatusError {
  let body: unknown = text.slice(0, MAX_ERROR_TEXT);
  try {
    body = JSON.parse(text);
  } catch {}
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const detail =
    typeof fields.err_msg === 'string' ? fields.err_msg : typeof body === 'string' ? body.slice(0, 200) : '';
  const hint =
    response.status === 401 || response.status === 403
      ? ` (check the API key: ${API_KEY_ENV} or the apiKey option)`
      : '';
  const error = new APIStatusError(`${label}: HTTP ${response.status}${detail ? `: ${detail}` : ''}${hint}`, {
    statusCode: response.status,
    requestId: requestId ?? (typeof fields.request_id === 'string' ? fields.request_id : undefined),
    body,
  });
  const retryAfterMs = parseRetryAfterMs(response.headers);
  return retryAfterMs === undefined ? error : Object.assign(error, { retryAfterMs });
}

function scrubProblem(problem: ProviderProblem, scrubber: SecretScrubber): ProviderProblem {
  if ('error' in problem && problem.error) scrubber.error(problem.error);
  return problem;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(': ') || String(error);
}
