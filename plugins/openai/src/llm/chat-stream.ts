import { APIConnectionError } from '@voxwire/agents';
import { type LLMStreamPart, type LLMUsage, processId } from '@voxwire/agents/provider-utils';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

type FinishReason = Extract<LLMStreamPart, { type: 'finish' }>['reason'];

interface PendingCall {
  callId: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Turns Chat Completions chunks into stream parts. Tool-call deltas are keyed by their `index` and held
 * until the choice finishes, so each `tool_call` part carries whole arguments. The arguments are passed
 * on exactly as received, valid JSON or not: the core's tool runner reports bad JSON back to the model.
 * `finish` is held to the very end so that `usage` (sent in a later chunk) always precedes it.
 */
export class ChatCompletionAssembler {
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: FinishReason | undefined;
  private emittedCalls = 0;
  private lastIndex: number | undefined;
  // Far above any real index, so invented ones never collide and still sort in arrival order.
  private nextAutoIndex = 1_000_000;

  constructor(private readonly what: string) {}

  push(chunk: ChatCompletionChunk): LLMStreamPart[] {
    const parts: LLMStreamPart[] = [];
    for (const choice of chunk.choices ?? []) {
      // Only the first choice is spoken; `n > 1` makes no sense for a voice turn.
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        parts.push({ type: 'text_delta', text: delta.content });
      }
      // A refusal is what the model says instead of an answer: the user should hear it.
      if (typeof delta.refusal === 'string' && delta.refusal.length > 0) {
        parts.push({ type: 'text_delta', text: delta.refusal });
      }
      for (const call of delta.tool_calls ?? []) this.addToolCallDelta(call, parts);
      if (choice.finish_reason) {
        this.flushCalls(parts);
        this.finishReason = mapFinishReason(choice.finish_reason, this.emittedCalls > 0);
      }
    }
    if (chunk.usage) parts.push({ type: 'usage', usage: toUsage(chunk.usage) });
    return parts;
  }

  /** The stream ended cleanly: emits what is still held, or fails if the model never finished. */
  end(): LLMStreamPart[] {
    if (this.finishReason === undefined) {
      throw new APIConnectionError(`${this.what}: the stream ended before the model finished its answer`);
    }
    const parts: LLMStreamPart[] = [];
    this.flushCalls(parts);
    parts.push({ type: 'finish', reason: this.finishReason });
    return parts;
  }

  private addToolCallDelta(delta: ChatCompletionChunk.Choice.Delta.ToolCall, parts: LLMStreamPart[]): void {
    // Some compatible servers omit `index`: a delta with an id then starts a call, one without continues it.
    let index: number;
    if (typeof delta.index === 'number') index = delta.index;
    else if (delta.id || this.lastIndex === undefined) index = this.nextAutoIndex++;
    else index = this.lastIndex;
    this.lastIndex = index;
    let pending = this.calls.get(index);
    // A new id at a known index means the server reused indices for separate calls.
    if (pending?.callId && delta.id && delta.id !== pending.callId) {
      this.emit(pending, parts);
      pending = undefined;
    }
    if (!pending) {
      pending = { callId: undefined, name: '', arguments: '' };
      this.calls.set(index, pending);
    }
    if (delta.id) pending.callId = delta.id;
    if (delta.function?.name && !pending.name) pending.name = delta.function.name;
    if (delta.function?.arguments) pending.arguments += delta.function.arguments;
  }

  private flushCalls(parts: LLMStreamPart[]): void {
    const indices = [...this.calls.keys()].sort((a, b) => a - b);
    for (const index of indices) this.emit(this.calls.get(index)!, parts);
    this.calls.clear();
  }

  private emit(call: PendingCall, parts: LLMStreamPart[]): void {
    this.emittedCalls++;
    parts.push({
      type: 'tool_call',
      callId: call.callId ?? processId('call'),
      name: call.name,
      arguments: call.arguments,
    });
  }
}

function mapFinishReason(reason: string, hadToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'stop':
      // Several local servers report `stop` after tool calls; the session needs to know calls came.
      return hadToolCalls ? 'tool_calls' : 'stop';
    case 'length':
    case 'content_filter':
    case 'tool_calls':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

function toUsage(usage: NonNullable<ChatCompletionChunk['usage']>): LLMUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    totalTokens: usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
    ...(typeof cached === 'number' ? { cachedPromptTokens: cached } : {}),
  };
}
