import type { LLMContentPart, LLMMessage, ToolChoice, ToolDefinition } from '@voxwire/agents/provider-utils';
import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type {
  FunctionTool,
  ResponseCreateParams,
  ResponseInputContent,
  ResponseInputItem,
} from 'openai/resources/responses/responses';

/**
 * The core sends the conversation already grouped and validated (every tool message answers a call of
 * the assistant message before it, and every call is answered), so each message maps on its own.
 */

type JSONSchema = ToolDefinition['parameters'];
type ImagePart = Extract<LLMContentPart, { type: 'image' }>;
type ToolMessage = Extract<LLMMessage, { role: 'tool' }>;

/**
 * Neither API has an error flag on a tool's output, so a failure is said in the text: otherwise the
 * model would read "Invalid city" as the tool's answer.
 */
export function toolOutputText(message: ToolMessage): string {
  return message.isError ? `Error: ${message.output}` : message.output;
}

// ---------------------------------------------------------------------------------------------------
// Chat Completions

export function toChatMessages(messages: readonly LLMMessage[]): ChatCompletionMessageParam[] {
  return messages.map(toChatMessage);
}

function toChatMessage(message: LLMMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'developer':
      return { role: 'developer', content: message.content };
    case 'user':
      // Plain text stays a string: some local servers' chat templates accept nothing else.
      if (message.content.every((part) => part.type === 'text')) {
        return { role: 'user', content: joinText(message.content) };
      }
      return { role: 'user', content: message.content.map(toChatContentPart) };
    case 'assistant': {
      if (message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
      const toolCalls: ChatCompletionMessageToolCall[] = message.toolCalls.map((call) => ({
        id: call.callId,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
      // Text and calls of one turn stay one message: strict chat templates of local servers demand
      // alternating roles.
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: toolCalls,
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: toolOutputText(message) };
  }
}

function toChatContentPart(part: LLMContentPart): ChatCompletionContentPart {
  return part.type === 'text'
    ? { type: 'text', text: part.text }
    : {
        type: 'image_url',
        image_url: { url: imageUrl(part), ...(part.detail ? { detail: part.detail } : {}) },
      };
}

export function toChatTools(tools: readonly ToolDefinition[], strict: boolean): ChatCompletionFunctionTool[] {
  return tools.map((t) => {
    const strictParameters = strict ? toStrictSchema(t.parameters) : undefined;
    return {
      type: 'function',
      function: {
        name: t.name,
        description: t.description,
        parameters: strictParameters ?? t.parameters,
        ...(strictParameters ? { strict: true } : {}),
      },
    };
  });
}

/**
 * The schema in OpenAI's strict subset (every object closed, every property required), or undefined when
 * it has optional properties: such a tool is sent non-strict rather than rejected by the API.
 */
export function toStrictSchema(schema: JSONSchema): JSONSchema | undefined {
  let compatible = true;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node !== 'object' || node === null) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value);
    if (copy.type === 'object' || (copy.properties !== undefined && copy.type === undefined)) {
      const properties = Object.keys((copy.properties as Record<string, unknown> | undefined) ?? {});
      const required = new Set((copy.required as string[] | undefined) ?? []);
      if (properties.some((p) => !required.has(p))) compatible = false;
      if (copy.additionalProperties === undefined) copy.additionalProperties = false;
      else if (copy.additionalProperties !== false) compatible = false;
    }
    return copy;
  };
  const result = visit(schema) as JSONSchema;
  return compatible ? result : undefined;
}

export function toChatToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

// ---------------------------------------------------------------------------------------------------
// Responses

export function toResponsesInput(messages: readonly LLMMessage[]): ResponseInputItem[] {
  return messages.flatMap(toResponsesItems);
}

function toResponsesItems(message: LLMMessage): ResponseInputItem[] {
  switch (message.role) {
    case 'system':
    case 'developer':
      return [{ type: 'message', role: message.role, content: message.content }];
    case 'user':
      if (message.content.every((part) => part.type === 'text')) {
        return [{ type: 'message', role: 'user', content: joinText(message.content) }];
      }
      return [{ type: 'message', role: 'user', content: message.content.map(toResponsesContent) }];
    case 'assistant': {
      // A turn that only called tools has no message item: the calls are items of their own.
      const items: ResponseInputItem[] =
        message.content !== '' || message.toolCalls.length === 0
          ? [{ type: 'message', role: 'assistant', content: message.content }]
          : [];
      for (const call of message.toolCalls) {
        items.push({
          type: 'function_call',
          call_id: call.callId,
          name: call.name,
          arguments: call.arguments,
        });
      }
      return items;
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.callId, output: toolOutputText(message) }];
  }
}

function toResponsesContent(part: LLMContentPart): ResponseInputContent {
  return part.type === 'text'
    ? { type: 'input_text', text: part.text }
    : { type: 'input_image', image_url: imageUrl(part), detail: part.detail ?? 'auto' };
}

export function toResponsesTools(tools: readonly ToolDefinition[], strict: boolean): FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    ...strictOrNot(t.parameters, strict),
  }));
}

function strictOrNot(schema: JSONSchema, strict: boolean): { parameters: JSONSchema; strict: boolean } {
  const strictParameters = strict ? toStrictSchema(schema) : undefined;
  // The Responses API treats a missing `strict` as true, which rejects most hand-written schemas.
  return strictParameters
    ? { parameters: strictParameters, strict: true }
    : { parameters: schema, strict: false };
}

export function toResponsesToolChoice(choice: ToolChoice): NonNullable<ResponseCreateParams['tool_choice']> {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

// ---------------------------------------------------------------------------------------------------

function joinText(parts: readonly LLMContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function imageUrl(image: ImagePart): string {
  const value = image.image;
  if (/^(https?:|data:)/i.test(value) || !image.mimeType) return value;
  // Bare base64 with a known type: wrap it the way both APIs expect.
  return `data:${image.mimeType};base64,${value}`;
}
