// The fake's own rules, as PROVIDER-NOTES §1a records the real server's: checked so the worker tests
// rest on a faithful double.
import { JobType } from '@livekit/protocol';
import { AccessToken } from 'livekit-server-sdk';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeServerMessage, encodeWorkerMessage } from '../worker/protocol.js';
import { createWorkerToken } from '../worker/token.js';
import { FakeLiveKitServer } from './fake-livekit-server.js';

let server: FakeLiveKitServer;
afterEach(async () => {
  await server.close();
});

function open(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => resolve({ ws }));
    ws.on('unexpected-response', (_req, res) => resolve({ ws, status: res.statusCode }));
    ws.on('error', () => {});
  });
}

const closed = (ws: WebSocket) => new Promise<void>((resolve) => ws.once('close', () => resolve()));

describe('FakeLiveKitServer', () => {
  it('refuses tokens without the agent grant and accepts ?access_token=', async () => {
    server = await FakeLiveKitServer.start();
    const noGrant = new AccessToken(server.apiKey, server.apiSecret, { identity: 'x' });
    noGrant.addGrant({ roomJoin: true, room: 'r' });
    const refused = await open(`${server.url}/agent`, { authorization: `Bearer ${await noGrant.toJwt()}` });
    expect(refused.status).toBe(401);
    expect(server.refused.at(-1)?.reason).toBe('no agent grant');
    expect((await open(`${server.url}/agent`)).status).toBe(401);
    const token = await createWorkerToken(server.apiKey, server.apiSecret);
    const { ws } = await open(`${server.url}/agent?access_token=${token}`);
    await server.waitFor(() => server.connections.length === 1);
    expect(server.connections[0]!.authorization).toBe('query');
    ws.close();
  });

  it('answers only pings before registration and drops anything else, or an undecodable frame', async () => {
    server = await FakeLiveKitServer.start();
    const token = await createWorkerToken(server.apiKey, server.apiSecret);
    const { ws } = await open(`${server.url}/agent`, { authorization: `Bearer ${token}` });
    const replies: string[] = [];
    ws.on('message', (data) => {
      const decoded = decodeServerMessage(new Uint8Array(data as Buffer));
      if (decoded.ok) replies.push(String(decoded.message.case));
    });
    ws.send(encodeWorkerMessage({ case: 'ping', value: { timestamp: 1n } }));
    for (let i = 0; i < 100 && !replies.includes('pong'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(replies).toEqual(['pong']);
    ws.send(encodeWorkerMessage({ case: 'updateWorker', value: { load: 0.1 } }));
    await closed(ws);
    expect(server.connections[0]!.workerId).toBeUndefined();

    const second = (await open(`${server.url}/agent`, { authorization: `Bearer ${token}` })).ws;
    second.send(encodeWorkerMessage({ case: 'register', value: { type: JobType.JT_ROOM, agentName: 'a' } }));
    await server.waitForRegistrations(1);
    second.send(new Uint8Array([0xff, 0xff, 0xff]));
    await closed(second);
  });
});
