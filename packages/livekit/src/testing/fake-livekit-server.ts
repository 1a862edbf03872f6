/**
 * A loopback stand-in for a LiveKit server's `/agent` endpoint, speaking the real protocol: binary
 * protobuf `WorkerMessage` / `ServerMessage` over WebSocket, the bearer token checked like the server
 * checks it (HS256 signature with the API secret, expiry, the agent grant; also `?access_token=`), and
 * the handshake rules (before registering, only `WorkerPing` is answered; anything else, or an
 * undecodable frame, drops the connection). Tests drive it: offer jobs, assign, terminate, drop.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  type AvailabilityResponse,
  Job,
  JobStatus,
  JobType,
  ParticipantInfo,
  type RegisterWorkerRequest,
  Room,
  ServerInfo,
  type UpdateJobStatus,
  type UpdateWorkerStatus,
} from '@livekit/protocol';
import { TokenVerifier } from 'livekit-server-sdk';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  decodeWorkerMessage,
  encodeServerMessage,
  type ReceivedWorkerMessage,
  type ServerMessageBody,
} from '../worker/protocol.js';

export interface FakeServerOptions {
  apiKey?: string;
  apiSecret?: string;
}

export interface WorkerConnection {
  readonly index: number;
  readonly socket: WebSocket;
  readonly authorization: 'header' | 'query';
  registration: RegisterWorkerRequest | undefined;
  workerId: string | undefined;
  /** Every message the worker sent on this connection, decoded, in order. */
  readonly received: Received[];
  closed: boolean;
}

export interface OfferedJob {
  id: string;
  room?: string;
  agentName?: string;
  type?: 'room' | 'publisher';
  participantIdentity?: string;
  metadata?: string;
}

type Received = Exclude<ReceivedWorkerMessage, { case: undefined }>;
type MessageOf<C> = Extract<Received, { case: C }>['value'];
type Waiter = { test: () => boolean; resolve: () => void };

export class FakeLiveKitServer {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly connections: WorkerConnection[] = [];
  /** Handshakes refused, with the HTTP status sent. */
  readonly refused: Array<{ status: number; reason: string }> = [];
  /** While true, WorkerPing gets no WorkerPong (a server that went quiet). */
  silent = false;
  private readonly http: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<Socket>();
  private waiters: Waiter[] = [];
  private workerIds = 0;

  private constructor(options: FakeServerOptions) {
    this.apiKey = options.apiKey ?? 'APIfake';
    this.apiSecret = options.apiSecret ?? 'fake-secret-that-is-long-enough-for-hs256';
    this.http = createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    this.http.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.http.on('upgrade', (req, socket, head) => void this.onUpgrade(req, socket as Socket, head));
  }

  static async start(options: FakeServerOptions = {}): Promise<FakeLiveKitServer> {
    const server = new FakeLiveKitServer(options);
    await new Promise<void>((resolve) => server.http.listen(0, '127.0.0.1', resolve));
    return server;
  }

  get url(): string {
    const { port } = this.http.address() as AddressInfo;
    return `ws://127.0.0.1:${port}`;
  }

  /** The newest connection. */
  get current(): WorkerConnection | undefined {
    return this.connections[this.connections.length - 1];
  }

  /** Resolves once `count` workers have registered (over all connections so far). */
  async waitForRegistrations(count: number, timeoutMs = 5000): Promise<WorkerConnection> {
    await this.waitFor(
      () => this.connections.filter((c) => c.workerId).length >= count,
      timeoutMs,
      'registrations',
    );
    return this.connections.filter((c) => c.workerId)[count - 1]!;
  }

  /** All messages of one kind the worker sent, over every connection. */
  messages<C extends Received['case']>(kind: C): MessageOf<C>[] {
    const out: MessageOf<C>[] = [];
    for (const c of this.connections) {
      for (const m of c.received) if (m.case === kind) out.push(m.value as MessageOf<C>);
    }
    return out;
  }

  statuses(): UpdateWorkerStatus[] {
    return this.messages('updateWorker');
  }

  jobStatuses(jobId: string): UpdateJobStatus[] {
    return this.messages('updateJob').filter((u) => u.jobId === jobId);
  }

