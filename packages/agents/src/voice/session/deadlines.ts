/**
 * How long the session waits for each thing it depends on before it gives up on it. A missed deadline
 * is an `error` event of the provider's source; the step that waited ends and the session goes on.
 * All in ms.
 */
export interface SessionDeadlines {
  llmFirstChunkTimeoutMs: number;
  llmChunkTimeoutMs: number;
  ttsFirstAudioTimeoutMs: number;
  ttsAudioTimeoutMs: number;
  sttResponseTimeoutMs: number;
  playoutGraceMs: number;
}

export const defaultDeadlines: SessionDeadlines = {
  llmFirstChunkTimeoutMs: 15_000,
  llmChunkTimeoutMs: 10_000,
  ttsFirstAudioTimeoutMs: 10_000,
  ttsAudioTimeoutMs: 5_000,
  sttResponseTimeoutMs: 10_000,
  playoutGraceMs: 2_000,
};

/**
 * The session's deadlines from its options: each one given, else the default. `playoutGraceMs` falls
 * back on the older `playoutWatchdogSlack`.
 */
export function resolveDeadlines(
  options: Partial<SessionDeadlines> & { playoutWatchdogSlack?: number | undefined },
): SessionDeadlines {
  const resolved: SessionDeadlines = { ...defaultDeadlines };
  for (const key of Object.keys(defaultDeadlines) as Array<keyof SessionDeadlines>) {
    const value = key === 'playoutGraceMs' ? (options[key] ?? options.playoutWatchdogSlack) : options[key];
    if (value === undefined) continue;
    // The grace may be 0 (trust the audio's duration exactly); a provider deadline of 0 could never be met.
    const valid = key === 'playoutGraceMs' ? value >= 0 : value > 0;
    if (!valid || Number.isNaN(value)) {
      throw new RangeError(`${key} must be a positive number of ms (or Infinity), got ${value}`);
    }
    resolved[key] = value;
  }
  return resolved;
}
