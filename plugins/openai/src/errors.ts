import { APIConnectionError, APIError, APIStatusError, APITimeoutError } from '@voxwire/agents';
import { isAbortError, isRetryableStatus } from '@voxwire/agents/provider-utils';
import OpenAI from 'openai';
import { API_KEY_ENV } from './client.js';

/** Error codes an OpenAI-style error event carries when trying again can help. */
const RETRYABLE_CODES = new Set(['server_error', 'rate_limit_exceeded', 'internal_error', 'overloaded']);

/**
 * Turns whatever the SDK (or fetch underneath it) threw into the core's typed errors, so the session and
 * FallbackAdapter can decide on retries without knowing this provider.
 */
export function toAPIError(error: unknown, what: string): APIError {
  if (error instanceof APIError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new APITimeoutError(`${what}: request timed out`, { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new APIConnectionError(`${what}: connection failed (${describeCause(error)})`, { cause: error });
  }
  if (error instanceof OpenAI.APIError) {
    if (typeof error.status === 'number') {
      const hint = error.status === 401 ? ` (check the API key: ${API_KEY_ENV} or the apiKey option)` : '';
      return new APIStatusError(`${what}: HTTP ${error.status}: ${errorText(error)}${hint}`, {
        statusCode: error.status,
        requestId: error.requestID ?? undefined,
        body: error.error,
        retryable: isRetryableStatus(error.status),
        cause: error,
      });
    }
    // An error event inside a 200 stream: the server failed after it started answering.
    return streamErrorEvent(what, error.error ?? { message: error.message });
  }
  if (error instanceof SyntaxError) {
    return new APIError(`${what}: malformed stream frame, not valid JSON (${error.message})`, {
      // A server that sends broken frames usually does so deterministically; retrying only adds latency.
      retryable: false,
      cause: error,
    });
  }
  if (isAbortError(error)) {
    return new APIConnectionError(`${what}: request aborted`, { cause: error });
  }
  // fetch reports a dropped connection mid-body as a TypeError ("terminated") with the socket error as cause.
  return new APIConnectionError(`${what}: connection failed (${describeCause(error)})`, { cause: error });
}

/** An `error` object delivered inside the stream (Chat Completions frame or Responses event). */
export function streamErrorEvent(what: string, body: unknown): APIError {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const message = typeof record.message === 'string' ? record.message : 'unknown error';
  const code =
    typeof record.code === 'string' ? record.code : typeof record.type === 'string' ? record.type : '';
  const numeric = typeof record.code === 'number' ? record.code : undefined;
  const retryable = numeric !== undefined ? isRetryableStatus(numeric) : RETRYABLE_CODES.has(code);
  return new APIError(
    `${what}: the server reported an error mid-stream: ${message}${code ? ` (${code})` : ''}`,
    {
      retryable,
      body,
    },
  );
}

function errorText(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string') return body.message;
  return error.message.replace(/^\d{3}\s*/, '') || 'no message';
}

function describeCause(error: unknown): string {
  let current: unknown = error;
  const parts: string[] = [];
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${current.message} [${code}]` : current.message);
    current = current.cause;
  }
  return parts.filter(Boolean).join(': ') || String(error);
}
