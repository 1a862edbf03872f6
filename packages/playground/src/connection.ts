import {
  type AgentDefinition,
  type AgentSession,
  AudioFrame,
  type Clock,
  Job,
  type JobNotice,
  type JobTransport,
  type Logger,
  type SessionIO,
  type TextOutput,
  messageText,
} from '@voxwire/agents';
import { Channel, int16FromBytes, redactLogText } from '@voxwire/agents/provider-utils';
import type { RawData, WebSocket } from 'ws';
import { PageAudioOutput } from './audio-output.js';
import {
  type ClientMessage,
  isSupportedInputRate,
  PROTOCOL_VERSION,
  parseClientMessage,
  type ServerMessage,
} from './protocol.js';

// biome-ignore lint/suspicious/noExplicitAny: the page shows sessions of any user data type.
type AnySession = AgentSession<any>;

export interface ConnectionOptions {
  definition: AgentDefinition;
  prewarmed: unknown;
  clock: Clock;
  logger: Logger;
  title: string;
  /** Input frames held for the session before the oldest are dropped. */
  inputQueueFrames: number;
  /** Bytes the socket may hold unsent before agent audio frames are dropped. */
  maxSocketBufferBytes: number;
  /** How long the page has to introduce itself. */
  helloTimeoutMs: number;
  /** Typed messages whose replies may wait at once; more are refused with a notice. */
  maxQueuedTexts: number;
}

/**
 * One browser tab: a socket, its job and its session. The page's microphone frames feed the session's
 * audio input through a bounded queue; the agent's audio, transcripts, states, tool calls and metrics go
 * back to the page. The job ends when the socket closes, and the socket closes when the job ends.
 */
