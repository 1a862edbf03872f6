import type { TurnHandlingOptions } from '@voxwire/agents';

/**
 * Endpointing settings for a session with an end-of-turn model. The VAD reports the end of speech after a
 * short silence (200 ms) and the model picks the wait: the minimum delay (250 ms, counted from the voice's
 * end, so it overlaps the VAD's silence) when the words sound finished, up to the maximum when they do
 * not ("I'd like to order, um"). The VAD's silence is counted from Silero's last confident window, which
 * lags the voice by one to three windows, so 200 ms there is about 250 ms of real silence: the model
 * then judges the words without waiting longer than the delay it chose. Without a model keep the
 * session's defaults: a short VAD silence would then cut people off.
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
  vadMinSilenceDurationMs: 200,
  turnHandling: Object.freeze({ minEndpointingDelay: 250, maxEndpointingDelay: 3000 }),
});
