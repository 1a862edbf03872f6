import { describe, expect, it } from 'vitest';
import { checkInvariants } from './index.js';
import { LogBuilder } from './log-builder.js';

function l5(log: ReturnType<LogBuilder['end']>): string[] {
  return checkInvariants(log, { only: ['L5'] }).map((v) => v.message);
}

/** A turn committed at 1000 ms whose reply starts at once. */
function committed(): LogBuilder {
  return new LogBuilder()
    .at(1000)
    .trace('user_turn_committed', { turnId: 'turn_1', transcript: 'hi', lastSpeechMs: 500 })
    .speech('speech_1', { source: 'generate_reply', turnId: 'turn_1' });
}

describe('L5 as issue #13 defines it: a turn is answered when its reply ends, in bounded time', () => {
  it('a reply that started but never ended does not answer the turn', () => {
    const log = committed().at(90_000).end();
    expect(l5(log)).toEqual(['turn_1: its reply speech_1 started but never played, failed or was cut']);
  });

  it('a reply that only the close ended, long after the deadlines, did not answer in time', () => {
    const log = committed()
      .at(70_000)
      .trace('close_requested', { reason: 'end of scenario' })
      .trace('speech_done', { speechId: 'speech_1', outcome: 'interrupted' })
      .at(71_000)
      .end();
    expect(l5(log)).toEqual([
      'turn_1 committed at 1000 ms was answered only at 70000 ms (only by the close), beyond its bound of 30000 ms',
    ]);
  });

  it('a reply that played, or failed with an error, answers the turn', () => {
    const played = committed()
      .at(2000)
      .frames('speech_1', 100)
      .trace('speech_done', { speechId: 'speech_1', outcome: 'played' })
      .at(10_000)
      .end();
    expect(l5(played)).toEqual([]);
    const failed = committed()
      .at(16_000)
      .event('error', { source: 'llm', recoverable: true, error: { name: 'APITimeoutError', message: '' } })
      .trace('speech_done', { speechId: 'speech_1', outcome: 'failed' })
      .at(20_000)
      .end();
    expect(l5(failed)).toEqual([]);
  });

  it('time spent running tools, queued or paused and playing audio does not count against the reply', () => {
    const log = committed()
      .at(1500)
      .trace('speech_released', { speechId: 'speech_1', step: 1 })
      .trace('tool_started', { speechId: 'speech_1', callId: 'call_1', name: 'slow' })
      .at(41_500)
      .trace('tool_finished', { speechId: 'speech_1', callId: 'call_1', name: 'slow', outcome: 'ok' })
      .trace('speech_authorized', { speechId: 'speech_1', step: 2 })
      .at(42_000)
      .frames('speech_1', 1500)
      .trace('speech_done', { speechId: 'speech_1', outcome: 'played' })
      .at(80_000)
      .end();
    expect(l5(log)).toEqual([]);
  });
});
