import { ChatContext, type ChatMessage } from '../../llm/chat-context.js';
import type { AnyTool } from '../tools/tool.js';
import type { LLM } from '../../providers/llm.js';
import type { STT } from '../../providers/stt.js';
import type { TTS } from '../../providers/tts.js';
import type { TurnDetector } from '../../providers/turn-detector.js';
import type { VAD } from '../../providers/vad.js';
import { processId } from '../../utils/ids.js';
import type { AgentSession } from '../session/agent-session.js';
import type { UserTurnExceeded } from '../turn/user-turn-tracker.js';

export interface AgentOptions {
  instructions: string;
  tools?: readonly AnyTool[];
  /** The conversation this agent starts with. A handoff copies the previous agent's when omitted. */
  chatCtx?: ChatContext;
  /** Per-agent providers override the session's. */
  stt?: STT;
  llm?: LLM;
  tts?: TTS;
  vad?: VAD;
  turnDetector?: TurnDetector;
  /** Shows up in handoff records and logs. Defaults to the class name plus a counter. */
  id?: string;
  /**
   * Whether the user may interrupt the speeches this agent creates (its replies to user turns, and the
   * `say()` / `generateReply()` calls made while it is in charge); a call's own `allowInterruptions`
   * overrides it. Default true.
   */
  allowInterruptions?: boolean;
}

/**
 * What the agent is: its instructions, tools and providers, and hooks for entering, leaving and for each
 * completed user turn. Subclass it and override the hooks.
 */
export class Agent<UserData = unknown> {
  readonly id: string;
  instructions: string;
  tools: readonly AnyTool[];
  chatCtx: ChatContext;
  readonly stt: STT | undefined;
  readonly llm: LLM | undefined;
  readonly tts: TTS | undefined;
  readonly vad: VAD | undefined;
  readonly turnDetector: TurnDetector | undefined;
  /** The default `allowInterruptions` of the speeches this agent creates. */
  readonly allowInterruptions: boolean;
  /** @internal */
  attachedSession: AgentSession<UserData> | undefined;
  /** @internal True when no chatCtx was given, so a handoff may carry the conversation over. */
  readonly inheritsChatCtx: boolean;

  constructor(options: AgentOptions) {
    this.id = options.id ?? processId(new.target.name.toLowerCase() || 'agent');
    this.instructions = options.instructions;
    this.tools = options.tools ?? [];
    this.inheritsChatCtx = options.chatCtx === undefined;
    this.chatCtx = options.chatCtx?.copy() ?? new ChatContext();
    this.stt = options.stt;
    this.llm = options.llm;
    this.tts = options.tts;
    this.vad = options.vad;
    this.turnDetector = options.turnDetector;
    this.allowInterruptions = options.allowInterruptions ?? true;
  }

  /** The session running this agent. Throws when the agent is not active. */
  get session(): AgentSession<UserData> {
    if (!this.attachedSession) throw new Error(`Agent ${this.id} is not running in a session`);
    return this.attachedSession;
  }

  /** Called when the agent becomes active: a good place to greet (`this.session.generateReply()`). */
  async onEnter(): Promise<void> {}

  /** Called when another agent takes over or the session closes. */
  async onExit(): Promise<void> {}

  /**
   * Called when the user's turn is committed, before the reply is generated. Edit `chatCtx` (this turn's
   * copy) or `message`; throw `StopResponse` to skip the reply.
   */
  async onUserTurnCompleted(_chatCtx: ChatContext, _message: ChatMessage): Promise<void> {}

  /**
   * Called once per user turn that lasts `turnHandling.maxUserTurnDuration` (from its first speech)
   * without being committed. The default keeps listening. To take the turn: `this.session.say(...,
   * { allowInterruptions: false })` speaks over the user; `this.session.commitUserTurn()` answers what
   * was said so far (that reply is held while the user talks on, and cut if they go on long enough).
   */
  async onUserTurnExceeded(_turn: UserTurnExceeded): Promise<void> {}
}

/** Thrown from `onUserTurnCompleted` to answer nothing to this turn (the decision is logged). */
export class StopResponse extends Error {
  override name = 'StopResponse';
  constructor(message = 'reply skipped by onUserTurnCompleted') {
    super(message);
  }
}
