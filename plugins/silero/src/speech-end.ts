/**
 * Silero's probability stays above the threshold for two or three windows after the voice stops, so the
 * end of the last confident window is late by up to about 100 ms at 16 kHz, and every turn's endpointing
 * delay starts that much late. The audio itself shows where the voice stopped: its level
 * drops by an order of magnitude within a few milliseconds. The level is read relative to the loudest
 * recent block, so a noisy line (whose floor stays near the voice's level) simply keeps Silero's end.
 */

/** Length of the blocks whose level is read: short against a window, long against a pitch period. */
export const VOICE_END_BLOCK_MS = 4;
/** A block this far below the loudest recent one (about -26 dB) counts as the silence after the voice. */
const LEVEL_DROP = 0.05;
/** Below this RMS (of 32767) the reference carries no level worth reading. */
const MIN_REFERENCE_RMS = 100;

/**
 * The end of the last block in `[searchFrom, end)` whose level is within `LEVEL_DROP` of the loudest
 * block in `[referenceFrom, end)`; blocks are laid back from `end`. Returns `end` when the last block
 * is still voiced or the reference is too quiet to read, and `searchFrom` when no block of the search
 * span is voiced.
 */
export function lastVoicedSample(
  samples: Int16Array,
  referenceFrom: number,
  searchFrom: number,
  end: number,
  blockSamples: number,
): number {
  const block = Math.max(1, Math.floor(blockSamples));
  let reference = 0;
  for (let to = end; to - block >= referenceFrom; to -= block) {
    reference = Math.max(reference, meanSquare(samples, to - block, to));
  }
  if (reference < MIN_REFERENCE_RMS * MIN_REFERENCE_RMS) return end;
  const threshold = reference * LEVEL_DROP * LEVEL_DROP;
  for (let to = end; to - block >= searchFrom; to -= block) {
    if (meanSquare(samples, to - block, to) >= threshold) return to;
  }
  return searchFrom;
}

function meanSquare(samples: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const v = samples[i]!;
    sum += v * v;
  }
  return sum / (to - from);
}