  /** Waits until `test` holds, re-checked after every message and every connection change. */
  waitFor(test: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`fake LiveKit server: timed out waiting for ${what}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Offers a job to the newest registered worker; resolves with its answer. */
  async offer(
    job: OfferedJob,
    options: { resuming?: boolean; timeoutMs?: number } = {},
  ): Promise<AvailabilityResponse> {
    const connection = this.requireRegistered();
    const before = connection.received.length;
    this.send(connection, {
      case: 'availability',
      value: { job: this.jobProto(job), resuming: options.resuming ?? false },
    });
    let answer: AvailabilityResponse | undefined;
    await this.waitFor(
      () => {
        answer = connection.received
          .slice(before)
          .find(
            (m): m is { case: 'availability'; value: AvailabilityResponse } =>
              m.case === 'availability' && m.value.jobId === job.id,
          )?.value;
        return answer !== undefined;
      },
      options.timeoutMs ?? 5000,
      `the availability answer for ${job.id}`,
    );
    return answer!;
  }

  /** Sends the assignment of an accepted job (a self-hosted server sends no URL). */
  assign(job: OfferedJob, token = `room-token-${job.id}`, url?: string): void {
    this.send(this.requireRegistered(), {
      case: 'assignment',
      value: { job: this.jobProto(job), token, ...(url !== undefined ? { url } : {}) },
    });
  }

  /** Offer, then assign when accepted: what the server does for one dispatch. */
  async dispatch(job: OfferedJob): Promise<AvailabilityResponse> {
    const answer = await this.offer(job);
    if (answer.available) this.assign(job);
    return answer;
  }

  terminate(jobId: string): void {
    this.send(this.requireRegistered(), { case: 'termination', value: { jobId } });
  }

  /** Sends raw bytes (e.g. a malformed frame) to the newest connection. */
  sendRaw(data: Uint8Array | string): void {
    this.current?.socket.send(data);
  }

  /** Kills the newest connection without a close handshake, as a network failure would. */
  drop(): void {
    this.current?.socket.terminate();
  }

  /** Waits until a job reached a final status (success or failure) on any connection. */
  async waitForJobEnd(jobId: string, timeoutMs = 5000): Promise<UpdateJobStatus> {
    let end: UpdateJobStatus | undefined;
    await this.waitFor(
      () => {
        end = this.jobStatuses(jobId).find(
          (s) => s.status === JobStatus.JS_SUCCESS || s.status === JobStatus.JS_FAILED,
        );
        return end !== undefined;
      },
      timeoutMs,
      `the end of job ${jobId}`,
    );
    return end!;
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    for (const s of this.sockets) s.destroy();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private jobProto(job: OfferedJob): Job {
    return new Job({
      id: job.id,
      dispatchId: `AD_${job.id}`,
      type: job.type === 'publisher' ? JobType.JT_PUBLISHER : JobType.JT_ROOM,
      room: new Room({ sid: `RM_${job.room ?? job.id}`, name: job.room ?? `room-${job.id}` }),
      ...(job.participantIdentity
        ? { participant: new ParticipantInfo({ identity: job.participantIdentity }) }
        : {}),
      agentName: job.agentName ?? '',
      metadata: job.metadata ?? '',
      // The open-source server marks the job running already when it offers it.
      state: { status: JobStatus.JS_RUNNING },
    });
  }

  private requireRegistered(): WorkerConnection {
    const c = this.current;
    if (!c?.workerId || c.closed) throw new Error('fake LiveKit server: no registered worker connected');
    return c;
  }

  private send(connection: WorkerConnection, message: ServerMessageBody): void {
    connection.socket.send(encodeServerMessage(message));
  }

  private async onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/agent') return this.refuse(socket, 404, 'not found');
    const header = req.headers.authorization;
    const bearer = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const token = bearer ?? url.searchParams.get('access_token') ?? undefined;
    if (!token) return this.refuse(socket, 401, 'no token');
    try {
      const claims = await new TokenVerifier(this.apiKey, this.apiSecret).verify(token, 60);
      if (!claims.exp) return this.refuse(socket, 401, 'no expiry');
      if (claims.video?.agent !== true) return this.refuse(socket, 401, 'no agent grant');
    } catch (error) {
      return this.refuse(
        socket,
        401,
        `invalid token: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, bearer ? 'header' : 'query'));
  }

  private refuse(socket: Socket, status: number, reason: string): void {
    this.refused.push({ status, reason });
    socket.end(
      `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Not Found'}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    this.check();
  }

  private onConnection(socket: WebSocket, authorization: 'header' | 'query'): void {
    const connection: WorkerConnection = {
      index: this.connections.length,
      socket,
      authorization,
      registration: undefined,
      workerId: undefined,
      received: [],
      closed: false,
    };
    this.connections.push(connection);
    socket.on('message', (data, isBinary) => {
      const bytes = isBinary ? new Uint8Array(data as Buffer) : String(data);
      const decoded = decodeWorkerMessage(bytes);
      if (!decoded.ok || !decoded.message.case) {
        socket.terminate();
        return;
      }
      const message = decoded.message as Received;
      connection.received.push(message);
      if (message.case === 'ping') {
        if (!this.silent) {
          this.send(connection, {
            case: 'pong',
            value: { lastTimestamp: message.value.timestamp, timestamp: BigInt(Date.now()) },
          });
        }
      } else if (!connection.workerId) {
        if (message.case !== 'register') {
          socket.terminate();
        } else {
          connection.registration = message.value;
          connection.workerId = `AW_fake${++this.workerIds}`;
          this.send(connection, {
            case: 'register',
            value: {
              workerId: connection.workerId,
              serverInfo: new ServerInfo({ version: 'fake', protocol: 16 }),
            },
          });
        }
      }
      this.check();
    });
    socket.on('close', () => {
      connection.closed = true;
      this.check();
    });
    socket.on('error', () => {});
    this.check();
  }

  private check(): void {
    const ready = this.waiters.filter((w) => w.test());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}
