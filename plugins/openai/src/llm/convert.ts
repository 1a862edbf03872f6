import type {
  AnyTool,
  ChatContent,
  ChatContext,
  ChatMessage,
  FunctionCall,
  FunctionCallOutput,
  ImageContent,
  JSONSchema,
  ToolChoice,
} from '@voxwire/agents';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type {
  FunctionTool,
  ResponseCreateParams,
  ResponseInputContent,
  ResponseInputItem,
} from 'openai/resources/responses/responses';

/**
 * The chat context reduced to what a provider accepts: function calls come in groups (one per run of
 * consecutive calls, i.e. one assistant turn) each followed by exactly its outputs. Calls without an
 * output and outputs without a call are left out, since both make the API reject the whole request.
 */
type Step =
  | { kind: 'message'; message: ChatMessage }
  | { kind: 'calls'; calls: FunctionCall[]; outputs: FunctionCallOutput[] };

export function planSteps(chatCtx: ChatContext): Step[] {
  const outputs = new Map<string, FunctionCallOutput>();
  for (const item of chatCtx.items) {
    if (item.type === 'function_call_output' && !outputs.has(item.callId)) outputs.set(item.callId, item);
  }
  const steps: Step[] = [];
  let group: { calls: FunctionCall[]; outputs: FunctionCallOutput[] } | undefined;
  const seenCalls = new Set<string>();
  for (const item of chatCtx.items) {
    if (item.type === 'function_call') {
      const output = outputs.get(item.callId);
      if (!output || seenCalls.has(item.callId)) continue;
      seenCalls.add(item.callId);
      if (!group) {
        group = { calls: [], outputs: [] };
        steps.push({ kind: 'calls', ...group });
      }
      group.calls.push(item);
      group.outputs.push(output);
      continue;
    }
    // Outputs were placed right after their calls; anything else ends the assistant turn's group.
    if (item.type === 'function_call_output') continue;
    group = undefined;
    if (item.type === 'message' && hasContent(item)) steps.push({ kind: 'message', message: item });
  }
  return steps;
}

function hasContent(message: ChatMessage): boolean {
  return message.content.some((c) => (typeof c === 'string' ? c.length > 0 : message.role === 'user'));
}

function textOf(content: readonly ChatContent[]): string {
  return content.filter((c): c is string => typeof c === 'string').join('');
}

// ---------------------------------------------------------------------------------------------------
// Chat Completions

export function toChatMessages(chatCtx: ChatContext): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  let previous: Step | undefined;
  for (const step of planSteps(chatCtx)) {
    if (step.kind === 'message') {
      messages.push(toChatMessage(step.message));
    } else {
      const toolCalls = step.calls.map((call) => ({
        id: call.callId,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      }));
      const last = messages[messages.length - 1];
      // Text spoken just before the calls belongs to the same assistant turn; one message keeps strict
      // chat templates of local servers (which demand alternating roles) happy.
      if (
        previous?.kind === 'message' &&
        previous.message.role === 'assistant' &&
        last?.role === 'assistant'
      ) {
        (last as ChatCompletionAssistantMessageParam).tool_calls = toolCalls;
      } else {
        messages.push({ role: 'assistant', content: null, tool_calls: toolCalls });
      }
      for (const output of step.outputs) {
        messages.push({ role: 'tool', tool_call_id: output.callId, content: output.output });
      }
    }
    previous = step;
  }
  return messages;
}

function toChatMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: textOf(message.content) };
    case 'developer':
      return { role: 'developer', content: textOf(message.content) };
    case 'assistant':
      // Assistant messages cannot carry images in this API.
      return { role: 'assistant', content: textOf(message.content) };
    case 'user': {
      if (message.content.every((c) => typeof c === 'string')) {
        return { role: 'user', content: textOf(message.content) };
      }
      const parts: ChatCompletionContentPart[] = message.content
        .filter((c) => typeof c !== 'string' || c.length > 0)
        .map((c) =>
          typeof c === 'string'
            ? { type: 'text', text: c }
            : {
                type: 'image_url',
                image_url: { url: imageUrl(c), ...(c.detail ? { detail: c.detail } : {}) },
              },
        );
      return { role: 'user', content: parts };
    }
  }
}

export function toChatTools(tools: readonly AnyTool[], strict: boolean): ChatCompletionFunctionTool[] {
  return tools.map((t) => {
    const strictParameters = strict ? toStrictSchema(t.jsonSchema) : undefined;
    return {
      type: 'function',
      function: {
        name: t.name,
        description: t.description,
        parameters: strictParameters ?? t.jsonSchema,
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

export function toResponsesInput(chatCtx: ChatContext): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const step of planSteps(chatCtx)) {
    if (step.kind === 'message') {
      input.push(toResponsesMessage(step.message));
      continue;
    }
    for (const call of step.calls) {
      input.push({ type: 'function_call', call_id: call.callId, name: call.name, arguments: call.arguments });
    }
    for (const output of step.outputs) {
      input.push({ type: 'function_call_output', call_id: output.callId, output: output.output });
    }
  }
  return input;
}

function toResponsesMessage(message: ChatMessage): ResponseInputItem {
  if (message.role !== 'user' || message.content.every((c) => typeof c === 'string')) {
    return { type: 'message', role: message.role, content: textOf(message.content) };
  }
  const content: ResponseInputContent[] = message.content
    .filter((c) => typeof c !== 'string' || c.length > 0)
    .map((c) =>
      typeof c === 'string'
        ? { type: 'input_text', text: c }
        : { type: 'input_image', image_url: imageUrl(c), detail: c.detail ?? 'auto' },
    );
  return { type: 'message', role: 'user', content };
}

export function toResponsesTools(tools: readonly AnyTool[], strict: boolean): FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    ...strictOrNot(t.jsonSchema, strict),
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

function imageUrl(image: ImageContent): string {
  const value = image.image;
  if (/^(https?:|data:)/i.test(value) || !image.mimeType) return value;
  // Bare base64 with a known type: wrap it the way both APIs expect.
  return `data:${image.mimeType};base64,${value}`;
}
