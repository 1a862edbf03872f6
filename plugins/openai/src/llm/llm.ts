import { APIError, type LLM as LLMContract } from '@voxwire/agents';
import {
  type LLMChatOptions,
  type LLMStreamPart,
  type LLMUsage,
  SPECIFICATION_VERSION,
  type ToolChoice,
  processId,
} from '@voxwire/agents/provider-utils';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type {
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { type OpenAIClientOptions, type ResolvedClient, resolveClient } from '../client.js';
import { type LLMMetrics, type LLMMetricsListener, tokensPerSecond } from '../metrics.js';
import { retryStream, streamAttempt } from '../request.js';
import { ChatCompletionAssembler } from './chat-stream.js';
import {
  toChatMessages,
  toChatToolChoice,
  toChatTools,
  toResponsesInput,
  toResponsesToolChoice,
  toResponsesTools,
} from './convert.js';
import { ResponsesAssembler } from './responses-stream.js';

export interface LLMOptions extends OpenAIClientOptions {
  /** Default `gpt-4.1-mini`. For a local server, the name it serves (e.g. `llama3.2` on Ollama). */
  model?: string;
  /**
   * `chat` (Chat Completions, the default, spoken by every OpenAI-compatible server) or `responses`
   * (the Responses API; requests are sent with `store: false` unless `extraBody` says otherwise).
   */
  api?: 'chat' | 'responses';
  /** Sampling temperature; unset leaves the server's default. */
  temperature?: number;
  /** Sent as `max_tokens`: the older name, which most local servers understand. */
  maxTokens?: number;
  /** Sent as `max_completion_tokens` (required instead of `max_tokens` by OpenAI's reasoning models). */
  maxCompletionTokens?: number;
  /** Default tool choice when a call does not set one. */
  toolChoice?: ToolChoice;
  /** Sent as `parallel_tool_calls` with tools; unset leaves the server's default. */
  parallelToolCalls?: boolean;
  /**
   * Whether the model can call tools. Default true; set false for a local model without tool support,
   * and the session then sends it no tools (and says so once).
   */
  supportsToolCalls?: boolean;
  /** Sends tools with `strict: true` (the schemas must then satisfy OpenAI's strict subset). Default false. */
  strictTools?: boolean;
  /** Asks for usage in the last chunk (`stream_options.include_usage`). Default true. */
  includeUsage?: boolean;
  /** Merged into every request body, before a call's `extra`. */
  extraBody?: Record<string, unknown>;
  /** Called once per request when it ends, however it ends. */
  onMetrics?: LLMMetricsListener;
}

const DEFAULT_LLM_TIMEOUT_MS = 15_000;

/** A streaming chat model over the official `openai` SDK. */
export class LLM implements LLMContract {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'openai.LLM';
  readonly model: string;
  readonly supportsToolCalls: boolean;
  private readonly resolved: ResolvedClient;
  private readonly options: LLMOptions;
  private readonly listeners = new Set<LLMMetricsListener>();

  constructor(options: LLMOptions = {}) {
    this.options = options;
    this.model = options.model ?? 'gpt-4.1-mini';
    this.supportsToolCalls = options.supportsToolCalls ?? true;
    this.resolved = resolveClient(options, { timeoutMs: DEFAULT_LLM_TIMEOUT_MS });
    if (options.onMetrics) this.listeners.add(options.onMetrics);
  }

  /** Subscribes to per-request metrics; returns the unsubscribe function. */
  onMetrics(listener: LLMMetricsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    return this.run(options);
  }

  private async *run(options: LLMChatOptions): AsyncGenerator<LLMStreamPart, void, undefined> {
    const { clock } = this.resolved;
    const what = `${this.label}(${this.model})`;
    const startedAtMs = clock.now();
    let firstOutputAtMs: number | undefined;
    let usage: LLMUsage | undefined;
    let attempts = 0;
    let finished = false;
    let error: APIError | undefined;
    try {
      const parts = retryStream(this.resolved, options, (signal) => {
        attempts++;
        return this.attempt(options, what, signal);
      });
      for await (const part of parts) {
        // One chunk can carry several parts; none may follow an abort.
        if (options.signal?.aborted) break;
        if (firstOutputAtMs === undefined && (part.type === 'text_delta' || part.type === 'tool_call')) {
          firstOutputAtMs = clock.now();
        }
        if (part.type === 'usage') usage = part.usage;
        if (part.type === 'finish') finished = true;
        yield part;
      }
    } catch (caught) {
      error = caught as APIError;
      throw caught;
    } finally {
      const durationMs = clock.now() - startedAtMs;
      const ttftMs = firstOutputAtMs === undefined ? undefined : firstOutputAtMs - startedAtMs;
      this.report({
        requestId: processId('llm_req'),
        label: this.label,
        model: this.model,
        startedAtMs,
        ttftMs,
        durationMs,
        tokensPerSecond: tokensPerSecond(usage, ttftMs, durationMs),
        usage,
        attempts,
        cancelled: !finished && error === undefined,
        error,
      });
    }
  }

  /** One HTTP request. Throws typed errors; ends quietly when aborted. */
  private async *attempt(
    options: LLMChatOptions,
    what: string,
    signal: AbortSignal,
  ): AsyncGenerator<LLMStreamPart, void, undefined> {
    const { client } = this.resolved;
    // The idle timeout watches the frames, not the parts: a frame without text still proves life.
    const frames = streamAttempt<ChatCompletionChunk | ResponseStreamEvent>(
      this.resolved,
      what,
      signal,
      async (requestSignal) =>
        this.options.api === 'responses'
          ? await client.responses.create(this.responsesBody(options), { signal: requestSignal })
          : await client.chat.completions.create(this.chatBody(options), { signal: requestSignal }),
    );
    const assembler =
      this.options.api === 'responses' ? new ResponsesAssembler(what) : new ChatCompletionAssembler(what);
    for await (const frame of frames) yield* push(assembler, frame, what);
    // The SDK ends a stream quietly when its request is aborted: that is no complete answer.
    if (signal.aborted) return;
    yield* assembler.end();
  }

  private chatBody(options: LLMChatOptions): ChatCompletionCreateParamsStreaming {
    const o = this.options;
    const tools = options.tools ?? [];
    const toolChoice = options.toolChoice ?? o.toolChoice;
    return {
      model: this.model,
      messages: toChatMessages(options.messages),
      stream: true,
      ...(o.includeUsage !== false ? { stream_options: { include_usage: true } } : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
      ...(o.maxCompletionTokens !== undefined ? { max_completion_tokens: o.maxCompletionTokens } : {}),
      // Tool settings without tools make OpenAI reject the request.
      ...(tools.length > 0
        ? {
            tools: toChatTools(tools, o.strictTools === true),
            ...(toolChoice !== undefined ? { tool_choice: toChatToolChoice(toolChoice) } : {}),
            ...(o.parallelToolCalls !== undefined ? { parallel_tool_calls: o.parallelToolCalls } : {}),
          }
        : {}),
      ...o.extraBody,
      ...options.extra,
    } as ChatCompletionCreateParamsStreaming;
  }

  private responsesBody(options: LLMChatOptions): ResponseCreateParamsStreaming {
    const o = this.options;
    const tools = options.tools ?? [];
    const toolChoice = options.toolChoice ?? o.toolChoice;
    const maxOutput = o.maxCompletionTokens ?? o.maxTokens;
    return {
      model: this.model,
      input: toResponsesInput(options.messages),
      stream: true,
      // The whole context is sent every turn, so nothing needs to be kept server-side.
      store: false,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(maxOutput !== undefined ? { max_output_tokens: maxOutput } : {}),
      ...(tools.length > 0
        ? {
            tools: toResponsesTools(tools, o.strictTools === true),
            ...(toolChoice !== undefined ? { tool_choice: toResponsesToolChoice(toolChoice) } : {}),
            ...(o.parallelToolCalls !== undefined ? { parallel_tool_calls: o.parallelToolCalls } : {}),
          }
        : {}),
      ...o.extraBody,
      ...options.extra,
    } as ResponseCreateParamsStreaming;
  }

  private report(metrics: LLMMetrics): void {
    for (const listener of this.listeners) {
      try {
        listener(metrics);
      } catch {
        // A faulty metrics listener must not break the conversation turn it measures.
      }
    }
  }
}

function push(
  assembler: ChatCompletionAssembler | ResponsesAssembler,
  frame: ChatCompletionChunk | ResponseStreamEvent,
  what: string,
): LLMStreamPart[] {
  try {
    return assembler instanceof ResponsesAssembler
      ? assembler.push(frame as ResponseStreamEvent)
      : assembler.push(frame as ChatCompletionChunk);
  } catch (error) {
    if (error instanceof APIError) throw error;
    // A frame that parsed as JSON but has the wrong shape: a server bug that retrying will not fix.
    throw new APIError(`${what}: unexpected stream frame (${(error as Error).message})`, {
      retryable: false,
      cause: error,
    });
  }
}
