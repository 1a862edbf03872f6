import { type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent, AgentSession, defineAgent, silentLogger } from '@voxwire/agents';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { checkAccess, isLoopbackAddress } from './access.js';
import { type Playground, startPlayground } from './server.js';

const agent = defineAgent({
  async entry(ctx) {
    const session = new AgentSession({});
    await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
  },
});

/** A raw HTTP GET with whatever headers a hostile page or tool could send (fetch() cannot forge Host). */
function get(
  pg: Playground,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: pg.port, path, headers: { Host: `127.0.0.1:${pg.port}`, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

/** Opens the socket; resolves with `open` or the refused status code. */
function upgrade(pg: Playground, query: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${pg.port}/ws${query}`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(String(res.statusCode));
      ws.terminate();
    });
    ws.once('error', () => resolve('error'));
  });
}

let playground: Playground | undefined;
afterEach(async () => {
  await playground?.close();
  playground = undefined;
});

describe('playground access (DNS rebinding, other sites, the secret)', () => {
  it('prints a URL with a fresh secret for each server', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, prewarmed: undefined });
    const other = await startPlayground({ agent, logger: silentLogger, prewarmed: undefined });
    try {
      expect(playground.url).toBe(`${playground.origin}/?token=${playground.token}`);
      expect(playground.token).toMatch(/^[A-Za-z0-9_-]{43}$/u);
      expect(other.token).not.toBe(playground.token);
      expect(playground.loopbackOnly).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('serves the page only with the secret, and sets the cookie the socket then uses', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, prewarmed: undefined });
    const pg = playground;
    expect((await get(pg, '/')).status).toBe(401);
    expect((await get(pg, '/')).body).toContain('?token=');
    expect((await get(pg, '/?token=wrong')).status).toBe(401);
    expect((await get(pg, `/?token=${pg.token.slice(0, -1)}x`)).status).toBe(401);
    const page = await get(pg, `/?token=${pg.token}`);
    expect(page.status).toBe(200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toContain(`voxwire_playground_${pg.port}=${pg.token}`);
    expect(cookie).toMatch(/HttpOnly/u);
    expect(cookie).toMatch(/SameSite=Strict/u);
    // A reload carries the cookie instead of the query.
    const jar = cookie.split(';')[0]!;
    expect((await get(pg, '/', { Cookie: `other=1; ${jar}` })).status).toBe(200);
    expect((await get(pg, '/', { Cookie: `voxwire_playground_${pg.port}=nope` })).status).toBe(401);
    expect(await upgrade(pg, '', { Cookie: jar })).toBe('open');
  });

  it('refuses a socket without the secret, or with a wrong one', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, prewarmed: undefined });
    expect(await upgrade(playground, '')).toBe('401');
    expect(await upgrade(playground, '?token=')).toBe('401');
    expect(await upgrade(playground, '?token=guess')).toBe('401');
    expect(await upgrade(playground, `?token=${playground.token}`)).toBe('open');
    expect(await upgrade(playground, `?token=${playground.token}`, { Origin: playground.origin })).toBe(
      'open',
    );
    expect(playground.activeSessions).toBeLessThanOrEqual(2);
  });

  it('refuses forged Host headers (DNS rebinding), even with the secret', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, prewarmed: undefined });
    const pg = playground;
    const port = pg.port;
    const token = `?token=${pg.token}`;
    for (const host of [
      `attacker.example:${port}`,
      `127.0.0.1.attacker.example:${port}`,
      `localhost.attacker.example:${port}`,
      `192.168.1.10:${port}`,
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `evil@127.0.0.1:${port}`,
      `127.0.0.1:${port}/x`,
    ]) {
      // The rebinding page sends a matching Origin: that must not help it.
      expect(await upgrade(pg, token, { Host: host, Origin: `http://${host}` }), host).toBe('403');
      expect((await get(pg, `/${token}`, { Host: host })).status, host).toBe(403);
      expect((await get(pg, '/app.js', { Host: host })).status, host).toBe(403);
    }
    for (const host of [`127.0.0.1:${port}`, `127.9.8.7:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect(await upgrade(pg, token, { Host: host, Origin: `http://${host}` }), host).toBe('open');
      expect((await get(pg, `/${token}`, { Host: host })).status, host).toBe(200);
    }
  });

  it('refuses other origins, even with the secret and a loopback Host', async () => {
    playground = await startPlayground({ agent, logger: silentLogger, prewarmed: undefined });
    const pg = playground;
    const token = `?token=${pg.token}`;
    for (const origin of [
      'https://evil.example',
      `http://attacker.example:${pg.port}`,
      'null',
      `https://127.0.0.1:${pg.port}`,
      `http://127.0.0.1:${pg.port + 1}`,
      'file://',
    ]) {
      expect(await upgrade(pg, token, { Origin: origin }), origin).toBe('403');
      expect((await get(pg, `/${token}`, { Origin: origin })).status, origin).toBe(403);
    }
  });

  it('on a non-loopback address: IP literals and allowed names pass Host, rebinding names and no secret do not', () => {
    // Checked on the policy itself: tests never listen beyond loopback.
    const policy = {
      token: 'x'.repeat(43),
      port: 7866,
      loopbackOnly: false,
      allowedHosts: new Set(['mybox.local']),
    };
    const request = (host: string, extra: Record<string, string> = {}, url = `/?token=${policy.token}`) =>
      ({ url, headers: { host, ...extra } }) as unknown as IncomingMessage;
    for (const host of ['192.168.1.10:7866', 'mybox.local:7866', '127.0.0.1:7866', '[fe80::1]:7866']) {
      expect(checkAccess(request(host, { origin: `http://${host}` }), policy), host).toEqual({ ok: true });
    }
    for (const host of ['attacker.example:7866', '192.168.1.10:80', 'mybox.local.attacker.example:7866']) {
      expect(checkAccess(request(host, { origin: `http://${host}` }), policy).ok, host).toBe(false);
    }
    expect(checkAccess(request('192.168.1.10:7866', {}, '/'), policy)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(checkAccess(request('192.168.1.10:7866', {}, '/?token=x'), policy)).toMatchObject({
      ok: false,
      status: 401,
    });
    // Loopback-only refuses the same LAN address.
    expect(checkAccess(request('192.168.1.10:7866'), { ...policy, loopbackOnly: true }).ok).toBe(false);
    expect(isLoopbackAddress('0.0.0.0')).toBe(false);
    expect(isLoopbackAddress('127.0.0.2')).toBe(true);
    expect(isLoopbackAddress('[::1]')).toBe(true);
  });

  it('rejects a weak secret', async () => {
    await expect(startPlayground({ agent, logger: silentLogger, token: 'short' })).rejects.toThrow(
      RangeError,
    );
  });
});
