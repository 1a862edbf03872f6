import type { ChatContext } from '../llm/chat-context.js';
import type { AnyTool } from '../voice/tools/tool.js';

export type ToolChoice = 'auto' | 'required' | 'none' | { type: 'function'; name: string };

export interface LLMUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedPromptTokens?: number;
}

/**
 * What an LLM stream yields. Tool calls arrive whole: a provider that streams argument deltas assembles
 * them before emitting `tool_call`, so the session never sees half an argument object.
 */
export type LLMStreamPart =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call'; callId: string; name: string; arguments: string }
  | { type: 'usage'; usage: LLMUsage }
  | { type: 'finish'; reason: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other' };

export interface LLMChatOptions {
  chatCtx: ChatContext;
  tools?: readonly AnyTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  signal?: AbortSignal;
  /** Provider-specific options passed through untouched. */
  extra?: Record<string, unknown>;
}

export interface LLMCapabilities {
  toolCalls: boolean;
  parallelToolCalls?: boolean;
}

/**
 * A streaming chat model. Iteration throws a typed `APIError` on failure; aborting the signal ends the
 * stream quietly (iteration finishes) and releases the connection.
 */
export interface LLM {
  readonly label: string;
  readonly model: string;
  readonly capabilities: LLMCapabilities;
  chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
  close?(): Promise<void>;
}
