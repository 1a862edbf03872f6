import type { FunctionCall } from '../../llm/chat-context.js';
import type { AgentSession } from '../session/agent-session.js';
import type { SpeechHandle } from '../speech/speech-handle.js';

/**
 * What a tool sees while it runs: the session, the speech it belongs to, the call itself, the user data,
 * and an abort signal that fires when the speech is interrupted.
 */
export class RunContext<UserData = unknown> {
  constructor(
    readonly session: AgentSession<UserData>,
    readonly speechHandle: SpeechHandle,
    readonly functionCall: FunctionCall,
    private readonly stepPlayout: () => Promise<void>,
  ) {}

  get userData(): UserData {
    return this.session.userData;
  }

  /** Aborted when the speech is interrupted (never by user audio once interruptions are disallowed). */
  get signal(): AbortSignal {
    return this.speechHandle.interruptSignal;
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
