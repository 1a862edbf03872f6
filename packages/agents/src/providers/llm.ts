import type { ProviderCallOptions, SpecificationVersion } from './common.js';

/**
 * Chat model, specification v1.
 *
 * The session sends the conversation as plain messages and the tools as definitions (name, description,
 * JSON Schema of the arguments); the model streams back text and tool calls. The session runs the tools
 * itself: a provider never sees tool implementations.
 */

export type LLMContentPart =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      /** A URL or a `data:` URL. */
      image: string;
      mimeType?: string;
      detail?: 'auto' | 'low' | 'high';
    };

/** A tool call the model made earlier in the conversation, with its raw JSON arguments. */
export interface LLMToolCall {
  callId: string;
  name: string;
  arguments: string;
}

/**
 * One message of the conversation, oldest first. Every `tool` message answers a call of the assistant
 * message before it, and every such call is answered, so a request is always well formed.
 */
export type LLMMessage =
  | { role: 'system' | 'developer'; content: string }
  | { role: 'user'; content: readonly LLMContentPart[] }
  /** `content` may be empty when the turn only called tools. */
  | { role: 'assistant'; content: string; toolCalls: readonly LLMToolCall[] }
  | { role: 'tool'; callId: string; toolName: string; output: string; isError: boolean };

/** What the model is told about a tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (draft 7) of the arguments object. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'required' | 'none' | { type: 'function'; name: string };

export interface LLMUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedPromptTokens?: number;
}

/**
 * What an LLM stream yields. Tool calls arrive whole: a provider that streams argument deltas assembles
 * them before emitting `tool_call`, so the session never sees half an argument object. Invalid JSON is
 * passed on as it is; the session answers the model with a tool error.
 *
 * `callId` should be unique within one response; a repeat within a response is ignored. It may repeat
 * across responses (some models number their calls `call_0`, `call_1` every turn). For an id already in
 * the conversation the session applies one rule: the same call (same name and arguments) with no user
 * message since it was made is a re-emission within the turn and does not run again (unless it was
 * cancelled: then it is a retry); any other reuse is a new call, run and recorded under a fresh id
 * `<callId>_<n>`, so every id in the history names one call and its one output. Providers need do
 * nothing about it; they must not invent ids from the content of a call.
 */
export type LLMStreamPart =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call'; callId: string; name: string; arguments: string }
  | { type: 'usage'; usage: LLMUsage }
  /** Exactly once, last. A stream that ends without it was cut off: throw `APIConnectionError`. */
  | { type: 'finish'; reason: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other' };

export interface LLMChatOptions extends ProviderCallOptions {
  messages: readonly LLMMessage[];
  /** Absent or empty when the agent has no tools, or when the model does not support tools. */
  tools?: readonly ToolDefinition[];
  /**
   * `none`: answer without calling tools; `required` or a named function: call one. A model that cannot
   * honour it treats it as `auto` (the session runs whatever calls come back).
   */
  toolChoice?: ToolChoice;
  /** Provider-specific options passed through untouched. */
  extra?: Record<string, unknown>;
}

/**
 * A streaming chat model. Iteration throws a typed `APIError` on failure; aborting the signal ends the
 * stream quietly (iteration finishes) and releases the connection.
 */
export interface LLM {
  readonly specificationVersion: SpecificationVersion;
  readonly label: string;
  readonly model: string;
  /** False when the model cannot call tools: the session then sends none and reports it once. */
  readonly supportsToolCalls: boolean;
  chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart>;
  close?(): Promise<void>;
}
