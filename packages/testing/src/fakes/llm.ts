import {
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  type Clock,
  type LLM,
  type TimerHandle,
} from '@voxwire/agents';
import {
  type LLMChatOptions,
  type LLMMessage,
  type LLMStreamPart,
  SPECIFICATION_VERSION,
} from '@voxwire/agents/provider-utils';

/** Which requests a scripted reply answers. Every given field must match. */
export interface ReplyMatch {
  /** The last conversation item is a user message containing this text (case-insensitive). */
  user?: string;
  /** The last conversation item is the output of this tool. */
  afterTool?: string;
  /** The system instructions contain this text (identifies the agent or a one-off instruction). */
  instructions?: string;
}

export interface FakeToolCall {
  name: string;
  args?: Record<string, unknown>;
  /**
   * The call id the model gives. Default: a fresh `call_<n>`. Set it to play a model that numbers its
   * calls `call_0` every turn, or one that re-emits an earlier call.
   */
  id?: string;
}

export interface FakeLLMError {
  /** After this much streaming time (from the request); 0 fails before the first token. */
  afterMs?: number;
  kind?: 'connection' | 'timeout' | 'status';
  statusCode?: number;
  message?: string;
}

/** One scripted answer of the model. */
export interface LLMReply {
  match?: ReplyMatch;
  /** How many requests it may answer; unlimited when omitted. */
  times?: number;
  /** Time to first token. Default 300 ms. */
  ttftMs?: number;
  /** Time between text chunks (one word each). Default 40 ms. */
  tokenMs?: number;
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Fail the request (after the text and tool calls streamed so far). */
  error?: FakeLLMError;
  /** Stream nothing more and never finish, until the request is aborted. */
  hang?: boolean;
  /** Stop streaming after this many words (a model that stalls mid-reply), until the request is aborted. */
  stallAfterWords?: number;
}

export interface FakeLLMRequest {
  atMs: number;
  /** Index of the reply used in `replies`, or -1 for the default one. */
  reply: number;
  lastItem: string;
  toolCallIds: string[];
}

export interface FakeLLMOptions {
  clock: Clock;
  replies: readonly LLMReply[];
  /** Used when no scripted reply matches. Default: a short text. */
  fallback?: LLMReply;
  /** Called when a tool call is handed to the session, and when a request fails. */
  onEvent?(
    event:
      | { type: 'tool_call'; callId: string; name: string; request: FakeLLMRequest }
      | { type: 'error'; message: string }
      | { type: 'stall' }
      | { type: 'request'; reply: number; lastItem: string; instructions: string },
  ): void;
  /** Called for every request as it is made. */
  onRequest?(request: FakeLLMRequest): void;
}

const DEFAULT_REPLY: LLMReply = { text: 'Okay.' };

/**
 * A chat model that answers from a script: the reply is chosen by what the conversation ends with,
 * then streamed in time (time to first token, one word per `tokenMs`), tool calls after the text.
 * Outages make requests fail as a provider would, with typed, retryable errors.
 */
