import type { ProviderCallOptions, SpecificationVersion } from './common.js';

/**
 * End-of-turn prediction, specification v1.
 *
 * When the user pauses, the session asks how likely it is that they have finished. At or above
 * `unlikelyThreshold(language)` it commits the turn after the minimum endpointing delay; below it waits
 * up to the maximum delay for more speech. The session bounds the wait itself: a slow or failing
 * detector delays a turn by at most the maximum delay.
 */

/** One turn of the conversation as the detector sees it: spoken text only, oldest first. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface TurnDetector {
  readonly specificationVersion: SpecificationVersion;
  readonly label: string;
  /**
   * The probability below which the end of turn is unlikely for `language` (a BCP-47 code, undefined
   * when unknown); undefined when the detector does not support the language, and the session then
   * endpoints on silence alone.
   */
  unlikelyThreshold(language: string | undefined): number | undefined;
  /**
   * Probability 0..1 that the last user turn is complete. `turns` ends with the user's pending turn.
   * Rejects on failure; resolves or rejects promptly after an abort.
   */
  predictEndOfTurn(turns: readonly ConversationTurn[], options?: ProviderCallOptions): Promise<number>;
}
