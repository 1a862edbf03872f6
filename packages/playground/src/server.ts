import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type AgentDefinition,
  type Clock,
  defaultLogger,
  type Logger,
  prewarmAgent,
  realClock,
} from '@voxwire/agents';
import { WebSocketServer } from 'ws';
import {
  type AccessDecision,
  type AccessPolicy,
  checkAccess,
  checkOrigin,
  isLoopbackAddress,
  newToken,
  queryToken,
  sameSecret,
  sessionCookie,
} from './access.js';
import { PlaygroundConnection } from './connection.js';

export interface PlaygroundOptions {
  /** The agent every tab talks to (an agent file's default export). */
  agent: AgentDefinition;
  /**
   * Address to listen on. Default `127.0.0.1`: only this machine can reach the page and the agent. On
   * another address (`0.0.0.0`) the `Host` header may also be an IP literal or one of `allowedHosts`,
   * and the secret is what keeps other machines out.
   */
  host?: string;
  /**
   * The secret every socket and the page need (`?token=` in `url`, then a cookie). Default: 32 random
   * bytes, new for each server. Pass one to keep it across restarts (at least 16 characters).
   */
  token?: string;
  /** Host names accepted in `Host` besides loopback and IP literals, when not bound to loopback. */
  allowedHosts?: readonly string[];
  /** Port; `0` picks a free one. Default 0. */
  port?: number;
  /** Shown at the top of the page, e.g. the agent file's name. */
  title?: string;
  /** The result of `agent.prewarm()` when already run; otherwise the playground runs it before listening. */
  prewarmed?: unknown;
  logger?: Logger;
  clock?: Clock;
  /** Tabs served at once; more are told to close one. Default 8. */
  maxSessions?: number;
  /** Microphone frames queued for a slow session before the oldest are dropped. Default 150 (about 3 s). */
  inputQueueFrames?: number;
  /** Unsent bytes a socket may hold before agent audio is dropped. Default 1 MiB (about 10 s at 48 kHz). */
  maxSocketBufferBytes?: number;
  /**
   * How long a new socket may stay silent before its `hello`; then it is closed and its tab slot freed.
   * Timed on `clock`. Default 5000 ms.
   */
  helloTimeoutMs?: number;
  /** Typed messages per tab whose replies may be pending at once; more are refused with a notice. Default 3. */
  maxQueuedTexts?: number;
}

export interface Playground {
  /** `http://host:port/?token=…`, to open in a browser: it carries the secret, so show it only to the user. */
  readonly url: string;
  /** `http://host:port`, without the secret. */
  readonly origin: string;
  /** The secret the page and every socket need. */
  readonly token: string;
  /** False when bound to an address other machines can reach. */
  readonly loopbackOnly: boolean;
  readonly port: number;
  readonly host: string;
  /** Tabs with a live session. */
  readonly activeSessions: number;
  /**
   * Ends every session and stops listening. `reconnect: true` tells the pages to reconnect at once (a new
   * server is about to take over, e.g. after the agent file changed).
   */
  close(options?: { reason?: string; reconnect?: boolean }): Promise<void>;
}

const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));

