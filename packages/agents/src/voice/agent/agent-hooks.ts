import type { AgentSession } from '../session/agent-session.js';
import { runInScope } from '../tools/run-scope.js';
import type { Agent } from './agent.js';

/**
 * Runs an agent hook (`onEnter`, `onExit`, `onUserTurnCompleted`) in the session's scope, so a task
 * awaited inside it finds the session. A throwing hook is reported as a session error, never fatal;
 * `isReportable` lets the caller keep a failure it handles itself (a `StopResponse`) out of the report.
 */
export async function runAgentHook(
  // biome-ignore lint/suspicious/noExplicitAny: hooks run for sessions of any user data type.
  session: AgentSession<any>,
  agent: Agent,
  name: string,
  fn: () => Promise<void>,
  isReportable: (error: unknown) => boolean = () => true,
): Promise<void> {
  try {
    await runInScope({ session, runContext: undefined, agent }, fn);
  } catch (error) {
    if (isReportable(error))
      session.reportError('session', new Error(`Agent.${name} failed`, { cause: error }), true);
  }
}
