import type { ChatContext } from '../../llm/chat-context.js';
import type { LLM } from '../../providers/llm.js';
import type { STT } from '../../providers/stt.js';
import type { TTS } from '../../providers/tts.js';
import type { TurnDetector } from '../../providers/turn-detector.js';
import type { VAD } from '../../providers/vad.js';
import type { Agent } from './agent.js';
import type { AgentSession } from '../session/agent-session.js';

export interface AgentChange {
  previous: Agent;
  next: Agent;
  via: 'start' | 'handoff' | 'task_started' | 'task_ended';
}

/**
 * The agent in charge of the conversation, and the providers the session listens and speaks with: the
 * agent's own, else the session's. Who is in charge changes with handoffs and AgentTasks
 * (`AgentTransitions`); everything else only reads it.
 */
export class ActiveAgent {
  private agent: Agent;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: serves sessions of any user data type.
    private readonly session: AgentSession<any>,
    initial: Agent,
  ) {
    this.agent = initial;
  }

  get current(): Agent {
    return this.agent;
  }

  private readonly switchListeners = new Set<(change: AgentChange) => void>();

  /** Puts `agent` in charge; `via` says why (listeners such as `session.run()` record it). */
  switchTo(agent: Agent, via: AgentChange['via'] = 'start'): void {
    const previous = this.agent;
    this.agent = agent;
    if (previous === agent) return;
    for (const listener of [...this.switchListeners]) listener({ previous, next: agent, via });
  }

  /** Hears every change of the agent in charge; returns the unsubscribe function. */
  onSwitch(listener: (change: AgentChange) => void): () => void {
    this.switchListeners.add(listener);
    return () => this.switchListeners.delete(listener);
  }

  get vad(): VAD | undefined {
    return this.agent.vad ?? this.session.options.vad;
  }

  get stt(): STT | undefined {
    return this.agent.stt ?? this.session.options.stt;
  }

  get llm(): LLM | undefined {
    return this.agent.llm ?? this.session.options.llm;
  }

  get tts(): TTS | undefined {
    return this.agent.tts ?? this.session.options.tts;
  }

  get turnDetector(): TurnDetector | undefined {
    return this.agent.turnDetector ?? this.session.options.turnDetector;
  }

  /** The language hint for the recognizer. */
  get language(): string | undefined {
    return this.session.options.language;
  }

  /** The conversation as the turn detector should see it: the agent's, with the pending user text added. */
  chatCtxWithPendingTurn(text: string): ChatContext {
    const ctx: ChatContext = this.agent.chatCtx.copy({ excludeFunctionCalls: true });
    ctx.addMessage({ role: 'user', content: text, createdAtMs: this.session.clock.now() });
    return ctx;
  }
}
