import type { ChatItem, ChatMessage, FunctionCallOutput } from '../../llm/chat-context.js';
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

  userMessage(text: string): ChatMessage {
    return {
      type: 'message',
      id: this.session.ids('msg'),
      role: 'user',
      content: [text],
      interrupted: false,
      createdAtMs: this.session.clock.now(),
    };
  }

  add(item: ChatItem): void {
    this.agents.current.chatCtx.insert(item);
    if (this.session.history.getById(item.id) === undefined) this.session.history.insert(item);
    this.session.emit('conversation_item_added', { item, atMs: this.session.clock.now() });
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
      this.add({ ...r.call, createdAtMs: now });
      const output: FunctionCallOutput = {
        type: 'function_call_output',
        id: this.session.ids('fnc_out'),
        createdAtMs: now,
        ...r.output,
      };
      this.add(output);
      outputs.push(output);
      calls.push(r.call);
    }
    this.session.emit('function_tools_executed', {
      speechId: handle.id,
      functionCalls: calls,
      functionCallOutputs: outputs,
      atMs: now,
    });
    return outputs;
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
