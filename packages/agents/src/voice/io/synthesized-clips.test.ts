import { describe, expect, it } from 'vitest';
import { peakDbfs, rmsDbfs } from '../../audio/frame-utils.js';
import { synthesizedHum, synthesizedTicks } from './synthesized-clips.js';

/** The largest step between neighbouring samples, the wrap from last to first included. */
function largestStep(data: Int16Array, wrap: boolean): number {
  let largest = 0;
  for (let i = 1; i < data.length; i++) largest = Math.max(largest, Math.abs(data[i]! - data[i - 1]!));
  return wrap ? Math.abs(data[0]! - data[data.length - 1]!) : largest;
}

describe('synthesized background clips', () => {
  it('are small, mono, deterministic and at the rate asked for', () => {
    const hum = synthesizedHum();
    expect(hum.sampleRate).toBe(24_000);
    expect(hum.channels).toBe(1);
    expect(hum.durationMs).toBe(3000);
    expect(synthesizedTicks().durationMs).toBe(2400);
    expect(Buffer.from(synthesizedHum().data.buffer).equals(Buffer.from(hum.data.buffer))).toBe(true);
    expect(synthesizedTicks({ sampleRate: 16_000 }).sampleRate).toBe(16_000);
    // In memory, both together are well under 300 KB at 24 kHz; nothing is stored in the package.
    expect(hum.data.byteLength + synthesizedTicks().data.byteLength).toBeLessThan(300_000);
  });

  it('the hum is soft and loops without a click', () => {
    const hum = synthesizedHum();
    expect(rmsDbfs(hum)).toBeLessThan(-25);
    expect(rmsDbfs(hum)).toBeGreaterThan(-45);
    // The seam is no bigger a step than the clip makes anywhere inside.
    expect(largestStep(hum.data, true)).toBeLessThanOrEqual(largestStep(hum.data, false));
  });

  it('the ticks are short bursts over silence, silent at the seam', () => {
    const ticks = synthesizedTicks();
    expect(peakDbfs(ticks)).toBeLessThan(-10);
    expect(peakDbfs(ticks)).toBeGreaterThan(-30);
    const silent = ticks.data.filter((v) => v === 0).length / ticks.data.length;
    expect(silent).toBeGreaterThan(0.8);
    expect(ticks.data[0]).toBe(0);
    expect(ticks.data[ticks.data.length - 1]).toBe(0);
  });
});
