import { z } from 'zod';
import { processId } from '../utils/ids.js';

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant';

export interface ImageContent {
  type: 'image';
  /** A URL or a `data:` URL. */
  image: string;
  mimeType?: string;
  detail?: 'auto' | 'low' | 'high';
}

export type ChatContent = string | ImageContent;

export interface ChatMessage {
  type: 'message';
  id: string;
  role: ChatRole;
  content: ChatContent[];
  /** True when the speech was cut short; the content then holds only what the user heard. */
  interrupted: boolean;
  createdAtMs: number;
  /** Transcription confidence, for user messages. */
  transcriptConfidence?: number;
}

export interface FunctionCall {
  type: 'function_call';
  id: string;
  callId: string;
  name: string;
  /** The raw JSON text the model produced, kept as-is even when invalid. */
  arguments: string;
  createdAtMs: number;
}

export interface FunctionCallOutput {
  type: 'function_call_output';
  id: string;
  callId: string;
  name: string;
  output: string;
  isError: boolean;
  createdAtMs: number;
}

export interface AgentHandoff {
  type: 'agent_handoff';
  id: string;
  oldAgentId: string | undefined;
  newAgentId: string;
  createdAtMs: number;
}

export type ChatItem = ChatMessage | FunctionCall | FunctionCallOutput | AgentHandoff;

type NewItem<T extends ChatItem> = Omit<T, 'type' | 'id' | 'createdAtMs'> & {
  id?: string;
  createdAtMs?: number;
};

export interface AddMessageOptions {
  role: ChatRole;
  content: string | ChatContent[];
  id?: string;
  interrupted?: boolean;
  createdAtMs?: number;
  transcriptConfidence?: number;
}

export interface CopyOptions {
  excludeFunctionCalls?: boolean;
  excludeInstructions?: boolean;
  excludeHandoffs?: boolean;
  /** Keep only function calls (and their outputs) of these tools. */
  toolNames?: readonly string[];
}

/** The conversation as the LLM sees it. Items are kept in time order. */
export class ChatContext {
  private itemList: ChatItem[];

  constructor(items: readonly ChatItem[] = []) {
    for (const item of items) freezeItem(item);
    this.itemList = [...items];
  }

  static empty(): ChatContext {
    return new ChatContext();
  }

  get items(): readonly ChatItem[] {
    return this.itemList;
  }

  addMessage(options: AddMessageOptions): ChatMessage {
    const message: ChatMessage = {
      type: 'message',
      id: options.id ?? processId('msg'),
      role: options.role,
      content: typeof options.content === 'string' ? [options.content] : [...options.content],
      interrupted: options.interrupted ?? false,
      createdAtMs: options.createdAtMs ?? this.lastTimestamp(),
      ...(options.transcriptConfidence !== undefined
        ? { transcriptConfidence: options.transcriptConfidence }
        : {}),
    };
    this.insert(message);
    return message;
  }

  addFunctionCall(call: NewItem<FunctionCall>): FunctionCall {
    const item: FunctionCall = {
      type: 'function_call',
      id: call.id ?? processId('fnc'),
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
      createdAtMs: call.createdAtMs ?? this.lastTimestamp(),
    };
    this.insert(item);
    return item;
  }

  addFunctionCallOutput(output: NewItem<FunctionCallOutput>): FunctionCallOutput {
    const item: FunctionCallOutput = {
      type: 'function_call_output',
      id: output.id ?? processId('fnc_out'),
      callId: output.callId,
      name: output.name,
      output: output.output,
      isError: output.isError,
      createdAtMs: output.createdAtMs ?? this.lastTimestamp(),
    };
    this.insert(item);
    return item;
  }

  addHandoff(handoff: NewItem<AgentHandoff>): AgentHandoff {
    const item: AgentHandoff = {
      type: 'agent_handoff',
      id: handoff.id ?? processId('handoff'),
      oldAgentId: handoff.oldAgentId,
      newAgentId: handoff.newAgentId,
      createdAtMs: handoff.createdAtMs ?? this.lastTimestamp(),
    };
    this.insert(item);
    return item;
  }

  /**
   * Inserts keeping time order; items with equal timestamps keep insertion order. The item is frozen:
   * items are values shared by every copy of the context, so a change is a `replace()`, never an edit.
   */
  insert(item: ChatItem): void {
    freezeItem(item);
    let i = this.itemList.length;
    while (i > 0 && this.itemList[i - 1]!.createdAtMs > item.createdAtMs) i--;
    this.itemList.splice(i, 0, item);
  }

  getById(id: string): ChatItem | undefined {
    return this.itemList.find((item) => item.id === id);
  }

  indexById(id: string): number {
    return this.itemList.findIndex((item) => item.id === id);
  }

  /** Replaces the item with the same id; returns false when there is none. */
  replace(item: ChatItem): boolean {
    const i = this.indexById(item.id);
    if (i < 0) return false;
    freezeItem(item);
    this.itemList[i] = item;
    return true;
  }

  remove(id: string): boolean {
    const i = this.indexById(id);
    if (i < 0) return false;
    this.itemList.splice(i, 1);
    return true;
  }

  /** True when a function call with this callId already has an output. */
  hasOutputFor(callId: string): boolean {
    return this.itemList.some((item) => item.type === 'function_call_output' && item.callId === callId);
  }

