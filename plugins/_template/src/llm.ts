import { APIConnectionError, APIError, type LLM } from '@voxwire/agents';
import {
  type LLMChatOptions,
  type LLMStreamPart,
  SPECIFICATION_VERSION,
} from '@voxwire/agents/provider-utils';
import { type EchoHttpOptions, postJson, readBody } from './http.js';

export interface EchoLLMOptions extends EchoHttpOptions {
  model?: string;
}

type FinishReason = Extract<LLMStreamPart, { type: 'finish' }>['reason'];
const FINISH_REASONS: readonly unknown[] = [
  'stop',
  'length',
  'tool_calls',
  'content_filter',
] satisfies FinishReason[];

/**
 * Chat model (spec: `providers/llm.ts`) for the imaginary Echo Speech API: `POST /v1/chat` with
 * `{model, messages, tools}` answers with server-sent events, one JSON object per `data:` line:
 * `{"type":"text","text"}`, `{"type":"tool_call","id","name","arguments"}`, `{"type":"done","reason"}`.
 * The spec's messages and tool definitions are this API's format, so they go into the body as they are.
 */
export class EchoLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label: string;
  readonly model: string;
  readonly supportsToolCalls = true;

  constructor(private readonly options: EchoLLMOptions = {}) {
    this.model = options.model ?? 'echo-1';
    this.label = `echo-speech/${this.model}`;
  }

  async *chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    const { signal } = options;
    const body = {
      ...options.extra, // provider-specific options, passed through untouched
      model: this.model,
      messages: options.messages,
      // The API has no tool choice; 'none' is honoured by sending no tools, the others mean 'auto' here.
      tools: options.toolChoice === 'none' ? [] : (options.tools ?? []),
    };
    const response = await postJson(this.label, '/v1/chat', body, this.options, signal);
    if (!response) return; // aborted: end quietly
    const decoder = new TextDecoder(); // streaming mode: a UTF-8 character may be split across chunks
    let pending = '';
    for await (const bytes of readBody(this.label, response, signal)) {
      pending += decoder.decode(bytes, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
        if (!line.startsWith('data:')) continue; // blank separators, comments, other SSE fields
        const part = parseEvent(this.label, line.slice('data:'.length).trim());
        if (part === undefined) continue;
        if (signal?.aborted) return;
        yield part;
        if (part.type === 'finish') return; // stopping the iteration releases the connection
      }
    }
    if (signal?.aborted) return;
    throw new APIConnectionError(`${this.label}: the stream ended before "done"`);
  }
}

/** One `data:` payload as a stream part; `undefined` for event types this version does not know. */
function parseEvent(label: string, data: string): LLMStreamPart | undefined {
  let event: Record<string, unknown> | null = null;
  try {
    event = JSON.parse(data);
  } catch {}
  const malformed = () =>
    new APIError(`${label}: malformed event: ${data.slice(0, 100)}`, {
      retryable: false,
      body: data,
    });
  if (typeof event !== 'object' || event === null) throw malformed();
  switch (event.type) {
    case 'text':
      if (typeof event.text !== 'string') throw malformed();
      return { type: 'text_delta', text: event.text };
    case 'tool_call': {
      const { id, name, arguments: args } = event;
      if (typeof id !== 'string' || typeof name !== 'string' || typeof args !== 'string') throw malformed();
      return { type: 'tool_call', callId: id, name, arguments: args };
    }
    case 'done': {
      // A reason this version does not know is still a finish.
      return {
        type: 'finish',
        reason: FINISH_REASONS.includes(event.reason) ? (event.reason as FinishReason) : 'other',
      };
    }
    default:
      return undefined;
  }
}