export class PlaygroundConnection implements JobTransport {
  readonly name = 'playground';
  readonly ended: Promise<void>;
  private readonly input: Channel<AudioFrame>;
  private output: PageAudioOutput | undefined;
  private job: Job | undefined;
  private session: AnySession | undefined;
  private inputRate = 0;
  /** Replies to typed messages not yet done: each is a speech the session must work through. */
  private queuedTexts = 0;
  private closed = false;
  private helloTimer: { cancel(): void } | undefined;
  private statsTimer: { cancel(): void } | undefined;
  private lastStats = '';
  private resolveEnded!: () => void;
  private endReason: { reason: string; reconnect: boolean } | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: ConnectionOptions,
  ) {
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    this.input = new Channel<AudioFrame>({
      capacity: options.inputQueueFrames,
      overflow: 'drop-oldest',
      name: 'playground-input',
    });
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('close', () => this.onSocketClosed());
    socket.on('error', (error) => options.logger.debug({ error: error.message }, 'playground socket error'));
    this.helloTimer = options.clock.setTimer(options.helloTimeoutMs, () => {
      if (!this.job) this.socket.close(4000, 'no hello');
    });
  }

  /** Ends the session from the server side (shutdown, reload); `reconnect` tells the page to start anew. */
  async end(reason: string, reconnect: boolean): Promise<void> {
    this.endReason ??= { reason, reconnect };
    if (this.job) await this.job.shutdown(reason);
    else this.closeSocket();
    await this.ended;
  }

  // ---- JobTransport ----

  io(): SessionIO {
    const text: TextOutput = {
      captureText: (piece) => this.send({ type: 'agent_text', text: piece }),
      flush: () => this.send({ type: 'agent_text_end' }),
    };
    return { input: { audio: this.input }, output: { audio: this.output, text } };
  }

  onSessionConnected(session: AnySession): void {
    this.session = session;
    session.on('user_state_changed', (e) => this.send({ type: 'user_state', state: e.newState }));
    session.on('agent_state_changed', (e) => this.send({ type: 'agent_state', state: e.newState }));
    session.on('user_input_transcribed', (e) =>
      this.send({ type: 'user_transcript', text: e.transcript, final: e.isFinal }),
    );
    session.on('conversation_item_added', ({ item }) => {
      if (item.type === 'message' && (item.role === 'user' || item.role === 'assistant')) {
        this.send({
          type: 'message',
          role: item.role,
          text: messageText(item),
          interrupted: item.interrupted,
        });
      } else if (item.type === 'function_call') {
        this.send({ type: 'tool_call', callId: item.callId, name: item.name, arguments: item.arguments });
      } else if (item.type === 'function_call_output') {
        this.send({
          type: 'tool_output',
          callId: item.callId,
          name: item.name,
          output: item.output,
          isError: item.isError,
        });
      }
    });
    session.on('metrics_collected', (e) =>
      this.send({ type: 'metrics', metrics: e.metrics as unknown as Record<string, unknown> }),
    );
    session.on('agent_false_interruption', (e) =>
      this.send({ type: 'false_interruption', resumed: e.resumed }),
    );
    session.on('error', (e) =>
      this.send({
        type: 'error',
        source: e.source,
        // Plugins scrub their own keys; this catches what looks like one (bearer tokens, sk-…) anyway.
        message: redactLogText(e.error instanceof Error ? e.error.message : String(e.error)),
        recoverable: e.recoverable,
      }),
    );
  }

  notify(notice: JobNotice): void {
    this.send({ type: 'notice', level: notice.level, message: redactLogText(notice.message) });
  }

  onJobEnded(reason: string): void {
    const end = this.endReason ?? { reason, reconnect: false };
    this.send({ type: 'ended', reason: end.reason, reconnect: end.reconnect });
    this.closeSocket();
  }

  // ---- socket ----

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (isBinary) {
      this.onAudio(data);
      return;
    }
    const message = parseClientMessage(rawToString(data));
    if (!message) return;
    this.onClientMessage(message);
  }

  private onClientMessage(message: ClientMessage): void {
    switch (message.type) {
      case 'hello':
        this.start(message);
        break;
      case 'playback_started':
        break;
      case 'playback_progress':
        this.output?.onPlaybackReport(message.segment, message.playedMs);
        break;
      case 'playback_finished':
        this.output?.onPlaybackReport(message.segment, message.playedMs, {
          interrupted: message.interrupted,
        });
        break;
      case 'user_text': {
        const text = message.text.trim().slice(0, 2000);
        if (text === '' || !this.session || this.session.closed) return;
        const max = this.options.maxQueuedTexts;
        if (this.queuedTexts >= max) {
          // A page (or a script in it) could otherwise queue thousands of replies, each an LLM call.
          this.notify({
            level: 'warn',
            message: `Not sent: ${max} typed ${max === 1 ? 'message is' : 'messages are'} still waiting for a reply. Wait for the agent to answer, then send it again.`,
          });
          return;
        }
        try {
          const handle = this.session.generateReply({ userInput: text });
          this.queuedTexts++;
          handle.onDone(() => {
            this.queuedTexts--;
          });
        } catch (error) {
          this.notify({ level: 'warn', message: `Could not send the text: ${String(error)}` });
        }
        break;
      }
    }
  }

  private start(hello: Extract<ClientMessage, { type: 'hello' }>): void {
    if (this.job) return;
    this.helloTimer?.cancel();
    if (hello.protocol !== PROTOCOL_VERSION || !isSupportedInputRate(hello.sampleRate)) {
      this.send({
        type: 'notice',
        level: 'error',
        message: `This page speaks protocol ${hello.protocol} at ${hello.sampleRate} Hz; the server needs protocol ${PROTOCOL_VERSION} at 8-192 kHz. Reload the page.`,
      });
      this.closeSocket();
      return;
    }
    const { clock, logger } = this.options;
    this.inputRate = hello.sampleRate;
    this.output = new PageAudioOutput(
      {
        send: (message) => this.send(message),
        sendAudio: (segment, samples) => this.sendAudio(segment, samples),
      },
      clock,
      { sampleRate: hello.sampleRate },
    );
    this.job = new Job({
      definition: this.options.definition,
      prewarmed: this.options.prewarmed,
      transport: this,
      logger,
      clock,
    });
    this.send({
      type: 'ready',
      jobId: this.job.id,
      outputSampleRate: hello.sampleRate,
      title: this.options.title,
    });
    this.statsTimer = clock.setRepeatingTimer(1000, () => this.sendStats());
    void this.job.run();
  }

  private onAudio(data: RawData): void {
    if (!this.job || this.inputRate === 0) return;
    const bytes = rawToBytes(data);
    if (bytes.byteLength < 2 || bytes.byteLength % 2 !== 0) return;
    const samples = int16FromBytes(bytes);
    this.input.trySend(new AudioFrame(samples, this.inputRate, 1, samples.length));
  }

  private send(message: ServerMessage): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  private sendAudio(segment: number, samples: Int16Array): boolean {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return false;
    if (this.socket.bufferedAmount > this.options.maxSocketBufferBytes) return false;
    const packet = new Uint8Array(4 + samples.byteLength);
    new DataView(packet.buffer).setUint32(0, segment, true);
    packet.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), 4);
    this.socket.send(packet, { binary: true });
    return true;
  }

  private sendStats(): void {
    const stats = {
      inputFramesDropped: this.input.droppedCount,
      outputFramesDropped: this.output?.outputFramesDropped ?? 0,
    };
    const key = JSON.stringify(stats);
    if (key === this.lastStats) return;
    this.lastStats = key;
    this.send({ type: 'stats', ...stats });
  }

  private onSocketClosed(): void {
    this.closed = true;
    this.helloTimer?.cancel();
    this.statsTimer?.cancel();
    this.input.close();
    this.output?.close();
    const job = this.job;
    if (!job) {
      this.resolveEnded();
      return;
    }
    void job.shutdown(this.endReason?.reason ?? 'the page closed').then(() => this.resolveEnded());
  }

  private closeSocket(): void {
    if (this.socket.readyState === this.socket.CLOSED || this.socket.readyState === this.socket.CLOSING)
      return;
    this.socket.close(1000, 'session ended');
  }
}

function rawToBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function rawToString(data: RawData): string {
  return Buffer.from(rawToBytes(data)).toString('utf8');
}
