import type { ConnectInfo, SocketConnection } from '../provider-utils/reconnecting-socket.js';
import { Channel } from '../stream/channel.js';

/** One connection of a `FakeSocketServer`: records what it was sent, delivers what the test pushes. */
export class FakeConnection<Out, In> implements SocketConnection<Out, In> {
  readonly sent: Out[] = [];
  closeCode: number | undefined;
  /** Makes `send` throw, like a socket that is already closing. */
  failSends = false;
  private readonly inbox = new Channel<In>({ capacity: 10_000, overflow: 'block', name: 'fake inbox' });

  constructor(
    readonly attempt: number,
    readonly info: ConnectInfo,
  ) {}

  get closed(): boolean {
    return this.closeCode !== undefined;
  }

  readonly messages: AsyncIterable<In> = { [Symbol.asyncIterator]: () => this.inbox[Symbol.asyncIterator]() };

  send(message: Out): void {
    if (this.failSends || this.closed) throw new Error('socket is not open');
    this.sent.push(message);
  }

  close(code = 1000): void {
    this.closeCode ??= code;
    this.inbox.close();
  }

  /** The provider sends a message. */
  push(message: In): void {
    this.inbox.trySend(message);
  }

  /** The provider closes normally. */
  closeFromServer(): void {
    this.closeCode ??= 1000;
    this.inbox.close();
  }

  /** The connection breaks. */
  drop(error: unknown): void {
    this.closeCode ??= 1006;
    this.inbox.fail(error);
  }
}

/** What the next `connect` does: open, fail with an error, or never answer. */
export type ConnectOutcome = 'open' | { fail: unknown } | 'hang';

/** A provider in memory: `connect` plays the scripted outcomes in order ('open' once they run out). */
export class FakeSocketServer<Out, In> {
  readonly connections: Array<FakeConnection<Out, In>> = [];
  readonly signals: AbortSignal[] = [];
  attempts = 0;
  private readonly outcomes: ConnectOutcome[];
  private readonly waiters: Array<(connection: FakeConnection<Out, In>) => void> = [];

  constructor(outcomes: ConnectOutcome[] = []) {
    this.outcomes = [...outcomes];
  }

  /** Pass as the `connect` option. */
  readonly connect = async (
    attempt: number,
    signal: AbortSignal,
    info: ConnectInfo,
  ): Promise<SocketConnection<Out, In>> => {
    this.attempts++;
    this.signals.push(signal);
    const outcome = this.outcomes.shift() ?? 'open';
    if (outcome === 'hang') return new Promise(() => {});
    if (outcome !== 'open') throw outcome.fail;
    const connection = new FakeConnection<Out, In>(attempt, info);
    this.connections.push(connection);
    for (const wake of this.waiters.splice(0)) wake(connection);
    return connection;
  };

  /** The latest connection. */
  get last(): FakeConnection<Out, In> {
    const connection = this.connections[this.connections.length - 1];
    if (!connection) throw new Error('no connection yet');
    return connection;
  }

  /** Resolves with connection number `count` (1-based) once it exists. */
  async connection(count: number): Promise<FakeConnection<Out, In>> {
    while (this.connections.length < count) {
      await new Promise<FakeConnection<Out, In>>((resolve) => this.waiters.push(resolve));
    }
    return this.connections[count - 1]!;
  }
}
