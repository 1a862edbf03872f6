import { describe, expect, it } from 'vitest';
import { PushTimeline } from './push-timeline.js';

describe('PushTimeline', () => {
  it('finds when the audio at a position was pushed, and forgets finalized audio', () => {
    const timeline = new PushTimeline();
    timeline.pushed(20, 1_000);
    timeline.pushed(40, 1_020);
    timeline.pushed(60, 1_040);
    expect(timeline.at(0)).toBe(1_000);
    expect(timeline.at(20)).toBe(1_000);
    expect(timeline.at(20.3)).toBe(1_000); // seconds-rounded timestamps land a hair past a frame
    expect(timeline.at(21)).toBe(1_020);
    expect(timeline.at(60)).toBe(1_040);
    expect(timeline.at(61)).toBeUndefined(); // not pushed yet
    timeline.forgetBefore(40);
    expect(timeline.at(10)).toBeUndefined(); // that frame is forgotten
    expect(timeline.at(30)).toBe(1_020);
    timeline.forgetBefore(100);
    expect(timeline.at(50)).toBeUndefined();
  });

  it('stays bounded however long nothing is finalized', () => {
    const timeline = new PushTimeline();
    for (let i = 1; i <= 20_000; i++) timeline.pushed(i * 10, i);
    expect(timeline.at(10)).toBeUndefined();
    expect(timeline.at((20_000 - 4_096) * 10 + 5)).toBe(20_000 - 4_096 + 1);
    expect(timeline.at(200_000)).toBe(20_000);
  });
});
