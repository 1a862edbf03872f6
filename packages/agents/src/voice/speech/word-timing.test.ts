import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type { BatchTTS, SynthesizedAudio } from '../../providers/tts.js';
import { historyText, type SpeechSegment, startSession } from '../../test-support/session-harness.js';
import type { Clock } from '../../time/clock.js';
import { Agent } from '../agent/agent.js';

const RATE = 16_000;
const FRAME_MS = 20;

/** Speaks its first word for 2 s and every other word in 100 ms, and says so with word timings. */
class SlowFirstWordTTS implements BatchTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'slow-first-word';
  readonly sampleRate = RATE;
  readonly numChannels = 1;
  constructor(private readonly clock: Clock) {}
  async *synthesize(text: string): AsyncGenerator<SynthesizedAudio> {
    await this.clock.sleep(50);
    let at = 0;
    const words = text.split(' ').map((word, i) => {
      const durationMs = i === 0 ? 2000 : 100;
      const timed = { word, startMs: at, endMs: at + durationMs };
      at += durationMs;
      return timed;
    });
    for (let i = 0; i < at / FRAME_MS; i++) {
      if (i % 10 === 9) await this.clock.sleep(FRAME_MS * 10);
      const frame = AudioFrame.silence(RATE, 1, (RATE * FRAME_MS) / 1000);
      yield i === 0 ? { frame, words } : { frame };
    }
  }
}

async function conversation(segments: SpeechSegment[]) {
  const h = await startSession({
    segments,
    agent: new Agent({ instructions: '' }),
    replies: [{ text: 'Yes. Absolutely wonderful idea, let us do it.' }],
    session: (clock) => ({ tts: new SlowFirstWordTTS(clock) }),
    totalMs: 12_000,
  });
  await h.run(11_000);
  return h;
}

describe('an agent transcript that follows the synthesizer word timings', () => {
  it('keeps exactly the words heard when the user cuts in, where a speaking-rate estimate would claim more', async () => {
    const ask: SpeechSegment = { startMs: 500, endMs: 1000, transcript: 'shall we' };
    const calm = await conversation([ask]);
    const started = calm.events.find(
      (e) => e.name === 'agent_state_changed' && e.detail.includes('"newState":"speaking"'),
    );
    expect(historyText(calm.session).at(-1)).toBe('assistant: Yes. Absolutely wonderful idea, let us do it.');
    // The user cuts in 1.6 s into the reply: "Yes." (heard by 1 s) is all they heard; the words after it
    // start at 2 s. At about 15 characters a second an estimate would have claimed "Yes. Absolutely".
    const cutAt = started!.atMs + 1600;
    const cut = await conversation([ask, { startMs: cutAt, endMs: cutAt + 1500, transcript: 'wait' }]);
    const history = historyText(cut.session);
    expect(history).toContain('assistant(interrupted): Yes.');
  });
});
