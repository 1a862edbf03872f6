import { AsyncLocalStorage } from 'node:async_hooks';
import type { AgentSession } from '../session/agent-session.js';
import type { Agent } from '../agent/agent.js';
import type { RunContext } from './run-context.js';

/** What code running on behalf of the session (a tool, an agent hook) can find without being passed it. */
export interface RunScope {
  // biome-ignore lint/suspicious/noExplicitAny: the scope is shared by sessions of any user data type.
  session: AgentSession<any>;
  // biome-ignore lint/suspicious/noExplicitAny: idem.
  runContext: RunContext<any> | undefined;
  /** The agent the code runs for (a hook's agent); a tool's is its run context's. */
  agent?: Agent | undefined;
}

const storage = new AsyncLocalStorage<RunScope>();

export function runInScope<T>(scope: RunScope, fn: () => T): T {
  return storage.run(scope, fn);
}

export function currentRunScope(): RunScope | undefined {
  return storage.getStore();
}
