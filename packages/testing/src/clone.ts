/**
 * A deep copy of plain data, as `structuredClone` makes it, without its serialization round trip: the
 * log recorder copies every metrics event and chat item, and for plain objects, arrays and primitives a
 * walk is several times cheaper. Anything else (a Date, a Map, a typed array, a class instance, a cycle)
 * is handed to `structuredClone` whole, so the result is always the one it would give.
 */
export function clonePlain<T>(value: T): T {
  const copy = copyPlain(value, new Set());
  return (copy === NOT_PLAIN ? structuredClone(value) : copy) as T;
}

const NOT_PLAIN = Symbol('not plain');

/** `seen`: an object met twice (shared, or a cycle) keeps its identity only through structuredClone. */
function copyPlain(value: unknown, seen: Set<object>): unknown {
  if (value === null || typeof value !== 'object') {
    // Functions and symbols are refused by structuredClone: let it throw as it would.
    return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value;
  }
  if (seen.has(value)) return NOT_PLAIN;
  seen.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      // A hole stays a hole, as structuredClone leaves it.
      if (!(i in value)) continue;
      const item = copyPlain(value[i], seen);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    // Extra own properties on an array are copied by structuredClone; leave such arrays to it.
    if (Object.keys(value).length !== countPresent(value)) return NOT_PLAIN;
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // Assigning this key would set the copy's prototype instead of a property.
    if (key === '__proto__') return NOT_PLAIN;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    // A getter is read by structuredClone; keep the one behaviour by leaving it the whole object.
    if (!descriptor || !('value' in descriptor)) return NOT_PLAIN;
    const item = copyPlain(descriptor.value, seen);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

function countPresent(array: readonly unknown[]): number {
  let n = 0;
  for (let i = 0; i < array.length; i++) if (i in array) n++;
  return n;
}
