import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, APIStatusError, APITimeoutError } from '../errors.js';
import type { ProviderProblem } from '../providers/common.js';
import { type FakeConnection, FakeSocketServer } from '../test-support/fake-socket.js';
import { settle } from '../test-support/scripted-source.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { ReconnectingSocket, type ReconnectingSocketOptions } from './reconnecting-socket.js';

type Options = Partial<ReconnectingSocketOptions<string, string>>;

function setup(
  outcomes: ConstructorParameters<typeof FakeSocketServer>[0] = [],
  options: Options = {},
  clock = new VirtualClock(),
) {
  const server = new FakeSocketServer<string, string>(outcomes);
  const problems: ProviderProblem[] = [];
  const socket = new ReconnectingSocket<string, string>({
    connect: server.connect,
    clock,
    policy: { jitter: 0 },
    onProblem: (p) => problems.push(p),
    label: 'fake.STT',
    ...options,
  });
  return { clock, server, problems, socket };
}

/** Connection number `n` once the socket has attached it (replayed, ready for live sends). */
async function opened<Out, In>(
  server: FakeSocketServer<Out, In>,
  n: number,
): Promise<FakeConnection<Out, In>> {
  const connection = await server.connection(n);
  await settle();
  return connection;
}

/** Reads `count` messages. */
async function read(socket: AsyncIterable<string>, count: number): Promise<string[]> {
  const iterator = socket[Symbol.asyncIterator]();
  const items: string[] = [];
  while (items.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    items.push(next.value);
  }
  return items;
}

