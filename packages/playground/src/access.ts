import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * Who may use the playground. A web page the user visits can reach 127.0.0.1 too, and with DNS
 * rebinding (a name of the attacker's that resolves to 127.0.0.1) even as "the same origin", so three
 * checks guard every request:
 * - `Host` must name this machine on this server's port. Bound to loopback, only loopback names pass
 *   (127.0.0.0/8, `[::1]`, `localhost`); bound to another address on purpose, IP literals and the names
 *   in `allowedHosts` pass too: a rebinding page always sends its own DNS name, never an IP literal.
 * - `Origin`, when a browser sends one, must pass the same check: no other site may open the socket.
 * - A per-server secret, from the URL the CLI prints (`?token=`) or the cookie the page sets when it is
 *   served with it, on the socket and on the page itself. It is what stops everyone else on the network
 *   when the server is bound to a non-loopback address.
 */
export interface AccessPolicy {
  readonly token: string;
  readonly port: number;
  /** True when the server listens on loopback only: then only loopback names may appear in `Host`. */
  readonly loopbackOnly: boolean;
  /** Extra host names (lower case) accepted in `Host` when not loopback-only, e.g. `mybox.local`. */
  readonly allowedHosts: ReadonlySet<string>;
}

export type AccessDecision = { ok: true } | { ok: false; status: 401 | 403; reason: string };

/** 32 random bytes, URL-safe: unguessable, and fits in a query string and a cookie unescaped. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The cookie carries the port: browsers share cookies between the ports of one host. */
export function cookieName(port: number): string {
  return `voxwire_playground_${port}`;
}

export function sessionCookie(policy: AccessPolicy): string {
  return `${cookieName(policy.port)}=${policy.token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** True for a listen address that only this machine can reach. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.replace(/^\[|\]$/gu, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** Checks `Host` and `Origin` (not the secret): for the static files, which do nothing by themselves. */
export function checkOrigin(request: IncomingMessage, policy: AccessPolicy): AccessDecision {
  const host = request.headers.host;
  if (host === undefined || !acceptedHost(host, policy)) {
    return { ok: false, status: 403, reason: 'this Host is not served here' };
  }
  const origin = request.headers.origin;
  // Browsers send Origin on socket upgrades and on cross-site requests; tools and tests need not.
  if (origin !== undefined && !acceptedOrigin(origin, policy)) {
    return { ok: false, status: 403, reason: 'requests from other sites are refused' };
  }
  return { ok: true };
}

/** `checkOrigin`, then the secret: for the page and the socket. */
export function checkAccess(request: IncomingMessage, policy: AccessPolicy): AccessDecision {
  const origin = checkOrigin(request, policy);
  if (!origin.ok) return origin;
  if (!sameSecret(requestToken(request, policy), policy.token)) {
    return {
      ok: false,
      status: 401,
      reason: 'open the address voxwire dev printed: it ends with ?token=…',
    };
  }
  return { ok: true };
}

/** The secret from the query string when present, else from the cookie. */
export function requestToken(request: IncomingMessage, policy: AccessPolicy): string | undefined {
  const query = queryToken(request);
  if (query !== undefined) return query;
  return cookieValue(request.headers.cookie, cookieName(policy.port));
}

export function queryToken(request: IncomingMessage): string | undefined {
  const url = request.url ?? '/';
  const at = url.indexOf('?');
  if (at < 0) return undefined;
  return new URLSearchParams(url.slice(at + 1)).get('token') ?? undefined;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Constant time, so the secret cannot be found one character at a time from response timings. */
export function sameSecret(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

// Host names and IP literals only: no userinfo, path or spaces that `new URL` would quietly drop.
const HOST_SYNTAX = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/iu;

function acceptedHost(value: string, policy: AccessPolicy): boolean {
  if (!HOST_SYNTAX.test(value)) return false;
  let url: URL;
  try {
    // Normalises the forms browsers accept (`127.1`, `0x7f.0.0.1`, upper case) to one spelling.
    url = new URL(`http://${value}`);
  } catch {
    return false;
  }
  const port = url.port === '' ? 80 : Number(url.port);
  if (port !== policy.port) return false;
  const hostname = url.hostname.toLowerCase();
  if (isLoopbackAddress(hostname)) return true;
  if (policy.loopbackOnly) return false;
  return isIP(hostname.replace(/^\[|\]$/gu, '')) !== 0 || policy.allowedHosts.has(hostname);
}

function acceptedOrigin(value: string, policy: AccessPolicy): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Includes `null`, the origin of sandboxed frames and local files.
    return false;
  }
  // The playground serves plain http only: a page of its own has an http origin.
  if (url.protocol !== 'http:') return false;
  return acceptedHost(url.host, policy);
}
