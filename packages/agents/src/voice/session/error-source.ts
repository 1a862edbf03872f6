import type { ErrorSource } from './session-events.js';

const sources = new WeakMap<object, ErrorSource>();

/** Remembers which provider an error came from, so the `error` event can say it. */
export function tagErrorSource<E>(error: E, source: ErrorSource): E {
  if (typeof error === 'object' && error !== null && !sources.has(error)) sources.set(error, source);
  return error;
}

export function errorSourceOf(error: unknown): ErrorSource {
  return (typeof error === 'object' && error !== null && sources.get(error)) || 'session';
}
