import { AccessToken } from 'livekit-server-sdk';

/**
 * The bearer token a worker presents on `/agent`: signed with the API secret (HS256), carrying the
 * agent grant, short-lived because a new one is made for every connection attempt.
 */
export async function createWorkerToken(
  apiKey: string,
  apiSecret: string,
  ttlMs = 10 * 60_000,
): Promise<string> {
  const token = new AccessToken(apiKey, apiSecret, { ttl: Math.max(1, Math.ceil(ttlMs / 1000)) });
  token.addGrant({ agent: true });
  return token.toJwt();
}

/** `wss://host/agent` from `https://host`, `wss://host/` or `ws://127.0.0.1:7880/base`. */
export function agentEndpoint(url: string): URL {
  const endpoint = new URL(url);
  if (endpoint.protocol === 'http:') endpoint.protocol = 'ws:';
  else if (endpoint.protocol === 'https:') endpoint.protocol = 'wss:';
  else if (endpoint.protocol !== 'ws:' && endpoint.protocol !== 'wss:') {
    throw new TypeError(`LiveKit URL must be ws(s):// or http(s)://, got ${endpoint.protocol}//`);
  }
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/u, '')}/agent`;
  endpoint.search = '';
  endpoint.hash = '';
  return endpoint;
}
