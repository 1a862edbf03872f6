import type { FunctionCall } from '../llm/chat-context.js';

/**
 * What a tool sees while it runs. The session engine provides the implementation.
 */
export interface RunContext<UserData = unknown> {
  readonly userData: UserData;
  readonly functionCall: FunctionCall;
  /** Aborted when the speech this tool belongs to is interrupted (unless interruptions are disallowed). */
  readonly signal: AbortSignal;
  /** Makes the current speech uninterruptible for the rest of this tool's run. */
  disallowInterruptions(): void;
  /** Resolves when the speech this tool belongs to has stopped playing (ended or interrupted). */
  waitForPlayout(): Promise<void>;
}
