import { APIConnectionError, APIError, APIStatusError } from '@voxwire/agents';
import {
  FrameChunker,
  parseRetryAfterMs,
  type ProviderCallOptions,
  retryBeforeFirstItem,
  type SynthesizedAudio,
  withIdleTimeout,
} from '@voxwire/agents/provider-utils';
import { authError, type KeyScrubber } from './errors.js';
import type { CartesiaTTSMetrics } from './metrics.js';
import type { ResolvedOptions } from './options.js';
import { PcmConverter } from './pcm.js';

export interface BytesDeps {
  label: string;
  options: ResolvedOptions;
  scrubber: KeyScrubber;
  request: Record<string, unknown>;
}

/**
 * One whole text over `POST /tts/bytes`: the body is raw PCM, streamed as Cartesia generates it. A
 * failure before the first byte (429, 5xx, a dropped connection, no answer within `requestTimeoutMs`)
 * is retried per the policy; after audio it surfaces, and so does a gap longer than `idleTimeoutMs`.
 */
export async function* synthesizeBytes(
  deps: BytesDeps,
  text: string,
  call: ProviderCallOptions,
): AsyncGenerator<SynthesizedAudio> {
  const { options, label, scrubber } = deps;
  const { clock } = options;
  const signal = call.signal;
  if (signal?.aborted) return;
  const startedAt = clock.now();
  const chunker = new FrameChunker({ sampleRate: options.sampleRate, durationMs: options.frameSizeMs });
  const converter = new PcmConverter(options.encoding);
  let attempts = 0;
  let firstByteAt: number | undefined;
  let audioMs = 0;
  let failure: APIError | undefined;
  let completed = false;
  const body = JSON.stringify({ ...deps.request, transcript: text });
  const chunks = retryBeforeFirstItem(
    (_attempt, attemptSignal) => {
      attempts++;
      return withIdleTimeout((s) => requestAudio(deps, body, s), {
        clock,
        idleTimeoutMs: options.idleTimeoutMs,
        firstItemTimeoutMs: options.requestTimeoutMs,
        signal: attemptSignal,
        label,
      });
    },
    {
      policy: options.retry,
      clock,
      ...(signal ? { signal } : {}),
      ...(call.onProblem ? { onProblem: (p) => call.onProblem?.(scrubProblem(scrubber, p)) } : {}),
    },
  );
  try {
    for await (const bytes of chunks) {
      firstByteAt ??= clock.now();
      for (const frame of chunker.pushBytes(converter.push(bytes))) {
        if (signal?.aborted) return;
        audioMs += frame.durationMs;
        yield { frame };
      }
    }
    if (signal?.aborted) return;
    for (const frame of chunker.flush()) {
      audioMs += frame.durationMs;
      yield { frame };
    }
    completed = true;
  } catch (error) {
    failure = scrubber.error(
      error instanceof APIError
        ? error
        : new APIConnectionError(`${label}: request failed`, { cause: error }),
    );
    throw failure;
  } finally {
    if (options.onMetrics) {
      const metrics: CartesiaTTSMetrics = {
        label,
        model: options.model,
        endpoint: 'bytes',
        contextId: undefined,
        ttfbMs: firstByteAt === undefined ? undefined : firstByteAt - startedAt,
        characters: text.length,
        audioDurationMs: audioMs,
        durationMs: clock.now() - startedAt,
        attempts: Math.max(1, attempts),
        cancelled: !completed && failure === undefined,
        error: failure,
      };
      try {
        options.onMetrics(metrics);
      } catch {
        // Metrics must never break a speech.
      }
    }
  }
}

async function* requestAudio(deps: BytesDeps, body: string, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const { label, options } = deps;
  let response: Response;
  try {
    response = await fetch(`${options.baseURL}/tts/bytes`, {
      method: 'POST',
      headers: {
        'X-API-Key': options.apiKey,
        'Cartesia-Version': options.apiVersion,
        'Content-Type': 'application/json',
      },
      body,
      signal,
    });
  } catch (error) {
    if (signal.aborted) return;
    throw new APIConnectionError(`${label}: could not reach Cartesia (${describe(error)})`, { cause: error });
  }
  if (!response.ok) throw await statusError(label, response);
  const type = response.headers.get('content-type') ?? '';
  if (/^(application\/json|text\/)/i.test(type)) {
    const text = await response.text().catch(() => '');
    throw new APIError(`${label}: expected raw audio, got ${type}: ${text.slice(0, 200)}`, {
      retryable: false,
    });
  }
  if (!response.body) return;
  const reader = response.body.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal.aborted) return;
        throw new APIConnectionError(`${label}: the response was cut off`, { cause: error });
      }
      if (chunk.done || signal.aborted) return;
      if (chunk.value.length > 0) yield chunk.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

async function statusError(label: string, response: Response): Promise<APIError> {
  const text = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) return authError(label, response.status);
  const error = new APIStatusError(`${label}: HTTP ${response.status}: ${text.slice(0, 300) || 'no body'}`, {
    statusCode: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    body: text,
  });
  const retryAfterMs = parseRetryAfterMs(response.headers);
  return retryAfterMs === undefined ? error : Object.assign(error, { retryAfterMs });
}

function scrubProblem<P extends { error?: Error }>(scrubber: KeyScrubber, problem: P): P {
  if (problem.error) scrubber.error(problem.error);
  return problem;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${current.message} [${code}]` : current.message);
    current = current.cause;
  }
  return parts.join(': ') || String(error);
}
