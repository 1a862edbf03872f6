import { APIConnectionError } from '@voxwire/agents';
import { type LLMStreamPart, type LLMUsage, processId } from '@voxwire/agents/provider-utils';
import type { ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import { streamErrorEvent } from '../errors.js';

type FinishReason = Extract<LLMStreamPart, { type: 'finish' }>['reason'];

interface PendingCall {
  callId: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Turns Responses API events into stream parts. Function calls are keyed by `output_index` (present on
 * every event, unlike item ids on some compatible servers) and emitted when their item is done.
 */
export class ResponsesAssembler {
  private readonly calls = new Map<number, PendingCall>();
  private finishReason: FinishReason | undefined;
  private emittedCalls = 0;

  constructor(private readonly what: string) {}

  push(event: ResponseStreamEvent): LLMStreamPart[] {
    const parts: LLMStreamPart[] = [];
    switch (event.type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (event.delta) parts.push({ type: 'text_delta', text: event.delta });
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          this.calls.set(event.output_index, {
            callId: event.item.call_id,
            name: event.item.name ?? '',
            arguments: event.item.arguments ?? '',
          });
        }
        break;
      case 'response.function_call_arguments.delta': {
        const call = this.pending(event.output_index);
        call.arguments += event.delta;
        break;
      }
      case 'response.function_call_arguments.done': {
        const call = this.pending(event.output_index);
        call.arguments = event.arguments;
        break;
      }
      case 'response.output_item.done':
        if (event.item.type === 'function_call') {
          const call = this.pending(event.output_index);
          this.calls.delete(event.output_index);
          this.emit(
            {
              callId: event.item.call_id || call.callId,
              name: event.item.name || call.name,
              arguments: typeof event.item.arguments === 'string' ? event.item.arguments : call.arguments,
            },
            parts,
          );
        }
        break;
      case 'response.completed':
      case 'response.incomplete': {
        this.flushCalls(parts);
        const usage = event.response.usage;
        if (usage) parts.push({ type: 'usage', usage: toUsage(usage) });
        this.finishReason =
          event.type === 'response.incomplete'
            ? incompleteReason(event.response.incomplete_details?.reason)
            : this.emittedCalls > 0
              ? 'tool_calls'
              : 'stop';
        break;
      }
      case 'response.failed':
        throw streamErrorEvent(this.what, event.response.error ?? { message: 'response failed' });
      case 'error':
        throw streamErrorEvent(this.what, event);
      default:
        break;
    }
    return parts;
  }

  end(): LLMStreamPart[] {
    if (this.finishReason === undefined) {
      throw new APIConnectionError(`${this.what}: the stream ended before the response completed`);
    }
    const parts: LLMStreamPart[] = [];
    this.flushCalls(parts);
    parts.push({ type: 'finish', reason: this.finishReason });
    return parts;
  }

  private pending(outputIndex: number): PendingCall {
    let call = this.calls.get(outputIndex);
    if (!call) {
      call = { callId: undefined, name: '', arguments: '' };
      this.calls.set(outputIndex, call);
    }
    return call;
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
      callId: call.callId || processId('call'),
      name: call.name,
      arguments: call.arguments,
    });
  }
}

function incompleteReason(reason: string | undefined): FinishReason {
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  return 'other';
}

function toUsage(usage: ResponseUsage): LLMUsage {
  const cached = usage.input_tokens_details?.cached_tokens;
  return {
    promptTokens: usage.input_tokens ?? 0,
    completionTokens: usage.output_tokens ?? 0,
    totalTokens: usage.total_tokens ?? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0),
    ...(typeof cached === 'number' ? { cachedPromptTokens: cached } : {}),
  };
}
