import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INTERRUPTION_CONFIGS,
  formatInterruptionReport,
  interruptionReport,
} from './interruption-report.js';

describe('interruption detection on scripted backchannels and barge-ins (issue #19)', () => {
  it('the local detector cuts on no backchannel and misses no barge-in', async () => {
    const rows = await interruptionReport();
    console.log(`\n${formatInterruptionReport(rows)}\n`);
    const [plain, , local] = rows;
    expect(rows.map((r) => r.config)).toEqual(DEFAULT_INTERRUPTION_CONFIGS.map((c) => c.name));
    expect(local!.falseCuts).toBe(0);
    expect(local!.answeredBackchannels).toBe(0);
    expect(local!.missedBargeIns).toBe(0);
    expect(plain!.falseCuts).toBeGreaterThan(0);
    // Barge-ins that do not open with an acknowledgement cut as fast as the plain thresholds.
    expect(local!.reactionMedianMs).toBeLessThanOrEqual(plain!.reactionMedianMs!);
  });
});
