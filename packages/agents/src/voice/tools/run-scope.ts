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

/**
 * The scope of the tool or hook running now. Node 20's AsyncLocalStorage makes every promise of the
 * process pay a hook while it is enabled, and a session makes dozens per second of audio, so the storage
 * is enabled only while some tool or hook runs and disabled again when the last one ends. A scope is
 * therefore visible exactly while its code runs: work it leaves behind after it returns does not belong
 * to it any more.
 */
const storage = new AsyncLocalStorage<LiveScope | undefined>();
let running = 0;

interface LiveScope extends RunScope {
  ended: boolean;
}

/** Runs a tool or an agent hook in `scope`; what it awaits sees the scope until `fn`'s promise settles. */
export function runInScope<T>(scope: RunScope, fn: () => Promise<T>): Promise<T> {
  const live: LiveScope = { ...scope, ended: false };
  const end = (): void => {
    live.ended = true;
    if (--running === 0) storage.disable();
  };
  running++;
  let result: Promise<T>;
  try {
    result = storage.run(live, fn);
  } catch (error) {
    end();
    return Promise.reject(error);
  }
  // The caller gets `fn`'s own promise: waiting for the scope's end would settle it a step later.
  result.then(end, end);
  return result;
}

/**
 * Runs `fn` (a speech) outside any tool's scope: a speech a tool starts with `say()` is not itself part
 * of the tool, so what the speech awaits must not look like the tool's code.
 */
export function runOutsideScopes<T>(fn: () => T): T {
  return running === 0 ? fn() : storage.run(undefined, fn);
}

export function currentRunScope(): RunScope | undefined {
  if (running === 0) return undefined;
  const scope = storage.getStore();
  return scope && !scope.ended ? scope : undefined;
}
