import type { AddressInfo } from 'node:net';
import { APIStatusError } from '@voxwire/agents';
import {
  openWebSocket,
  type ProviderProblem,
  ReconnectingSocket,
  type WebSocketData,
  type WebSocketMessage,
} from '@voxwire/agents/provider-utils';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * The core's reconnecting socket over a real `ws` client and server on loopback: the playground is the
 * workspace package that has `ws`, and the core must not depend on it. Real sockets need the real
 * clock, so delays are kept to a few ms.
 */

let server: WebSocketServer | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => {
    if (!server) return resolve();
    for (const client of server.clients) client.terminate();
    server.close(() => resolve());
  });
  server = undefined;
});

async function listen(options: ConstructorParameters<typeof WebSocketServer>[0] = {}): Promise<string> {
  const started = new WebSocketServer({ host: '127.0.0.1', port: 0, ...options });
  server = started;
  await new Promise<void>((resolve) => started.once('listening', () => resolve()));
  return `ws://127.0.0.1:${(started.address() as AddressInfo).port}`;
}

function text(message: WebSocketMessage): string {
  return typeof message === 'string' ? message : new TextDecoder().decode(message);
}

describe('ReconnectingSocket over a loopback ws server', () => {
  it('reconnects after the server drops the connection and replays what was not acknowledged', async () => {
    const url = await listen();
    const received: string[][] = [];
    server!.on('connection', (peer) => {
      const mine: string[] = [];
      received.push(mine);
      const first = received.length === 1;
      peer.on('message', (data) => {
        const message = data.toString();
        mine.push(message);
        if (message === 'end') peer.close(1000, 'bye');
        // The first connection dies abruptly (no close frame, no ack) when `two` arrives.
        else if (first && message === 'two') peer.terminate();
        else peer.send(`ack ${message}`);
      });
    });
    const problems: ProviderProblem[] = [];
    const socket = new ReconnectingSocket<WebSocketData, WebSocketMessage>({
      label: 'loopback',
      connect: (_attempt, signal) => openWebSocket(new WebSocket(url), { signal, label: 'loopback' }),
      policy: { initialDelayMs: 5, jitter: 0 },
      replay: { mode: 'acknowledged', unit: 'items' },
      onProblem: (p) => problems.push(p),
    });
    const positions = new Map<string, number>([['one', socket.send('one')]]);
    const acks: string[] = [];
    for await (const message of socket) {
      const ack = text(message);
      acks.push(ack);
      socket.acknowledge(positions.get(ack.slice(4)) ?? 0);
      if (ack === 'ack one') positions.set('two', socket.send('two'));
      if (ack === 'ack two') socket.end('end');
    }
    expect(received).toEqual([
      ['one', 'two'],
      ['two', 'end'],
    ]);
    expect(acks).toEqual(['ack one', 'ack two']);
    expect(problems).toMatchObject([{ type: 'reconnecting', attempt: 1, delayMs: 5 }]);
    expect(socket.state).toBe('closed');
  });

  it('fails once, typed, when the server refuses the handshake with 401', async () => {
    const url = await listen({ verifyClient: (_info, done) => done(false, 401, 'Unauthorized') });
    let attempts = 0;
    const socket = new ReconnectingSocket<WebSocketData, WebSocketMessage>({
      connect: (_attempt, signal) => {
        attempts++;
        return openWebSocket(new WebSocket(url), { signal });
      },
      policy: { initialDelayMs: 5 },
    });
    let error: unknown;
    try {
      for await (const _ of socket) {
        // No message can come.
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect(attempts).toBe(1);
  });
});
