// What both frameworks are configured with, in one place, so every row compares like with like.

/** The reply of the fake LLM: 31 characters, 1.86 s of audio at 60 ms per character. */
export const REPLY = 'Sure, I can help you with that.';
export const TTS_MS_PER_CHAR = 60;
export const TTS_RATE = 24000;
export const TTS_FRAME_SAMPLES = 480; // 20 ms at 24 kHz

/** Silero settings given to both plugins (LiveKit's has one threshold, so Voxwire's hysteresis is closed). */
export function vadSettings(variant) {
  return {
    activationThreshold: 0.5,
    minSpeechMs: 50,
    minSilenceMs: variant.vadMinSilenceMs ?? 300,
    prefixPaddingMs: 500,
  };
}

/** Endpointing and interruption settings (ms). Interruptions cut at once: no pause-and-resume. */
export function turnSettings(variant) {
  return {
    minEndpointingDelayMs: variant.minEndpointingDelayMs ?? 500,
    maxEndpointingDelayMs: variant.maxEndpointingDelayMs ?? 3000,
    minInterruptionMs: 500,
    minInterruptionWords: 0,
  };
}

/**
 * Endpointing variants (figure 6). `vad` is every other figure's configuration. The turn-detector
 * preset's numbers come from the plugin when it is installed (see voxwire.mjs).
 */
export const VARIANTS = {
  vad: { name: 'vad', llmTtftMs: 0 },
  'vad-ttft300': { name: 'vad-ttft300', llmTtftMs: 300 },
  preemptive: { name: 'preemptive', llmTtftMs: 300, preemptiveGeneration: true },
  'turn-detector': { name: 'turn-detector', llmTtftMs: 300, turnDetector: true },
};

/**
 * The least time from the last speech sample to a commit the configuration allows. Both frameworks
 * date the endpointing delay from the VAD's estimate of the last speech (now minus the silence it
 * counted), so the VAD silence and the endpointing delay overlap: the floor is the larger of the two.
 */
export function configuredFloorMs(variant) {
  const vad = vadSettings(variant);
  const turn = turnSettings(variant);
  return Math.max(vad.minSilenceMs, turn.minEndpointingDelayMs) + (variant.llmTtftMs ?? 0);
}
