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
import { PlaygroundConnection } from './connection.js';

export interface PlaygroundOptions {
  /** The agent every tab talks to (an agent file's default export). */
  agent: AgentDefinition;
  /** Address to listen on. Default `127.0.0.1`: only this machine can reach the page and the agent. */
  host?: string;
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
}

export interface Playground {
  /** `http://host:port/`, to open in a browser. */
  readonly url: string;
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
  const maxSessions = options.maxSessions ?? 8;
  const prewarmed = 'prewarmed' in options ? options.prewarmed : await prewarmAgent(options.agent);
  const connections = new Set<PlaygroundConnection>();
  const sockets = new Set<Socket>();
  let closing: Promise<void> | undefined;

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const server = createServer((request, response) => {
    void serveStatic(request, response).catch((error: unknown) => {
      logger.warn({ error: String(error) }, 'playground: could not serve a file');
      if (!response.headersSent) response.writeHead(500).end('internal error');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (request, socket, head) => {
    if (closing || pathOf(request) !== '/ws' || !sameOrigin(request)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
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
        helloTimeoutMs: 15_000,
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

  return {
    url: `http://${urlHost}:${address.port}/`,
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

async function serveStatic(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const entry = STATIC_FILES[pathOf(request)];
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  if (!entry) {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  const body = await readFile(PUBLIC_DIR + entry.file);
  response.writeHead(200, {
    'Content-Type': entry.type,
    'Content-Length': body.byteLength,
    // The agent or the page may change between runs of `voxwire dev`: never serve a stale copy.
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function pathOf(request: IncomingMessage): string {
  return (request.url ?? '/').split('?')[0] ?? '/';
}

/**
 * Browsers send an Origin on socket upgrades: only this page's own origin may open a session, so another
 * website cannot drive the local agent (and spend its API keys). Clients without one (tools, tests) pass.
 */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
