import type { FunctionCall } from '../../llm/chat-context.js';
import type { Agent } from '../agent/agent.js';
import type { AgentSession } from '../session/agent-session.js';
import type { SpeechHandle } from '../speech/speech-handle.js';

/** @internal What the session knows about a call beyond the public fields. */
export interface RunContextInternals {
  /** The agent whose reply made the call. */
  agent?: Agent | undefined;
  /** Aborts when this call must stop: its speech was interrupted, or its time ran out. */
  signal?: AbortSignal | undefined;
}

/**
 * What a tool sees while it runs: the session, the speech it belongs to, the call itself, the user data,
 * and an abort signal that fires when the call must stop.
 */
export class RunContext<UserData = unknown> {
  constructor(
    readonly session: AgentSession<UserData>,
    readonly speechHandle: SpeechHandle,
    readonly functionCall: FunctionCall,
    private readonly stepPlayout: () => Promise<void>,
    private readonly internals: RunContextInternals = {},
  ) {}

  get userData(): UserData {
    return this.session.userData;
  }

  /** @internal The agent whose reply made this call (undefined when built outside a session). */
  get agent(): Agent | undefined {
    return this.internals.agent;
  }

  /**
   * Aborted when the call must stop: its speech was interrupted (never by user audio once interruptions
   * are disallowed), or the tool's `timeoutMs` passed.
   */
  get signal(): AbortSignal {
    return this.internals.signal ?? this.speechHandle.interruptSignal;
  }

  /** Makes the speech uninterruptible by the user from now on (a forced interrupt still works). */
  disallowInterruptions(): void {
    this.speechHandle.disallowInterruptions();
  }

  /** Resolves when the audio generated before this tool call has stopped playing (ended or interrupted). */
  waitForPlayout(): Promise<void> {
    return this.stepPlayout();
  }
}
