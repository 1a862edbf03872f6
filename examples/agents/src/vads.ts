import { ENDPOINTING_PRESET } from '@voxwire/plugin-turn-detector';
import { SileroVAD } from '@voxwire/plugin-silero';

/** Two settings of one Silero model (loading it twice joins the process's loaded model). */
export interface ExampleVADs {
  /** Silence alone ends the turn: long enough not to cut people off at a comma. */
  wordsUnjudged: SileroVAD;
  /** The end-of-turn model judges the words: a short silence only says when to ask it. */
  wordsJudged: SileroVAD;
}

export async function loadVADs(): Promise<ExampleVADs> {
  const [wordsUnjudged, wordsJudged] = await Promise.all([
    SileroVAD.load({ minSilenceDurationMs: 400 }),
    SileroVAD.load({ minSilenceDurationMs: ENDPOINTING_PRESET.vadMinSilenceDurationMs }),
  ]);
  return { wordsUnjudged, wordsJudged };
}

export function vadFor(vads: ExampleVADs, turnDetector: unknown): SileroVAD {
  return turnDetector ? vads.wordsJudged : vads.wordsUnjudged;
}