export class FakeLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'fake.FakeLLM';
  readonly model = 'scripted';
  readonly supportsToolCalls = true;
  /** Every request, in order. */
  readonly requests: FakeLLMRequest[] = [];
  private readonly used: number[];
  private outageUntil = -1;
  private callSeq = 0;
  private readonly inFlight = new Set<() => void>();
  private stalledUntil = -1;
  private readonly streaming = new Set<() => void>();

  constructor(private readonly options: FakeLLMOptions) {
    this.used = options.replies.map(() => 0);
  }

  /**
   * Requests in flight stop streaming at their next chunk and never finish (until aborted); new ones
   * send nothing until `durationMs` has passed. No error is ever raised: the model just goes quiet.
   */
  stall(durationMs: number): void {
    this.stalledUntil = this.options.clock.now() + Math.max(1, durationMs);
    for (const stall of [...this.streaming]) stall();
  }

  /** Requests in flight fail now; new ones fail until `durationMs` has passed. */
  outage(durationMs: number): void {
    this.outageUntil = this.options.clock.now() + Math.max(1, durationMs);
    for (const drop of [...this.inFlight]) drop();
  }

  chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    const index = this.pick(options.messages);
    const reply = index >= 0 ? this.options.replies[index]! : (this.options.fallback ?? DEFAULT_REPLY);
    if (index >= 0) this.used[index]!++;
    const request: FakeLLMRequest = {
      atMs: this.options.clock.now(),
      reply: index,
      lastItem: describeLast(options.messages),
      toolCallIds: [],
    };
    this.requests.push(request);
    this.options.onRequest?.(request);
    this.options.onEvent?.({
      type: 'request',
      reply: index,
      lastItem: request.lastItem,
      instructions: instructionsOf(options.messages),
    });
    return this.stream(reply, request, options.signal);
  }

  private async *stream(
    reply: LLMReply,
    request: FakeLLMRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LLMStreamPart> {
    const clock = this.options.clock;
    const startedAt = clock.now();
    if (startedAt < this.outageUntil) {
      await this.sleepOrAbort(50, signal);
      throw this.fail({ kind: 'status', statusCode: 503, message: 'LLM unavailable' });
    }
    // The connection: ended by the request's signal (quietly) or by an outage (a failure).
    const connection = new FakeConnection();
    const drop = (): void => connection.end('outage');
    const onAbort = (): void => connection.end('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) connection.end('aborted');
    this.inFlight.add(drop);
    let stalled = startedAt < this.stalledUntil;
    const stallNow = (): void => {
      stalled = true;
    };
    this.streaming.add(stallNow);
    const failAt = reply.error ? startedAt + (reply.error.afterMs ?? 0) : Number.POSITIVE_INFINITY;
    /** A sleep on the clock: false when the connection ended before it did. */
    const nap = (ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        if (connection.endedBy) {
          resolve(false);
          return;
        }
        let timer: TimerHandle | undefined;
        // Set first, so that a clock which fires at once still clears it.
        connection.wake = () => {
          timer?.cancel();
          resolve(false);
        };
        timer = clock.setTimer(ms, () => {
          connection.wake = undefined;
          resolve(true);
        });
      });
    /** Waits until `at` (or the scripted failure); false when the request was aborted. */
    const until = async (at: number): Promise<boolean> => {
      if (stalled) return this.hangUntilAborted(connection);
      if (!(await nap(Math.max(0, Math.min(at, failAt) - clock.now())))) {
        if (connection.endedBy !== 'outage') return false;
        throw this.fail({ kind: 'connection', message: 'LLM connection dropped' });
      }
      if (clock.now() >= failAt) throw this.fail(reply.error!);
      if (stalled) return this.hangUntilAborted(connection);
      return true;
    };
    try {
      if (!(await until(startedAt + (reply.ttftMs ?? 300)))) return;
      const words = (reply.text ?? '').match(/\S+\s*/gu) ?? [];
      const tokenMs = reply.tokenMs ?? 40;
      for (let i = 0; i < words.length; i++) {
        if (i === reply.stallAfterWords) {
          await this.hangUntilAborted(connection);
          return;
        }
        if (i > 0 && !(await until(clock.now() + tokenMs))) return;
        yield { type: 'text_delta', text: words[i]! };
      }
      for (const call of reply.toolCalls ?? []) {
        const callId = call.id ?? `call_${++this.callSeq}`;
        request.toolCallIds.push(callId);
        this.options.onEvent?.({ type: 'tool_call', callId, name: call.name, request });
        yield { type: 'tool_call', callId, name: call.name, arguments: JSON.stringify(call.args ?? {}) };
      }
      if (reply.hang) {
        await this.hangUntilAborted(connection);
        return;
      }
      if (failAt !== Number.POSITIVE_INFINITY && !(await until(failAt))) return;
      const completion = words.length + (reply.toolCalls?.length ?? 0);
      yield {
        type: 'usage',
        usage: { promptTokens: 100, completionTokens: completion, totalTokens: 100 + completion },
      };
      yield { type: 'finish', reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' };
    } finally {
      this.streaming.delete(stallNow);
      this.inFlight.delete(drop);
      signal?.removeEventListener('abort', onAbort);
      connection.wake = undefined;
    }
  }

  /** A stalled request: nothing more until it is aborted (false) or dropped by an outage (throws). */
  private async hangUntilAborted(connection: FakeConnection): Promise<boolean> {
    this.options.onEvent?.({ type: 'stall' });
    await connection.ended();
    if (connection.endedBy === 'outage')
      throw this.fail({ kind: 'connection', message: 'LLM connection dropped' });
    return false;
  }

  private async sleepOrAbort(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.options.clock.sleep(ms, signal);
    } catch {
      // The caller fails the request either way.
    }
  }

  private fail(error: FakeLLMError): Error {
    const message = error.message ?? 'scripted LLM failure';
    this.options.onEvent?.({ type: 'error', message });
    switch (error.kind ?? 'connection') {
      case 'timeout':
        return new APITimeoutError(message);
      case 'status':
        return new APIStatusError(message, { statusCode: error.statusCode ?? 500 });
      default:
        return new APIConnectionError(message);
    }
  }

  private pick(messages: readonly LLMMessage[]): number {
    const last = lastMessage(messages);
    const instructions = instructionsOf(messages).toLowerCase();
    const replies = this.options.replies;
    for (let i = 0; i < replies.length; i++) {
      const reply = replies[i]!;
      if (reply.times !== undefined && this.used[i]! >= reply.times) continue;
      if (matches(reply.match ?? {}, last, instructions)) return i;
    }
    return -1;
  }
}

/**
 * One request's connection to the fake model. A plain object rather than an AbortController: a request
 * makes one, and a controller's creation and abort (an event dispatched) cost more than the request's
 * whole scripted reply.
 */
class FakeConnection {
  endedBy: 'aborted' | 'outage' | undefined;
  /** Wakes the stream's current sleep, if any: it sleeps once per word. */
  wake: (() => void) | undefined;
  private waiters: Array<() => void> = [];

  end(reason: 'aborted' | 'outage'): void {
    if (this.endedBy) return;
    this.endedBy = reason;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves once the connection has ended. */
  ended(): Promise<void> {
    if (this.endedBy) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

function instructionsOf(messages: readonly LLMMessage[]): string {
  return messages
    .map((m) => (m.role === 'system' || m.role === 'developer' ? m.content : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function lastMessage(messages: readonly LLMMessage[]): LLMMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'system' || message.role === 'developer') continue;
    return message;
  }
  return undefined;
}

function userText(message: LLMMessage & { role: 'user' }): string {
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function matches(match: ReplyMatch, last: LLMMessage | undefined, instructions: string): boolean {
  if (match.instructions !== undefined && !instructions.includes(match.instructions.toLowerCase()))
    return false;
  if (match.user !== undefined) {
    if (last?.role !== 'user') return false;
    if (!userText(last).toLowerCase().includes(match.user.toLowerCase())) return false;
  }
  if (match.afterTool !== undefined) {
    if (last?.role !== 'tool' || last.toolName !== match.afterTool) return false;
  }
  return true;
}

function describeLast(messages: readonly LLMMessage[]): string {
  const last = lastMessage(messages);
  if (!last) return 'none';
  switch (last.role) {
    case 'user':
      return `user: ${userText(last)}`;
    case 'tool':
      return `output of ${last.toolName}`;
    case 'assistant':
      return `assistant: ${last.content}`;
    default:
      return last.role;
  }
}
