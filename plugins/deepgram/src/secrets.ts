import { APIError, isSecretKey, REDACTED, redactLogText } from '@voxwire/agents/provider-utils';
import { API_KEY_ENV } from './options.js';

/** The key from the option, else the environment; a missing key is a clear, non-retryable error. */
export function resolveApiKey(apiKey: string | undefined, label: string): string {
  const key = apiKey ?? process.env[API_KEY_ENV];
  if (!key) {
    throw new APIError(`${label}: no API key: set ${API_KEY_ENV} or pass the apiKey option`, {
      retryable: false,
    });
  }
  return key;
}

/**
 * Takes the key out of whatever this plugin throws or reports. A server or proxy may echo it back (in
 * an error body, a debug dump of the request headers), and errors travel to `error` events, logs and
 * pages; the core's generic redaction cannot know a key that does not look like one, this plugin can.
 */
export class SecretScrubber {
  constructor(private readonly secret: string) {}

  text(value: string): string {
    // Very short "keys" would blank out ordinary words, and protect nothing anyway.
    const out = this.secret.length >= 8 ? value.split(this.secret).join(REDACTED) : value;
    return redactLogText(out);
  }

  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null || depth > 8) return value;
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSecretKey(key) && item != null ? REDACTED : this.value(item, depth + 1);
    }
    return out;
  }

  /** Scrubs an error and its causes in place: every holder of the object must see the clean one. */
  error<E>(error: E): E {
    let current: unknown = error;
    const seen = new Set<unknown>();
    for (let depth = 0; depth < 5 && current instanceof Error && !seen.has(current); depth++) {
      seen.add(current);
      for (const key of ['message', 'stack', 'body'] as const) {
        const before = (current as unknown as Record<string, unknown>)[key];
        if (before === undefined) continue;
        const after = this.value(before);
        if (after === before) continue;
        try {
          Object.defineProperty(current, key, { value: after, writable: true, configurable: true });
        } catch {
          // A frozen error: the core logger's generic redaction still applies.
        }
      }
      current = current.cause;
    }
    return error;
  }
}