const STATIC_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/capture-worklet.js': { file: 'capture-worklet.js', type: 'text/javascript; charset=utf-8' },
  '/player-worklet.js': { file: 'player-worklet.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

/**
 * Serves the playground: the page on `/`, its socket on `/ws`. Each socket (one browser tab) runs one job
 * of the agent definition, so several tabs hold separate conversations at once.
 */
export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const logger = options.logger ?? defaultLogger();
  const clock = options.clock ?? realClock();
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  if (token.length < 16 || !/^[A-Za-z0-9_-]+$/u.test(token)) {
    throw new RangeError('token must be at least 16 characters of A-Z, a-z, 0-9, _ and -');
  }
  const loopbackOnly = isLoopbackAddress(host);
  const maxSessions = options.maxSessions ?? 8;
  const prewarmed = 'prewarmed' in options ? options.prewarmed : await prewarmAgent(options.agent);
  const connections = new Set<PlaygroundConnection>();
  const sockets = new Set<Socket>();
  let closing: Promise<void> | undefined;
  // The port is known once listening; the handlers only run after that.
  let policy: AccessPolicy | undefined;

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const server = createServer((request, response) => {
    void serveStatic(request, response, policy!).catch((error: unknown) => {
      logger.warn({ error: String(error) }, 'playground: could not serve a file');
      if (!response.headersSent) response.writeHead(500).end('internal error');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (request, socket, head) => {
    const decision: AccessDecision = closing
      ? { ok: false, status: 403, reason: 'the playground is stopping' }
      : pathOf(request) !== '/ws'
        ? { ok: false, status: 403, reason: 'no such socket' }
        : checkAccess(request, policy!);
    if (!decision.ok) {
      const status = decision.status === 401 ? '401 Unauthorized' : '403 Forbidden';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      if (connections.size >= maxSessions) {
        ws.send(
          JSON.stringify({
            type: 'notice',
            level: 'error',
            message: `This playground serves ${maxSessions} tabs at once: close one and reload this page.`,
          }),
        );
        ws.close(4001, 'too many sessions');
        return;
      }
      const connection = new PlaygroundConnection(ws, {
        definition: options.agent,
        prewarmed,
        clock,
        logger,
        title: options.title ?? 'Voxwire playground',
        inputQueueFrames: options.inputQueueFrames ?? 150,
        maxSocketBufferBytes: options.maxSocketBufferBytes ?? 1 << 20,
        helloTimeoutMs: options.helloTimeoutMs ?? 5000,
        maxQueuedTexts: options.maxQueuedTexts ?? 3,
      });
      connections.add(connection);
      void connection.ended.then(() => connections.delete(connection));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  policy = {
    token,
    port: address.port,
    loopbackOnly,
    allowedHosts: new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase())),
  };
  if (!loopbackOnly) {
    logger.warn(
      { host },
      'playground: listening on a non-loopback address: other machines can reach it; only the secret in its URL keeps them out',
    );
  }

  return {
    url: `http://${urlHost}:${address.port}/?token=${token}`,
    origin: `http://${urlHost}:${address.port}`,
    token,
    loopbackOnly,
    port: address.port,
    host: address.address,
    get activeSessions() {
      return connections.size;
    },
    close(closeOptions = {}) {
      closing ??= shutdown(server, wss, connections, sockets, closeOptions);
      return closing;
    },
  };
}

async function shutdown(
  server: Server,
  wss: WebSocketServer,
  connections: Set<PlaygroundConnection>,
  sockets: Set<Socket>,
  options: { reason?: string; reconnect?: boolean },
): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all(
    [...connections].map((c) =>
      c.end(options.reason ?? 'the playground stopped', options.reconnect ?? false),
    ),
  );
  wss.close();
  for (const socket of sockets) socket.destroy();
  await stopped;
}

const PAGES = new Set(['/', '/index.html']);

async function serveStatic(
  request: IncomingMessage,
  response: ServerResponse,
  policy: AccessPolicy,
): Promise<void> {
  const path = pathOf(request);
  const entry = STATIC_FILES[path];
  // The page needs the secret; the scripts and styles do nothing by themselves and are public anyway.
  const decision = PAGES.has(path) ? checkAccess(request, policy) : checkOrigin(request, policy);
  if (!decision.ok) {
    response
      .writeHead(decision.status, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'no-store',
      })
      .end(`Voxwire playground: ${decision.reason}\n`);
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  if (!entry) {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  const body = await readFile(PUBLIC_DIR + entry.file);
  // Served with the right secret in its URL: the cookie lets the page's socket, and reloads once the
  // page has dropped the secret from the address bar, in.
  const setCookie = sameSecret(queryToken(request), policy.token)
    ? { 'Set-Cookie': sessionCookie(policy) }
    : {};
  response.writeHead(200, {
    ...setCookie,
    'Content-Type': entry.type,
    'Content-Length': body.byteLength,
    // The agent or the page may change between runs of `voxwire dev`: never serve a stale copy.
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    // The secret is in the page's URL: never send it to another site as a Referer.
    'Referrer-Policy': 'no-referrer',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function pathOf(request: IncomingMessage): string {
  return (request.url ?? '/').split('?')[0] ?? '/';
}
