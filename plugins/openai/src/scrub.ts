import { isSecretKey, REDACTED, redactLogText } from '@voxwire/agents/provider-utils';

/**
 * Removes this plugin's own credentials from whatever it throws or reports. Servers and proxies echo
 * keys back ("Incorrect API key provided: sk-…", a debug dump of the request headers), and the error
 * then travels to `error` events, logs, the terminal and the playground page; the generic redaction of
 * the core's logger cannot know a key that does not look like one, this plugin can.
 */
export class SecretScrubber {
  private readonly secrets: string[];

  constructor(secrets: ReadonlyArray<string | null | undefined>) {
    // Very short values would blank out ordinary words; such a "key" protects nothing anyway.
    this.secrets = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8))]
      // Longest first, so a key that contains another is replaced whole.
      .sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return redactLogText(out);
  }

  /** A scrubbed copy of a JSON-like value (an error body): secret-named fields become `[Redacted]`. */
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

  /** Response headers with credentials taken out: a `Headers` stays a `Headers` (it is read for retry-after). */
  headers(value: unknown): unknown {
    if (typeof Headers === 'undefined' || !(value instanceof Headers)) return this.value(value);
    let changed = false;
    const out = new Headers();
    value.forEach((item, name) => {
      const clean = isSecretKey(name) ? REDACTED : this.text(item);
      changed ||= clean !== item;
      out.append(name, clean);
    });
    return changed ? out : value;
  }

  /**
   * Scrubs an error in place, with its causes: the same object may already be held by a retry's
   * `onProblem`, a metrics report or the caller, and every holder must see the clean version.
   */
  error<E>(error: E): E {
    let current: unknown = error;
    const seen = new Set<unknown>();
    for (let depth = 0; depth < 5 && current instanceof Error && !seen.has(current); depth++) {
      seen.add(current);
      rewrite(current, 'message', (v) => (typeof v === 'string' ? this.text(v) : v));
      rewrite(current, 'stack', (v) => (typeof v === 'string' ? this.text(v) : v));
      // `body` on the core's errors, `error` (the parsed body) on the SDK's.
      rewrite(current, 'body', (v) => this.value(v));
      rewrite(current, 'error', (v) => this.value(v));
      // The response headers the SDK keeps (a proxy may echo the request's); retry-after must survive.
      rewrite(current, 'headers', (v) => this.headers(v));
      current = current.cause;
    }
    return error;
  }
}

function rewrite(target: object, key: string, change: (value: unknown) => unknown): void {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined) return;
  const before = (target as Record<string, unknown>)[key];
  if (before === undefined) return;
  const after = change(before);
  if (after === before) return;
  try {
    if ('value' in descriptor && descriptor.writable) (target as Record<string, unknown>)[key] = after;
    else {
      Object.defineProperty(target, key, {
        value: after,
        writable: true,
        configurable: true,
        enumerable: descriptor.enumerable ?? false,
      });
    }
  } catch {
    // A frozen error: leave it; the core logger's generic redaction still applies.
  }
}
