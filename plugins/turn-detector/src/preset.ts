import type { TurnHandlingOptions } from '@voxwire/agents';

/**
 * Endpointing settings for a session with an end-of-turn model. The VAD reports the end of speech after a
 * short silence (250 ms) and the model picks the wait: the minimum delay when the words sound finished,
 * up to the maximum when they do not ("I'd like to order, um"). Without a model keep the session's
 * defaults: a short VAD silence would then cut people off.
 *
 * ```ts
 * const vad = await SileroVAD.load({ minSilenceDurationMs: ENDPOINTING_PRESET.vadMinSilenceDurationMs });
 * const session = new AgentSession({ vad, stt, llm, tts, turnDetector, turnHandling: ENDPOINTING_PRESET.turnHandling });
 * ```
 */
export const ENDPOINTING_PRESET: {
  readonly vadMinSilenceDurationMs: number;
  readonly turnHandling: Readonly<Pick<TurnHandlingOptions, 'minEndpointingDelay' | 'maxEndpointingDelay'>>;
} = Object.freeze({
  vadMinSilenceDurationMs: 250,
  turnHandling: Object.freeze({ minEndpointingDelay: 250, maxEndpointingDelay: 3000 }),
});
