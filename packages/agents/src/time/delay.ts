/**
 * Delays come from arithmetic on user settings, so a NaN or a negative value is more likely a slip than
 * an intent: both mean "as soon as possible", like the host's timers. Infinity means "never".
 */
export function normalizeDelay(ms: number): number {
  if (Number.isNaN(ms) || ms < 0) return 0;
  return ms;
}

/** A handle for a timer that will never fire, so there is nothing to release. */
export const NEVER_FIRES: { cancel(): void } = Object.freeze({ cancel: () => {} });
