import type { ChatContext } from '../llm/chat-context.js';

/**
 * Predicts from the conversation so far whether the user has finished their turn. The session waits the
 * minimum endpointing delay when the probability is at or above `unlikelyThreshold`, the maximum
 * otherwise.
 */
export interface TurnDetector {
  readonly label: string;
  /** Below this probability the end of turn is unlikely; undefined when the language is unsupported. */
  unlikelyThreshold(language?: string): number | undefined;
  supportsLanguage(language?: string): boolean;
  /** Probability 0..1 that the user's turn is over. */
  predictEndOfTurn(chatCtx: ChatContext, options?: { signal?: AbortSignal }): Promise<number>;
}
