import type { ProviderProblem } from '../providers/common.js';

/** `ProviderProblem`s carry an `Error`; a provider may have thrown anything. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Tells `onProblem`, if any. A listener that throws is ignored: it only observes the call, so a bug in
 * it must not turn a recovered problem into a failed call.
 */
export function reportProblem(
  onProblem: ((problem: ProviderProblem) => void) | undefined,
  problem: ProviderProblem,
): void {
  if (!onProblem) return;
  try {
    onProblem(problem);
  } catch {
    // See above: the call goes on.
  }
}
