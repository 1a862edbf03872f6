import type { ProviderProblem } from '@voxwire/agents';

/**
 * Tells the caller about a problem the plugin recovered from (a retry). A faulty listener must not
 * break the request it is told about, so what it throws is dropped.
 */
export function reportProblem(
  onProblem: ((problem: ProviderProblem) => void) | undefined,
  problem: ProviderProblem,
): void {
  if (!onProblem) return;
  try {
    onProblem(problem);
  } catch {
    // The request goes on: the problem was already worked around.
  }
}

/** The `retrying` problem for retry number `attempt` (1 for the first retry). */
export function retrying(error: unknown, attempt: number, delayMs: number): ProviderProblem {
  return {
    type: 'retrying',
    attempt,
    delayMs,
    error: error instanceof Error ? error : new Error(String(error)),
  };
}
