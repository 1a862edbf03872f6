import type { ChatItem, ChatMessage, FunctionCall, FunctionCallOutput } from '../../llm/chat-context.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import type { AgentSession } from './agent-session.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { PlayoutResult } from '../speech/speech-playout.js';
import type { ToolCallResult } from '../tools/tool-runner.js';

/**
 * Writes the conversation: every item goes to the session's history and the active agent's context, once,
 * and is announced with `conversation_item_added`.
 */
export class ConversationLog {
  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: serves sessions of any user data type.
    private readonly session: AgentSession<any>,
    private readonly agents: Pick<ActiveAgent, 'current'>,
  ) {}

  userMessage(text: string, transcriptConfidence?: number): ChatMessage {
    return {
      type: 'message',
      id: this.session.ids('msg'),
      role: 'user',
      content: [text],
      interrupted: false,
      createdAtMs: this.session.clock.now(),
      ...(transcriptConfidence !== undefined ? { transcriptConfidence } : {}),
    };
  }

  /** Ids of the items this session wrote; any other item of the agent's context was there before. */
  private readonly ownIds = new Set<string>();

  /** Adds an item and returns it as stored (see `fitAfterRestored`: its id or time may differ). */
  add(given: ChatItem): ChatItem {
    const ctx = this.agents.current.chatCtx;
    const item = this.fitAfterRestored(given, ctx.items);
    this.ownIds.add(item.id);
    ctx.insert(item);
    if (this.session.history.getById(item.id) === undefined) this.session.history.insert(item);
    this.session.emit('conversation_item_added', { item, atMs: this.session.clock.now() });
    return item;
  }

  /**
   * A conversation restored from JSON (an agent's `chatCtx`) carries the ids and times of the session
   * that wrote it. Its times are of another clock, often later than this session's, and the context keeps
   * items in time order: a new question would sort before the old answers. Its ids came from another
   * generator, starting at `msg_1` like this one. So an item of this session is dated no earlier than
   * the last restored item (equal times keep insertion order), and takes a fresh id when its own is taken.
   */
  private fitAfterRestored(item: ChatItem, items: readonly ChatItem[]): ChatItem {
    let latestRestored = Number.NEGATIVE_INFINITY;
    let idTaken = false;
    for (const existing of items) {
      if (this.ownIds.has(existing.id)) continue;
      if (existing === item) return item;
      latestRestored = Math.max(latestRestored, existing.createdAtMs);
      if (existing.id === item.id) idTaken = true;
    }
    if (!idTaken && item.createdAtMs >= latestRestored) return item;
    const fitted = { ...item };
    if (fitted.createdAtMs < latestRestored) fitted.createdAtMs = latestRestored;
    if (idTaken) fitted.id = this.freshId(item.id, items);
    return fitted;
  }

  private freshId(taken: string, items: readonly ChatItem[]): string {
    // Ids are `<prefix>_<n>`: mint the next of the same prefix until one is free.
    const prefix = taken.includes('_') ? taken.slice(0, taken.lastIndexOf('_')) : taken;
    for (;;) {
      const id = this.session.ids(prefix);
      if (!items.some((i) => i.id === id) && this.session.history.getById(id) === undefined) return id;
    }
  }

  /** What the user heard: the whole text, or what was played before the cut, marked interrupted. */
  addAssistantMessage(result: PlayoutResult): void {
    const text = result.interrupted ? result.playedText : result.fullText;
    if (text.trim() === '') return;
    this.add({
      type: 'message',
      id: this.session.ids('msg'),
      role: 'assistant',
      content: [text],
      interrupted: result.interrupted,
      createdAtMs: this.session.clock.now(),
    });
  }

  /** Records a batch of tool calls with their outputs; a call already answered is never recorded twice. */
  addToolBatch(handle: SpeechHandle, results: ToolCallResult[]): FunctionCallOutput[] {
    const now = this.session.clock.now();
    const outputs: FunctionCallOutput[] = [];
    const calls = [];
    for (const r of results) {
      if (this.session.history.hasOutputFor(r.call.callId)) continue;
      const call = this.add({ ...r.call, createdAtMs: now }) as FunctionCall;
      const output = this.add({
        type: 'function_call_output',
        id: this.session.ids('fnc_out'),
        createdAtMs: now,
        ...r.output,
      }) as FunctionCallOutput;
      outputs.push(output);
      calls.push(call);
    }
    // Nothing new to report (every call was already answered): an empty batch is no event.
    if (calls.length === 0) return outputs;
    this.session.emit('function_tools_executed', {
      speechId: handle.id,
      functionCalls: calls,
      functionCallOutputs: outputs,
      atMs: now,
    });
    return outputs;
  }

  /**
   * Replaces the output recorded for `callId` (a cancellation) with what the tool returned after all,
   * keeping its place and id: the call still has exactly one output.
   */
  replaceToolOutput(
    callId: string,
    output: Omit<FunctionCallOutput, 'id' | 'createdAtMs' | 'type'>,
  ): boolean {
    const recorded = this.session.history.items.find(
      (i): i is FunctionCallOutput => i.type === 'function_call_output' && i.callId === callId,
    );
    if (!recorded) return false;
    const updated: FunctionCallOutput = { ...recorded, ...output, callId };
    this.session.history.replace(updated);
    this.agents.current.chatCtx.replace(updated);
    return true;
  }

  /** A final transcript arrived after its turn was committed from an interim: correct the message. */
  correctLastUserMessage(transcript: string): void {
    const message = [...this.session.history.items]
      .reverse()
      .find((i): i is ChatMessage => i.type === 'message' && i.role === 'user');
    if (!message) return;
    const updated: ChatMessage = { ...message, content: [transcript] };
    this.session.history.replace(updated);
    this.agents.current.chatCtx.replace(updated);
  }
}
