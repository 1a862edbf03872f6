import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, type APIError, APIStatusError } from '../errors.js';
import { settle } from '../test-support/scripted-source.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { ReconnectingSocket } from './reconnecting-socket.js';
import { openWebSocket, type WebSocketData, type WebSocketLike, type WebSocketMessage } from './websocket.js';

/** A WHATWG-style socket driven by the test; its `close()` completes on the next microtask. */
class FakeWebSocket extends EventTarget implements WebSocketLike {
  readyState = 0;
  binaryType = 'blob';
  readonly sent: WebSocketData[] = [];
  readonly closeCalls: Array<[number | undefined, string | undefined]> = [];

  send(data: WebSocketData): void {
    if (this.readyState !== 1) throw new Error('not open');
    this.sent.push(data);
  }

  close(code?: number, reason?: string): void {
    this.closeCalls.push([code, reason]);
    if (this.readyState >= 2) return;
    this.readyState = 2;
    queueMicrotask(() => this.closeFromServer(code ?? 1005, reason ?? ''));
  }

  accept(): void {
    this.readyState = 1;
    this.dispatchEvent(new Event('open'));
  }

  receive(data: unknown): void {
    this.dispatchEvent(Object.assign(new Event('message'), { data }));
  }

  fail(message: string): void {
    this.dispatchEvent(Object.assign(new Event('error'), { message }));
  }

  closeFromServer(code: number, reason = ''): void {
    this.readyState = 3;
    this.dispatchEvent(Object.assign(new Event('close'), { code, reason }));
  }

  listenerCount(): number {
    return ['open', 'message', 'error', 'close'].reduce(
      (total, type) => total + getEventListeners(this, type).length,
      0,
    );
  }
}

async function drain<T>(messages: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of messages) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

async function opened(socket = new FakeWebSocket(), options = {}) {
  const pending = openWebSocket(socket, { label: 'acme.STT', ...options });
  socket.accept();
  return { socket, connection: await pending };
}

