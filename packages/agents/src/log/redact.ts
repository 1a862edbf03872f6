/**
 * What the core's loggers do to every value before it is written: secrets become `[Redacted]`, audio and
 * other binary data become a one-line description. Logs end up in terminals, CI output and bug reports,
 * so a provider key or a user's voice must never get that far.
 */

export const REDACTED = '[Redacted]';

/** Compared after lower-casing and dropping `_`/`-`, and matched as suffixes: `openaiApiKey`, `x-api-key`. */
const SECRET_KEY_SUFFIXES = ['apikey', 'authorization', 'token', 'password', 'passwd', 'secret', 'cookie'];

const MAX_DEPTH = 8;
const MAX_ARRAY_ITEMS = 100;

/** True for object keys whose values are credentials (`apiKey`, `api_key`, `accessToken`, ...). */
export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_KEY_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

/** Characters of an opaque credential: base64, base64url, hex, JWT. */
const CREDENTIAL = '[A-Za-z0-9._~+/=-]+';
const SCHEME_CREDENTIAL = new RegExp(`\\b(bearer|token)(\\s+)(${CREDENTIAL})`, 'gi');
const QUERY_SECRET = /([?&](?:api[_-]?key|access[_-]?token|token|key|secret|password|auth)=)[^&#\s"']+/gi;
const OPENAI_STYLE_KEY = /\bsk-[A-Za-z0-9_-]{16,}/g;

/**
 * Redacts credentials inside free text: `Bearer <key>` and `Token <key>` (HTTP and Deepgram auth
 * headers), `?api_key=...`-style query parameters (WebSocket URLs carry keys there) and `sk-...` keys.
 */
export function redactLogText(text: string): string {
  return text
    .replace(SCHEME_CREDENTIAL, (match, scheme: string, space: string, credential: string) =>
      // Prose like "the token limit" must survive: a credential is long or has digits in it.
      credential.length >= 8 && (/\d/.test(credential) || credential.length >= 24)
        ? `${scheme}${space}${REDACTED}`
        : match,
    )
    .replace(QUERY_SECRET, `$1${REDACTED}`)
    .replace(OPENAI_STYLE_KEY, REDACTED);
}

/**
 * Returns a copy of `value` that is safe to log: secret-named keys redacted at any depth, credentials in
 * strings redacted, binary data described, errors flattened (message, stack and cause redacted too),
 * cycles and very deep or long structures cut short. The input is never modified.
 */
export function redactLogValue(value: unknown): unknown {
  return walk(value, 0, new Set());
}

function walk(value: unknown, depth: number, path: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
      return redactLogText(value);
    case 'bigint':
      return value.toString();
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
    case 'symbol':
      return value.toString();
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  const binary = describeBinary(value);
  if (binary !== undefined) return binary;
  if (path.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? '[Array]' : '[Object]';
  // Only the current path counts as a cycle, so an object shared by two fields is printed twice.
  path.add(value);
  try {
    return walkObject(value, depth, path);
  } catch {
    // A throwing getter or toJSON must not turn a log call into a crash.
    return '[Unserializable]';
  } finally {
    path.delete(value);
  }
}

function walkObject(value: object, depth: number, path: Set<object>): unknown {
  if (value instanceof Error) return walkError(value, depth, path);
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ARRAY_ITEMS).map((item) => walk(item, depth + 1, path));
    if (value.length > MAX_ARRAY_ITEMS) items.push(`[${value.length - MAX_ARRAY_ITEMS} more items]`);
    return items;
  }
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of value) {
      const name = String(key);
      out[name] = isSecretKey(name) && item != null ? REDACTED : walk(item, depth + 1, path);
    }
    return out;
  }
  if (value instanceof Set) return walk([...value], depth, path);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return walk(toJSON.call(value), depth, path);
  return walkFields(value, {}, depth, path);
}

function walkFields(
  value: object,
  out: Record<string, unknown>,
  depth: number,
  path: Set<object>,
): Record<string, unknown> {
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    out[key] = isSecretKey(key) && item != null ? REDACTED : walk(item, depth + 1, path);
  }
  return out;
}

function walkError(error: Error, depth: number, path: Set<object>): Record<string, unknown> {
  const fields = walkFields(error, {}, depth, path);
  // Same precedence as pino's error serializer: the class name wins over an own `type` field (as SDK
  // errors have); `name` is already `type`.
  delete fields.name;
  const out: Record<string, unknown> = { ...fields, type: error.name, message: redactLogText(error.message) };
  if (error.stack !== undefined) out.stack = redactLogText(error.stack);
  // Not enumerable, so not among the fields.
  if (error.cause !== undefined) out.cause = walk(error.cause, depth + 1, path);
  if (error instanceof AggregateError) out.errors = walk(error.errors, depth + 1, path);
  return out;
}

const SAMPLE_ARRAYS = new Set(['Int16Array', 'Float32Array', 'Float64Array', 'Int32Array']);

function describeBinary(value: object): string | undefined {
  // Buffer is a Uint8Array, described by its own class name below; no Node-only API needed here.
  if (ArrayBuffer.isView(value)) {
    const kind = value.constructor.name;
    if (value instanceof DataView) return `[DataView ${value.byteLength} bytes]`;
    const length = (value as unknown as { length: number }).length;
    return SAMPLE_ARRAYS.has(kind) ? `[${kind} ${length} samples]` : `[${kind} ${value.byteLength} bytes]`;
  }
  if (value instanceof ArrayBuffer) return `[ArrayBuffer ${value.byteLength} bytes]`;
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) {
    return `[SharedArrayBuffer ${value.byteLength} bytes]`;
  }
  return undefined;
}
