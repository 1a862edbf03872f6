import type { WorkerMessageBody } from './protocol.js';

/** The longest list of job ends kept for a later connection; past it the oldest are forgotten. */
const MAX_KEPT = 1000;

/**
 * Makes each job's final status reach the server at least once. The protocol acknowledges nothing, so
 * an end sent is followed by a ping: its pong, on the same connection and so after it, proves the
 * server read the end. Ends not sent (no connection) or not confirmed when the connection drops are
 * sent again after the next registration. A repeat always carries the same status.
 */
export class EndReports {
  private readonly unsent: WorkerMessageBody[] = [];
  private unconfirmed: Array<{ message: WorkerMessageBody; pingTimestamp: bigint }> = [];
  private lastPingTimestamp = 0n;

  constructor(
    private readonly send: (message: WorkerMessageBody) => boolean,
    private readonly now: () => number,
  ) {}

  /** Reports a job's end now, or keeps it for the next connection. */
  report(end: WorkerMessageBody): void {
    if (!this.send(end)) {
      this.keep(end);
      return;
    }
    const pingTimestamp = this.ping();
    if (pingTimestamp === undefined) this.keep(end);
    else this.unconfirmed.push({ message: end, pingTimestamp });
  }

  /** After registering: sends what earlier connections could not deliver. */
  flush(): void {
    for (const end of this.unsent.splice(0)) this.report(end);
  }

  /** A pong echoing `timestamp`: every end sent before that ping has been read. */
  confirmed(timestamp: bigint): void {
    this.unconfirmed = this.unconfirmed.filter((e) => e.pingTimestamp > timestamp);
  }

  /** The connection is gone: ends it may not have delivered wait for the next one. */
  disconnected(): void {
    for (const { message } of this.unconfirmed.splice(0)) this.keep(message);
  }

  /** Sends a `WorkerPing` whose timestamp (ms) always grows; returns it, if it went out. */
  ping(): bigint | undefined {
    const now = BigInt(Math.round(this.now()));
    const timestamp = now > this.lastPingTimestamp ? now : this.lastPingTimestamp + 1n;
    if (!this.send({ case: 'ping', value: { timestamp } })) return undefined;
    this.lastPingTimestamp = timestamp;
    return timestamp;
  }

  private keep(end: WorkerMessageBody): void {
    this.unsent.push(end);
    if (this.unsent.length > MAX_KEPT) this.unsent.shift();
  }
}
