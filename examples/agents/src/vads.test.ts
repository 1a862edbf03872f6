import { ENDPOINTING_PRESET } from '@voxwire/plugin-turn-detector';
import { afterAll, describe, expect, it } from 'vitest';
import { type ExampleVADs, loadVADs, vadFor } from './vads.js';

describe('the examples’ VADs', () => {
  let vads: ExampleVADs | undefined;
  afterAll(async () => {
    await Promise.all([vads?.wordsUnjudged.close(), vads?.wordsJudged.close()]);
  });

  it('uses the preset’s short silence only when the end-of-turn model judges the words', async () => {
    vads = await loadVADs();
    expect(vads.wordsJudged.minSilenceDurationMs).toBe(ENDPOINTING_PRESET.vadMinSilenceDurationMs);
    expect(vads.wordsUnjudged.minSilenceDurationMs).toBe(400);
    expect(vadFor(vads, { kind: 'model' })).toBe(vads.wordsJudged);
    expect(vadFor(vads, undefined)).toBe(vads.wordsUnjudged);
  });
});
