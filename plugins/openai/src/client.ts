import { type Clock, VoxwireError, realClock } from '@voxwire/agents';
import type { RetryPolicy } from '@voxwire/agents/provider-utils';
import { isSecretKey, resolveRetryPolicy } from '@voxwire/agents/provider-utils';
import OpenAI, { type ClientOptions } from 'openai';
import { SecretScrubber } from './scrub.js';

export const API_KEY_ENV = 'OPENAI_API_KEY';
export const BASE_URL_ENV = 'OPENAI_BASE_URL';

const OPENAI_HOST = 'api.openai.com';
/** Sent to servers that do not check keys (Ollama, llama.cpp server, vLLM without --api-key). */
const PLACEHOLDER_KEY = 'voxwire-no-key';

/** The plugin was configured in a way that can never work (e.g. no API key for api.openai.com). */
export class OpenAIConfigError extends VoxwireError {
  override name = 'OpenAIConfigError';
  /** The environment variable that would have supplied the missing value, if any. */
  readonly envVar: string | undefined;
  constructor(message: string, envVar?: string) {
    super(message);
    this.envVar = envVar;
  }
}

/** Options shared by the LLM, STT and TTS of this plugin. */
export interface OpenAIClientOptions {
  /** Defaults to `OPENAI_API_KEY`. Optional when `baseURL` points at a local server that ignores keys. */
  apiKey?: string;
  /**
   * Defaults to `OPENAI_BASE_URL`, then `https://api.openai.com/v1`. Point it at any OpenAI-compatible
   * server, e.g. `http://127.0.0.1:11434/v1` for Ollama.
   */
  baseURL?: string;
  /** A ready client (e.g. Azure, or shared between plugins). `apiKey`, `baseURL` and `clientOptions` are then ignored. */
  client?: OpenAI;
  /** Extra options for the SDK client (headers, organization, fetch, logLevel...). Its retries stay off. */
  clientOptions?: Omit<ClientOptions, 'apiKey' | 'baseURL' | 'maxRetries'>;
  /**
   * Idle timeout in ms: the longest wait for the response to start or for the next chunk of a stream.
   * A stalled request then fails with `APITimeoutError`.
   */
  timeoutMs?: number;
  /**
   * Retries with exponential backoff (the core's policy and defaults), only before the first output.
   * A server's `retry-after` is honoured up to `maxRetryAfterMs` (30 s by default); a 429 asking for
   * longer fails at once instead. `{ maxRetries: 0 }` disables them.
   */
  retry?: Partial<RetryPolicy>;
  /** Time source for timeouts, backoff and metrics. Defaults to the core's real clock. */
  clock?: Clock;
}

export interface ResolvedClient {
  client: OpenAI;
  clock: Clock;
  retry: RetryPolicy;
  timeoutMs: number;
  /** Takes this client's key and secret headers out of errors before anyone sees them. */
  scrubber: SecretScrubber;
}

export function resolveClient(
  options: OpenAIClientOptions,
  defaults: { timeoutMs: number; retry?: Partial<RetryPolicy> },
): ResolvedClient {
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
  if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number of ms, got ${timeoutMs}`);
  const client = options.client ?? createClient(options);
  return {
    client,
    scrubber: new SecretScrubber([client.apiKey, options.apiKey, ...secretHeaders(options)]),
    clock: options.clock ?? realClock(),
    retry: resolveRetryPolicy(options.retry, defaults.retry),
    timeoutMs,
  };
}

function createClient(options: OpenAIClientOptions): OpenAI {
  const env = typeof process === 'undefined' ? {} : process.env;
  const baseURL = nonEmpty(options.baseURL) ?? nonEmpty(env[BASE_URL_ENV]);
  let apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[API_KEY_ENV]);
  if (apiKey === undefined) {
    if (baseURL === undefined || isOpenAIHost(baseURL)) {
      throw new OpenAIConfigError(
        `No OpenAI API key: set the ${API_KEY_ENV} environment variable or pass { apiKey }. ` +
          `For a local OpenAI-compatible server (Ollama, llama.cpp, vLLM) pass { baseURL } (or set ${BASE_URL_ENV}) instead.`,
        API_KEY_ENV,
      );
    }
    apiKey = PLACEHOLDER_KEY;
  }
  return new OpenAI({
    ...options.clientOptions,
    apiKey,
    ...(baseURL !== undefined ? { baseURL } : {}),
    // Our own retry policy runs on the injected Clock and knows whether output was already emitted.
    maxRetries: 0,
  });
}

/** Credentials passed as extra headers (a proxy's `Authorization`, an `api-key`): scrubbed like the key. */
function secretHeaders(options: OpenAIClientOptions): string[] {
  const headers = options.clientOptions?.defaultHeaders ?? {};
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretKey(name) || typeof value !== 'string') continue;
    values.push(value);
    // `Bearer <key>`: the key alone is what a server echoes.
    const credential = value.split(/\s+/u).at(-1);
    if (credential) values.push(credential);
  }
  return values;
}

function isOpenAIHost(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === OPENAI_HOST;
  } catch {
    throw new OpenAIConfigError(
      `Invalid baseURL "${baseURL}": expected an absolute URL such as http://127.0.0.1:11434/v1`,
    );
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