describe('openWebSocket', () => {
  it('opens, sends, receives text and binary frames as strings and bytes, and ends on a normal close', async () => {
    const { socket, connection } = await opened();
    expect(socket.binaryType).toBe('arraybuffer');
    connection.send('{"type":"KeepAlive"}');
    connection.send(new Uint8Array([1, 2]));
    expect(socket.sent).toEqual(['{"type":"KeepAlive"}', new Uint8Array([1, 2])]);
    socket.receive('{"transcript":"hi"}');
    socket.receive(new Uint8Array([9, 8, 7]).buffer);
    socket.receive(new Uint16Array([1]));
    socket.closeFromServer(1000);
    const { items, error } = await drain(connection.messages);
    expect(error).toBeUndefined();
    expect(items).toEqual(['{"transcript":"hi"}', new Uint8Array([9, 8, 7]), new Uint8Array([1, 0])]);
    expect(socket.listenerCount()).toBe(0);
    expect(() => connection.send('late')).toThrow(APIConnectionError);
  });

  it('treats 1001 and 1005 as normal too, an abnormal close as retryable, a policy close as final', async () => {
    for (const code of [1001, 1005]) {
      const { socket, connection } = await opened();
      socket.closeFromServer(code);
      expect((await drain(connection.messages)).error).toBeUndefined();
    }
    const dropped = await opened();
    dropped.socket.closeFromServer(1006);
    const abnormal = (await drain(dropped.connection.messages)).error as APIError;
    expect(abnormal).toBeInstanceOf(APIConnectionError);
    expect(abnormal.retryable).toBe(true);
    expect(abnormal.body).toEqual({ code: 1006, reason: '' });

    const refused = await opened();
    refused.socket.closeFromServer(1008, 'invalid credentials');
    const policy = (await drain(refused.connection.messages)).error as APIError;
    expect(policy.retryable).toBe(false);
    expect(policy.message).toBe('acme.STT: the connection closed with code 1008: invalid credentials');

    const custom = await opened(new FakeWebSocket(), { isRetryableClose: (code: number) => code === 4002 });
    custom.socket.closeFromServer(4002, 'idle');
    expect(((await drain(custom.connection.messages)).error as APIError).retryable).toBe(true);
  });

  it('rejects a failed handshake with a connection error, or the HTTP status ws reports', async () => {
    const socket = new FakeWebSocket();
    const pending = openWebSocket(socket);
    socket.fail('getaddrinfo ENOTFOUND api.example');
    socket.closeFromServer(1006);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe('websocket: could not connect (getaddrinfo ENOTFOUND api.example)');
    expect(socket.listenerCount()).toBe(0);

    for (const [status, retryable] of [
      [401, false],
      [429, true],
    ] as const) {
      const refused = new FakeWebSocket();
      const attempt = openWebSocket(refused);
      refused.fail(`Unexpected server response: ${status}`);
      refused.closeFromServer(1006);
      const statusError = (await attempt.catch((e: unknown) => e)) as APIStatusError;
      expect(statusError).toBeInstanceOf(APIStatusError);
      expect({ status: statusError.statusCode, retryable: statusError.retryable }).toEqual({
        status,
        retryable,
      });
    }
  });

  it('abandons the handshake on abort, closing the socket, and leaves no listener once it closed', async () => {
    const controller = new AbortController();
    const socket = new FakeWebSocket();
    const pending = openWebSocket(socket, { signal: controller.signal });
    controller.abort(new Error('hang up'));
    await expect(pending).rejects.toThrow('hang up');
    expect(socket.closeCalls).toEqual([[1000, 'aborted']]);
    await settle();
    expect(socket.listenerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    const early = new FakeWebSocket();
    await expect(openWebSocket(early, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(early.closeCalls).toHaveLength(1);
  });

  it('keeps no abort listener after opening', async () => {
    const controller = new AbortController();
    const { connection } = await opened(new FakeWebSocket(), { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    connection.close();
  });

  it('closes when the consumer falls too far behind or a frame cannot be read', async () => {
    const { socket, connection } = await opened(new FakeWebSocket(), { maxBufferedMessages: 2 });
    for (const text of ['a', 'b', 'c']) socket.receive(text);
    const { items, error } = await drain(connection.messages);
    expect(items).toEqual(['a', 'b']);
    expect((error as APIError).retryable).toBe(false);
    expect(socket.closeCalls).toEqual([[1000, 'closing']]);

    const blob = await opened();
    blob.socket.receive({ size: 3 });
    expect(((await drain(blob.connection.messages)).error as Error).message).toMatch(/unsupported type/);
  });

  it('closes with the given code, ends the messages and refuses a socket that is already closed', async () => {
    const { socket, connection } = await opened();
    connection.close(1000, 'done');
    connection.close();
    expect(socket.closeCalls).toEqual([[1000, 'done']]);
    expect(await drain(connection.messages)).toEqual({ items: [], error: undefined });
    await settle();
    expect(socket.listenerCount()).toBe(0);
    const dead = new FakeWebSocket();
    dead.readyState = 3;
    await expect(openWebSocket(dead)).rejects.toBeInstanceOf(APIConnectionError);
    expect(dead.listenerCount()).toBe(0);
  });

  it('serves as the connect of a ReconnectingSocket', async () => {
    const clock = new VirtualClock();
    const sockets: FakeWebSocket[] = [];
    const link = new ReconnectingSocket<WebSocketData, WebSocketMessage>({
      clock,
      policy: { jitter: 0 },
      connect: (_attempt, signal) => {
        const socket = new FakeWebSocket();
        sockets.push(socket);
        queueMicrotask(() => socket.accept());
        return openWebSocket(socket, { signal });
      },
    });
    link.send('audio-1', { size: 20 });
    await settle();
    sockets[0]!.receive('result 1');
    sockets[0]!.closeFromServer(1011, 'internal error');
    await clock.advance(0);
    await settle();
    while (sockets.length < 2) await settle();
    await settle();
    expect(sockets[1]!.sent).toEqual(['audio-1']);
    sockets[1]!.receive('result 2');
    link.end();
    sockets[1]!.closeFromServer(1000);
    expect(await drain(link)).toEqual({ items: ['result 1', 'result 2'], error: undefined });
  });

  it("lets the server's close code decide when a send lands while the server is closing", async () => {
    const clock = new VirtualClock();
    const sockets: FakeWebSocket[] = [];
    const link = new ReconnectingSocket<WebSocketData, WebSocketMessage>({
      clock,
      policy: { jitter: 0 },
      connect: (_attempt, signal) => {
        const socket = new FakeWebSocket();
        sockets.push(socket);
        queueMicrotask(() => socket.accept());
        return openWebSocket(socket, { signal });
      },
    });
    link.send('audio-1', { size: 20 });
    await settle();
    const socket = sockets[0]!;
    // The server's close frame arrived: the socket is closing, its close event not yet dispatched.
    socket.readyState = 2;
    expect(() => link.send('audio-2', { size: 20 })).not.toThrow();
    socket.closeFromServer(1008, 'invalid credentials');
    const { error } = await drain(link);
    expect((error as APIError).retryable).toBe(false);
    expect((error as APIError).message).toContain('code 1008: invalid credentials');
    expect(sockets).toHaveLength(1);
    expect(socket.sent).toEqual(['audio-1']);
  });
});
