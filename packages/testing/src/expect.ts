import {
  type Agent,
  type AgentSession,
  AgentSession as Session,
  type AgentSessionOptions,
  type RunResult,
} from '@voxwire/agents';

// The expectations live in the core with `session.run()`; re-exported here for existing tests.
export {
  describeEvent,
  EventAssert,
  ExpectationError,
  RunAssert,
  type RunEvent,
  type RunResult,
} from '@voxwire/agents';

export interface RunTurnOptions {
  /** Give up after this long on the session's clock. Default 60000 ms. */
  timeoutMs?: number;
}

/**
 * Sends `userInput` as a user turn and waits until the conversation rests: `session.run({ userInput })`,
 * kept for the tests written before it existed.
 */
export function runTurn(
  session: AgentSession,
  userInput: string,
  options: RunTurnOptions = {},
): Promise<RunResult> {
  return session.run({
    userInput,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/**
 * A started session without audio, for testing an agent's conversation logic with `session.run()`:
 * pass a real LLM, or a `FakeLLM` and a `VirtualClock` for deterministic tests.
 */
export async function createTextSession<UserData = unknown>(
  agent: Agent,
  options: AgentSessionOptions<UserData> = {},
): Promise<AgentSession<UserData>> {
  const session = new Session<UserData>(options);
  await session.start({ agent });
  return session;
}
