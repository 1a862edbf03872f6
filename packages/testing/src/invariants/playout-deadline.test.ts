import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from './model.js';
import { checkInvariants } from './index.js';
import { LogBuilder } from './log-builder.js';

/** 2 s of audio sent in 100 ms (a sink with a big buffer), flushed, never reported finished. */
function silentSink(listeningAt: number) {
  const b = new LogBuilder({ output: { ...DEFAULT_CONFIG.output, neverFinish: true } })
    .speech('speech_1')
    .at(0)
    .agentState('speaking', 'thinking');
  for (let i = 0; i < 100; i++) {
    b.at(i).sim('output_frame', { durationMs: 20, first: i === 0, speechId: 'speech_1' });
  }
  return b
    .at(100)
    .sim('output_segment_end', { how: 'flush', queuedMs: 2000, speechId: 'speech_1' })
    .at(2000)
    .sim('output_audio_end', { positionMs: 2000, interrupted: false, speechId: 'speech_1' })
    .at(listeningAt)
    .agentState('listening', 'speaking')
    .trace('speech_released', { speechId: 'speech_1', step: 1 })
    .trace('speech_done', { speechId: 'speech_1', outcome: 'played' })
    .at(10_000)
    .end();
}

describe('S1 with a sink that never reports playback finished', () => {
  it('the agent is speaking no longer than the audio is due (from its first frame) plus the grace', () => {
    // Due at 2000 ms; the grace is 2000 ms.
    expect(checkInvariants(silentSink(4000), { only: ['S1'] })).toEqual([]);
    const late = checkInvariants(silentSink(4100), { only: ['S1'] });
    expect(late.map((v) => v.message)).toEqual([
      'agentState is still "speaking" at 4060 ms although the audio of speech_1 stopped at 2000 ms',
    ]);
  });
});
