import { APIError, APIStatusError, VoxwireError } from '@voxwire/agents';
import { REDACTED, redactLogText } from '@voxwire/agents/provider-utils';

export const API_KEY_ENV = 'CARTESIA_API_KEY';

/** The plugin cannot work as configured (no API key, an option out of range): thrown by the constructor. */
export class CartesiaConfigError extends VoxwireError {
  override name = 'CartesiaConfigError';
}

/**
 * Takes the API key out of whatever the plugin throws or reports. A server or proxy may echo the key
 * (a dump of the request headers, "invalid key abc…"), and errors travel to `error` events, logs and
 * the playground page; the core's generic redaction cannot recognise a key that looks like any word.
 */
export class KeyScrubber {
  constructor(private readonly key: string) {}

  text(value: string): string {
    const out = this.key.length >= 4 ? value.split(this.key).join(REDACTED) : value;
    return redactLogText(out);
  }

  /** Scrubs in place, through the causes: the same error object may already be held elsewhere. */
  error<E>(error: E): E {
    let current: unknown = error;
    for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
      rewrite(current, 'message', (v) => (typeof v === 'string' ? this.text(v) : v));
      rewrite(current, 'stack', (v) => (typeof v === 'string' ? this.text(v) : v));
      rewrite(current, 'body', (v) => this.value(v));
      current = current.cause;
    }
    return error;
  }

  private value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null || depth > 6) return value;
    if (Array.isArray(value)) return value.map((item) => this.value(item, depth + 1));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(v, depth + 1)]));
  }
}

function rewrite(target: object, key: string, change: (value: unknown) => unknown): void {
  const before = (target as Record<string, unknown>)[key];
  if (before === undefined) return;
  const after = change(before);
  if (after === before) return;
  try {
    Object.defineProperty(target, key, { value: after, writable: true, configurable: true });
  } catch {
    // A frozen error stays as it is; the core logger's generic redaction still applies.
  }
}

/** Cartesia's in-band error message (`type: "error"`), in the older (`error`) or newer (`title`, `message`) shape. */
export interface ServerErrorFields {
  message: string;
  statusCode: number | undefined;
  code: string | undefined;
}

/**
 * The error a speech fails with when Cartesia reports one for its context. A status in the message
 * decides retrying as HTTP does (429 and 5xx); without one, the server's refusal is taken as final.
 */
export function serverError(label: string, fields: ServerErrorFields, body: unknown): APIError {
  const code = fields.code ? ` (${fields.code})` : '';
  const message = `${label}: Cartesia reported an error: ${fields.message}${code}`;
  if (fields.statusCode !== undefined && fields.statusCode >= 400) {
    return new APIStatusError(message, { statusCode: fields.statusCode, body });
  }
  return new APIError(message, { retryable: false, body });
}

/** A refused key or permission, whatever the transport: never retried, and says where the key comes from. */
export function authError(label: string, statusCode: number, cause?: unknown): APIStatusError {
  return new APIStatusError(
    `${label}: Cartesia refused the API key (HTTP ${statusCode}); check ${API_KEY_ENV} or the apiKey option`,
    { statusCode, retryable: false, cause },
  );
}