async function drain(socket: AsyncIterable<string>): Promise<{ items: string[]; error: unknown }> {
  const items: string[] = [];
  try {
    for await (const item of socket) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

describe('ReconnectingSocket', () => {
  it('sends what was written before the connection opened, then live, and delivers messages', async () => {
    const { server, socket } = setup();
    socket.send('config?', { replay: false });
    expect(socket.send('a', { size: 20 })).toBe(20);
    const first = await opened(server, 1);
    expect(socket.state).toBe('open');
    expect(socket.send('b', { size: 20 })).toBe(40);
    expect(first.sent).toEqual(['a', 'b']);
    first.push('hello');
    first.push('world');
    expect(await read(socket, 2)).toEqual(['hello', 'world']);
    await socket.close();
    expect(first.closeCode).toBe(1000);
  });

  it('reconnects after a drop with backoff, replays what was not acknowledged, and goes on', async () => {
    const { clock, server, socket, problems } = setup();
    const first = await opened(server, 1);
    for (const frame of ['f1', 'f2', 'f3']) socket.send(frame, { size: 20 });
    first.push('final up to 20 ms');
    expect(await read(socket, 1)).toEqual(['final up to 20 ms']);
    socket.acknowledge(20);
    const reset = new APIConnectionError('socket hang up');
    first.drop(reset);
    socket.send('f4', { size: 20 });
    const second = await opened(server, 2);
    expect(clock.now()).toBe(100);
    expect(problems).toEqual([{ type: 'reconnecting', attempt: 1, delayMs: 100, error: reset }]);
    expect(second.sent).toEqual(['f2', 'f3', 'f4']);
    expect(second.attempt).toBe(1);
    // The provider's clock restarts at 0 on the new connection; that 0 is position 20 of the stream.
    expect(second.info.resumeFrom).toBe(20);
    socket.send('f5', { size: 20 });
    expect(second.sent).toEqual(['f2', 'f3', 'f4', 'f5']);
    second.push('after the reconnect');
    expect(await read(socket, 1)).toEqual(['after the reconnect']);
    await socket.close();
  });

  it('takes a normal close the client did not ask for as a drop', async () => {
    const { server, socket, problems } = setup();
    (await opened(server, 1)).closeFromServer();
    await opened(server, 2);
    expect(problems).toMatchObject([{ type: 'reconnecting', error: { name: 'APIConnectionError' } }]);
    await socket.close();
  });

  it('ends the iteration when the provider closes after end(), messages first', async () => {
    const { server, socket, problems } = setup();
    const connection = await opened(server, 1);
    socket.send('audio', { size: 20 });
    socket.end('{"type":"CloseStream"}');
    expect(connection.sent).toEqual(['audio', '{"type":"CloseStream"}']);
    connection.push('last transcript');
    connection.closeFromServer();
    expect(await drain(socket)).toEqual({ items: ['last transcript'], error: undefined });
    expect(server.attempts).toBe(1);
    expect(problems).toEqual([]);
    expect(socket.state).toBe('closed');
    expect(socket.send('late')).toBe(20);
  });

  it('replays the end request too when the connection breaks before the provider closed', async () => {
    const { server, socket } = setup();
    const first = await opened(server, 1);
    socket.send('audio', { size: 20 });
    socket.end('close-stream');
    first.drop(new APIConnectionError());
    const second = await opened(server, 2);
    expect(second.sent).toEqual(['audio', 'close-stream']);
    second.closeFromServer();
    expect(await drain(socket)).toEqual({ items: [], error: undefined });
  });

  it('gives up after maxRetries failed attempts with an APIConnectionError', async () => {
    const refused = new APIConnectionError('ECONNREFUSED');
    const { clock, server, socket, problems } = setup(['open', { fail: refused }, { fail: refused }], {
      policy: { jitter: 0, maxRetries: 2 },
    });
    (await opened(server, 1)).drop(new APIConnectionError('reset'));
    const { error } = await drain(socket);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(
      'fake.STT: the connection broke and 2 reconnect attempt(s) failed: ECONNREFUSED',
    );
    expect((error as Error).cause).toBe(refused);
    expect(problems.map((p) => p.type === 'reconnecting' && [p.attempt, p.delayMs])).toEqual([
      [1, 100],
      [2, 200],
    ]);
    expect(server.attempts).toBe(3);
    expect(clock.pendingTimers).toBe(0);
    expect(socket.state).toBe('closed');
  });

  it('gives every outage its attempts again once a connection delivered a message', async () => {
    const { server, socket } = setup([], { policy: { jitter: 0, maxRetries: 1 } });
    for (let n = 1; n <= 4; n++) {
      const connection = await opened(server, n);
      connection.push(`message ${n}`);
      expect(await read(socket, 1)).toEqual([`message ${n}`]);
      connection.drop(new APIConnectionError());
    }
    await opened(server, 5);
    await socket.close();
  });

  it('retries the first connection, reporting retrying', async () => {
    const busy = new APIStatusError('HTTP 503', { statusCode: 503 });
    const { server, socket, problems } = setup([{ fail: busy }, { fail: busy }]);
    socket.send('early', { size: 20 });
    const connection = await opened(server, 1);
    expect(connection.sent).toEqual(['early']);
    expect(connection.attempt).toBe(2);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 100, error: busy },
      { type: 'retrying', attempt: 2, delayMs: 200, error: busy },
    ]);
    await socket.close();
  });

  it('fails at once, with the error as it is, when retrying cannot help', async () => {
    const denied = new APIStatusError('HTTP 401: invalid credentials', { statusCode: 401 });
    const { server, socket } = setup([{ fail: denied }]);
    expect((await drain(socket)).error).toBe(denied);
    expect(server.attempts).toBe(1);

    const broken = setup();
    const fatal = new APIError('policy violation (1008)', { retryable: false });
    (await opened(broken.server, 1)).drop(fatal);
    expect((await drain(broken.socket)).error).toBe(fatal);
    expect(broken.server.attempts).toBe(1);
  });

  it('waits what the server asked for, and gives up when it asks for too long', async () => {
    const slowDown = Object.assign(new APIStatusError('HTTP 429', { statusCode: 429 }), {
      retryAfterMs: 5_000,
    });
    const { clock, server, socket } = setup([{ fail: slowDown }]);
    await opened(server, 1);
    expect(clock.now()).toBe(5_000);
    await socket.close();

    const tooLong = Object.assign(new APIStatusError('HTTP 429', { statusCode: 429 }), {
      retryAfterMs: 600_000,
    });
    const refused = setup([{ fail: tooLong }]);
    expect((await drain(refused.socket)).error).toBe(tooLong);
  });

  it('reports audio that could not be replayed as audio_dropped', async () => {
    const { server, socket, problems } = setup([], { replay: { capacity: 60 } });
    const first = await opened(server, 1);
    first.drop(new APIConnectionError());
    // Disconnected for the backoff: more audio comes than the buffer holds.
    for (let i = 0; i < 5; i++) socket.send(`f${i}`, { size: 20 });
    const second = await opened(server, 2);
    expect(second.sent).toEqual(['f2', 'f3', 'f4']);
    expect(problems[1]).toEqual({
      type: 'audio_dropped',
      droppedMs: 40,
      message: 'fake.STT: 40 ms of audio could not be sent again after the connection broke',
    });
    await socket.close();
  });

  it('in acknowledged mode, reports what left the buffer unacknowledged; items are reported as a warning', async () => {
    const { server, socket, problems } = setup([], {
      replay: { capacity: 3, mode: 'acknowledged', unit: 'items' },
    });
    const first = await opened(server, 1);
    for (let i = 0; i < 5; i++) socket.send(`text ${i}`);
    socket.acknowledge(1);
    first.drop(new APIConnectionError());
    const second = await opened(server, 2);
    expect(second.sent).toEqual(['text 2', 'text 3', 'text 4']);
    expect(problems[1]).toMatchObject({ type: 'warning', message: expect.stringContaining('1 message(s)') });
    await socket.close();
  });

  it('neither keeps nor queues messages marked replay: false', async () => {
    const { server, socket } = setup();
    const first = await opened(server, 1);
    socket.send('keep-alive', { replay: false });
    socket.send('audio', { size: 20 });
    first.drop(new APIConnectionError());
    socket.send('keep-alive', { replay: false });
    const second = await opened(server, 2);
    expect(first.sent).toEqual(['keep-alive', 'audio']);
    expect(second.sent).toEqual(['audio']);
    await socket.close();
  });

  it('reconnects when sending fails, and replays the message that failed', async () => {
    const { server, socket, problems } = setup();
    const first = await opened(server, 1);
    first.failSends = true;
    socket.send('lost on the wire', { size: 20 });
    expect(first.closed).toBe(true);
    const second = await opened(server, 2);
    expect(second.sent).toEqual(['lost on the wire']);
    expect(problems).toMatchObject([
      {
        type: 'reconnecting',
        error: { name: 'APIConnectionError', message: expect.stringContaining('sending failed') },
      },
    ]);
    await socket.close();
  });

  it('times out a connect that never answers, and closes a connection that comes too late', async () => {
    const { clock, server, socket, problems } = setup(['hang'], { connectTimeoutMs: 2_000 });
    await opened(server, 1);
    expect(problems).toEqual([
      { type: 'retrying', attempt: 1, delayMs: 100, error: expect.any(APITimeoutError) },
    ]);
    expect(server.signals[0]!.reason).toBeInstanceOf(APITimeoutError);
    expect(clock.now()).toBe(2_100);
    await socket.close();

    let late: (() => void) | undefined;
    const closed: number[] = [];
    const stuck = new ReconnectingSocket<string, string>({
      clock,
      connect: () =>
        new Promise((resolve) => {
          late = () =>
            resolve({
              send: () => {},
              close: (code) => closed.push(code ?? 0),
              messages: { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) },
            });
        }),
    });
    await settle();
    await stuck.close();
    late!();
    await settle();
    expect(closed).toEqual([1000]);
  });

  it('closes cleanly on abort: connection closed, iteration quiet, no timer or listener left', async () => {
    const caller = new AbortController();
    const { clock, server, socket } = setup([], { signal: caller.signal });
    const connection = await opened(server, 1);
    connection.push('hello');
    const reading = drain(socket);
    await settle();
    caller.abort();
    expect(await reading).toEqual({ items: ['hello'], error: undefined });
    expect(connection.closeCode).toBe(1000);
    expect(socket.state).toBe('closed');
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(server.attempts).toBe(1);
  });

  it('stops during a backoff or a hanging connect without leaving timers', async () => {
    const manual = new VirtualClock({ autoAdvance: false });
    const during = setup([{ fail: new APIConnectionError() }], {}, manual);
    await settle();
    expect(manual.pendingTimers).toBe(1);
    await during.socket.close();
    expect(during.clock.pendingTimers).toBe(0);
    expect(during.server.attempts).toBe(1);

    const hanging = setup(['hang']);
    await settle();
    await hanging.socket.close();
    expect(hanging.clock.pendingTimers).toBe(0);
    expect(hanging.server.signals[0]!.aborted).toBe(true);
  });

  it('closes the connection when the consumer stops iterating', async () => {
    const { server, socket } = setup();
    const connection = await opened(server, 1);
    connection.push('one');
    connection.push('two');
    for await (const message of socket) {
      expect(message).toBe('one');
      break;
    }
    expect(connection.closeCode).toBe(1000);
    expect(socket.state).toBe('closed');
  });

  it('stays bounded over many drops', async () => {
    const { clock, server, socket } = setup([], {
      replay: { capacity: 200 },
      policy: { jitter: 0, maxRetries: 1 },
    });
    for (let n = 1; n <= 50; n++) {
      const connection = await opened(server, n);
      for (let i = 0; i < 20; i++) socket.send(`frame ${n}.${i}`, { size: 20 });
      connection.push('ack');
      await read(socket, 1);
      connection.drop(new APIConnectionError());
    }
    const last = await opened(server, 51);
    expect(last.sent.length).toBeLessThanOrEqual(10);
    await socket.close();
    expect(clock.pendingTimers).toBe(0);
  });

  it('starts nothing under an aborted signal and validates its options', async () => {
    const { server, socket } = setup([], { signal: AbortSignal.abort() });
    expect(await drain(socket)).toEqual({ items: [], error: undefined });
    expect(server.attempts).toBe(0);
    expect(() => setup([], { connectTimeoutMs: 0 })).toThrow(RangeError);
  });
});
