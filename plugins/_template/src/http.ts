import { APIConnectionError, APIError, APIStatusError, APITimeoutError } from '@voxwire/agents';

/** How the HTTP providers (TTS, LLM) reach the API. */
export interface EchoHttpOptions {
  /** Defaults to the imaginary `https://api.echo-speech.invalid` (`.invalid` never resolves). */
  baseUrl?: string;
  apiKey?: string;
  /** How long to wait for the response to start; the body may then take as long as it needs. */
  timeoutMs?: number;
}

export const DEFAULT_BASE_URL = 'https://api.echo-speech.invalid';

/**
 * POSTs JSON and returns the response once its status is OK. Every failure becomes a typed error:
 * no answer in time → `APITimeoutError`, unreachable → `APIConnectionError`, error status →
 * `APIStatusError` (retryable for 408/409/429/5xx). Returns `undefined` when `signal` aborted, so the
 * caller ends quietly.
 */
export async function postJson(
  label: string,
  path: string,
  body: unknown,
  options: EchoHttpOptions,
  signal: AbortSignal | undefined,
): Promise<Response | undefined> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs ?? 10_000);
  try {
    const response = await fetch(`${options.baseUrl ?? DEFAULT_BASE_URL}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
    });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new APIStatusError(`${label}: HTTP ${response.status} ${text.slice(0, 200)}`, {
        statusCode: response.status,
        requestId: response.headers.get('x-request-id') ?? undefined,
        body: { text, retryAfter: response.headers.get('retry-after') ?? undefined },
      });
    }
    return response;
  } catch (error) {
    if (signal?.aborted) return undefined;
    if (error instanceof APIError) throw error;
    if (timeout.signal.aborted) throw new APITimeoutError(`${label}: no response in time`, { cause: error });
    throw new APIConnectionError(`${label}: request failed`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a response body chunk by chunk. Ends quietly when `signal` aborted; a body cut off (a dropped
 * connection) throws `APIConnectionError`. Stopping the iteration early releases the connection.
 */
export async function* readBody(
  label: string,
  response: Response,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array> {
  const reader = response.body!.getReader();
  try {
    while (true) {
      const chunk = await reader.read().catch((error: unknown) => {
        if (signal?.aborted) return undefined;
        throw new APIConnectionError(`${label}: the response was cut off`, { cause: error });
      });
      if (!chunk || chunk.done || signal?.aborted) return;
      yield chunk.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
