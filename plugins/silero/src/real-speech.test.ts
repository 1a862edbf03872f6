import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioToolsAvailable, type Fixture, makeFixture, type Part } from './test-support/fixtures.js';
import { framesOf, runStream, segmentsOf } from './test-support/run.js';
import { SileroVAD } from './vad.js';

const tools = audioToolsAvailable();
if (!tools)
  console.warn('espeak-ng or sox missing (apt-get install -y espeak-ng sox): real-speech tests skipped');

const TIMELINE: Part[] = [
  { silenceMs: 1000 },
  { say: 'hello my name is voxwire and I am a voice agent' },
  { silenceMs: 1500 },
  { say: 'what would you like to do today' },
  { silenceMs: 1200 },
];
const TOLERANCE_MS = 100;

describe.skipIf(!tools)('Silero VAD on real speech', () => {
  let vad: SileroVAD;
  beforeAll(async () => {
    vad = await SileroVAD.load({
      inference: 'main-thread',
      minSilenceDurationMs: 300,
      minSpeechDurationMs: 64,
    });
  });
  afterAll(() => vad?.close());

  function expectBoundaries(fixture: Fixture, detected: { startMs: number; endMs: number }[]) {
    expect(detected).toHaveLength(fixture.segments.length);
    detected.forEach((segment, i) => {
      const truth = fixture.segments[i]!;
      expect(Math.abs(segment.startMs - truth.startMs), `start of segment ${i}`).toBeLessThanOrEqual(
        TOLERANCE_MS,
      );
      expect(Math.abs(segment.endMs - truth.endMs), `end of segment ${i}`).toBeLessThanOrEqual(TOLERANCE_MS);
    });
  }

  for (const rate of [8000, 16000, 24000, 48000]) {
    for (const frameMs of [10, 20, 30]) {
      it(`finds both utterances at ${rate} Hz in ${frameMs} ms frames`, async () => {
        const fixture = makeFixture(TIMELINE, rate);
        const events = await runStream(vad, framesOf(fixture, frameMs));
        console.log(rate, frameMs, JSON.stringify(fixture.segments), JSON.stringify(segmentsOf(events)));
        expectBoundaries(fixture, segmentsOf(events));
      });
    }
  }
});
