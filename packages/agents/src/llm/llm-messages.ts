import type { LLMMessage, LLMToolCall } from '../providers/llm.js';
import type { ConversationTurn } from '../providers/turn-detector.js';
import { type ChatContext, type ChatMessage, type FunctionCallOutput, messageText } from './chat-context.js';

/**
 * The chat context as the LLM specification's plain messages. Function calls are grouped per assistant
 * turn (a run of consecutive calls, joined to the assistant text right before it) and each group is
 * followed by exactly its outputs. A call without an output, an output without a call, and a repeated
 * call are left out: each would make a provider reject the whole request.
 */
export function toLLMMessages(chatCtx: ChatContext): LLMMessage[] {
  const outputs = new Map<string, FunctionCallOutput>();
  for (const item of chatCtx.items) {
    if (item.type === 'function_call_output' && !outputs.has(item.callId)) outputs.set(item.callId, item);
  }
  const messages: LLMMessage[] = [];
  let group: { calls: LLMToolCall[]; outputs: FunctionCallOutput[] } | undefined;
  const closeGroup = (): void => {
    if (!group) return;
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant' && last.toolCalls.length === 0) {
      messages[messages.length - 1] = { ...last, toolCalls: group.calls };
    } else {
      messages.push({ role: 'assistant', content: '', toolCalls: group.calls });
    }
    for (const output of group.outputs) {
      messages.push({
        role: 'tool',
        callId: output.callId,
        toolName: output.name,
        output: output.output,
        isError: output.isError,
      });
    }
    group = undefined;
  };
  const seenCalls = new Set<string>();
  for (const item of chatCtx.items) {
    if (item.type === 'function_call') {
      const output = outputs.get(item.callId);
      if (!output || seenCalls.has(item.callId)) continue;
      seenCalls.add(item.callId);
      group ??= { calls: [], outputs: [] };
      group.calls.push({ callId: item.callId, name: item.name, arguments: item.arguments });
      group.outputs.push(output);
      continue;
    }
    // Outputs are placed right after their calls; anything else ends the assistant turn's group.
    if (item.type === 'function_call_output') continue;
    closeGroup();
    if (item.type === 'message') {
      const message = toMessage(item);
      if (message) messages.push(message);
    }
  }
  closeGroup();
  return messages;
}

function toMessage(message: ChatMessage): LLMMessage | undefined {
  switch (message.role) {
    case 'system':
    case 'developer': {
      const text = messageText(message);
      return text === '' ? undefined : { role: message.role, content: text };
    }
    case 'assistant': {
      const text = messageText(message);
      return text === '' ? undefined : { role: 'assistant', content: text, toolCalls: [] };
    }
    case 'user': {
      const content = message.content
        .map((part) =>
          typeof part === 'string'
            ? { type: 'text' as const, text: part }
            : {
                type: 'image' as const,
                image: part.image,
                ...(part.mimeType !== undefined ? { mimeType: part.mimeType } : {}),
                ...(part.detail !== undefined ? { detail: part.detail } : {}),
              },
        )
        .filter((part) => part.type === 'image' || part.text !== '');
      return content.length === 0 ? undefined : { role: 'user', content };
    }
  }
}

/** The spoken turns of the conversation, for the turn detector. */
export function toConversationTurns(chatCtx: ChatContext): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  for (const item of chatCtx.items) {
    if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) continue;
    const text = messageText(item);
    if (text.trim() !== '') turns.push({ role: item.role, text });
  }
  return turns;
}
