// Internal to the audio layer (not exported from the package root).

/** Float <-> Int16 use one factor in both directions so that int16 -> float32 -> int16 is lossless. */
export const INT16_SCALE = 32768;
const INT16_MAX = 32767;
const INT16_MIN = -32768;

/**
 * Rounds half away from zero and clamps to the Int16 range. Rounding symmetrically keeps silence centred:
 * `Math.round` would bias every negative half-step towards zero. NaN becomes 0.
 */
export function roundToInt16(value: number): number {
  if (Number.isNaN(value)) return 0;
  const rounded = value < 0 ? -Math.floor(0.5 - value) : Math.floor(value + 0.5);
  if (rounded > INT16_MAX) return INT16_MAX;
  if (rounded < INT16_MIN) return INT16_MIN;
  return rounded;
}