  copy(options: CopyOptions = {}): ChatContext {
    const allowed = options.toolNames ? new Set(options.toolNames) : undefined;
    const items = this.itemList.filter((item) => {
      switch (item.type) {
        case 'message':
          return !(options.excludeInstructions && (item.role === 'system' || item.role === 'developer'));
        case 'function_call':
        case 'function_call_output':
          if (options.excludeFunctionCalls) return false;
          return !allowed || allowed.has(item.name);
        case 'agent_handoff':
          return !options.excludeHandoffs;
        default:
          return true;
      }
    });
    // Items are values shared between copies (change one with replace()), so a copy per LLM call costs
    // one array, not a deep clone of the whole conversation.
    return new ChatContext(items);
  }

  /**
   * Keeps the last `maxItems` items, plus the leading instructions. Never starts with a function output
   * whose call was cut off, since providers reject an output without its call.
   */
  truncate(maxItems: number): this {
    if (!Number.isInteger(maxItems) || maxItems < 0) {
      throw new RangeError(`truncate() needs a non-negative integer, got ${maxItems}`);
    }
    if (this.itemList.length <= maxItems) return this;
    const instructions = this.itemList.find(
      (item) => item.type === 'message' && (item.role === 'system' || item.role === 'developer'),
    );
    // slice(-0) would keep everything.
    let tail = maxItems === 0 ? [] : this.itemList.slice(-maxItems);
    // With parallel calls the cut can fall between two calls, leaving an orphan output after a kept
    // call, so every output is checked, not just a leading one.
    const keptCalls = new Set<string>();
    for (const item of tail) if (item.type === 'function_call') keptCalls.add(item.callId);
    tail = tail.filter((item) => item.type !== 'function_call_output' || keptCalls.has(item.callId));
    if (instructions && !tail.includes(instructions)) tail = [instructions, ...tail];
    this.itemList = tail;
    return this;
  }

  /** Sets (or replaces) the leading system instructions. */
  setInstructions(text: string, id = 'instructions'): void {
    const existing = this.itemList.findIndex((item) => item.type === 'message' && item.id === id);
    const message: ChatMessage = {
      type: 'message',
      id,
      role: 'system',
      content: [text],
      interrupted: false,
      createdAtMs: this.itemList[0]?.createdAtMs ?? 0,
    };
    if (existing >= 0) this.itemList[existing] = message;
    else this.itemList.unshift(message);
  }

  toJSON(): { items: ChatItem[] } {
    return { items: this.itemList.map((item) => structuredClone(item)) };
  }

  /**
   * Rebuilds a context from `toJSON()` output, e.g. a stored conversation. The data is checked, since it
   * usually comes from outside the process; unknown extra fields are kept. Throws `TypeError` naming
   * the first bad field.
   */
  static fromJSON(json: { items: readonly ChatItem[] }): ChatContext {
    const parsed = chatContextJsonSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? issue.path.join('.') : '(root)';
      throw new TypeError(`Invalid chat context JSON at ${where}: ${issue.message}`, { cause: parsed.error });
    }
    return new ChatContext(
      parsed.data.items.map((raw) => {
        const item = structuredClone(raw) as ChatItem;
        // JSON has no undefined: give back the key that JSON.stringify dropped.
        if (item.type === 'agent_handoff') item.oldAgentId = item.oldAgentId ?? undefined;
        return item;
      }),
    );
  }

  private lastTimestamp(): number {
    return this.itemList[this.itemList.length - 1]?.createdAtMs ?? 0;
  }
}

/** The text of a message's content, images left out. */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  // Nearly every message is one string: every LLM request reads the whole history through here.
  if (content.length === 1 && typeof content[0] === 'string') return content[0];
  return content.filter((c): c is string => typeof c === 'string').join('');
}

const timestamp = z.number().refine(Number.isFinite, 'expected a finite number');
const chatItemSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('message'),
    id: z.string(),
    role: z.enum(['system', 'developer', 'user', 'assistant']),
    content: z.array(
      z.union([
        z.string(),
        z.looseObject({
          type: z.literal('image'),
          image: z.string(),
          mimeType: z.string().optional(),
          detail: z.enum(['auto', 'low', 'high']).optional(),
        }),
      ]),
    ),
    interrupted: z.boolean(),
    createdAtMs: timestamp,
    transcriptConfidence: z.number().optional(),
  }),
  z.looseObject({
    type: z.literal('function_call'),
    id: z.string(),
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
    createdAtMs: timestamp,
  }),
  z.looseObject({
    type: z.literal('function_call_output'),
    id: z.string(),
    callId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
    createdAtMs: timestamp,
  }),
  z.looseObject({
    type: z.literal('agent_handoff'),
    id: z.string(),
    oldAgentId: z.string().nullish(),
    newAgentId: z.string(),
    createdAtMs: timestamp,
  }),
]);
const chatContextJsonSchema = z.object({ items: z.array(chatItemSchema) });

function freezeItem(item: ChatItem): void {
  if (Object.isFrozen(item)) return;
  if (item.type === 'message') {
    for (const part of item.content) if (typeof part === 'object') Object.freeze(part);
    Object.freeze(item.content);
  }
  Object.freeze(item);
}
