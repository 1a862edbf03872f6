import { describe, expect, it } from 'vitest';
import { ChatContext } from '../../llm/chat-context.js';
import { SPECIFICATION_VERSION } from '../../providers/common.js';
import type { TurnDetector } from '../../providers/turn-detector.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { FakeSTT } from '../../test-support/session-harness.js';
import { createIdGenerator } from '../../utils/ids.js';
import { resolveTurnHandling, type TurnHandlingOptions } from '../session/options.js';
import type { TraceRecord } from '../session/trace.js';
import { type CommittedTurn, type UserTurnExceeded, UserTurnTracker } from './user-turn-tracker.js';

interface RigOptions {
  turnHandling?: Partial<TurnHandlingOptions>;
  /** Whether a recognizer listens (so a final transcript is expected after speech). Default true. */
  stt?: boolean;
  /** Whether a VAD drives speaking/listening. Default true. */
  vad?: boolean;
  detector?: TurnDetector;
}

/** The tracker on a manual VirtualClock, with everything it reports recorded. */
function rig(options: RigOptions = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const turns: CommittedTurn[] = [];
  const lateFinals: Array<{ turnId: string; transcript: string; atMs: number }> = [];
  const userStates: string[] = [];
  const traces: Array<TraceRecord & { atMs: number }> = [];
  const errors: Array<{ source: string; error: unknown }> = [];
  const exceeded: Array<UserTurnExceeded & { atMs: number }> = [];
  const tracker = new UserTurnTracker({
    clock,
    options: resolveTurnHandling(options.turnHandling),
    providers: {
      stt: options.stt === false ? undefined : new FakeSTT(clock, []),
      turnDetector: options.detector,
      chatCtxWithPendingTurn: (text) => {
        const ctx = new ChatContext();
        ctx.addMessage({ role: 'user', content: text });
        return ctx;
      },
    },
    ids: createIdGenerator(),
    reporter: {
      trace: (record) => traces.push({ ...record, atMs: clock.now() }),
      error: (source, error) => errors.push({ source, error }),
    },
    listener: {
      userStateChanged: (_old, next) => userStates.push(`${next}@${clock.now()}`),
      turnCommitted: (turn) => turns.push(turn),
      lateFinalArrived: (turnId, transcript) => lateFinals.push({ turnId, transcript, atMs: clock.now() }),
      userTurnExceeded: (turn) => exceeded.push({ ...turn, atMs: clock.now() }),
      pendingTurnChanged: () => {},
    },
  });
  tracker.setVadPresent(options.vad ?? true);
  /** Advances the clock to an absolute time, firing every timer due on the way. */
  const at = (ms: number): Promise<void> => clock.advance(ms - clock.now());
  return { clock, tracker, turns, lateFinals, userStates, traces, errors, exceeded, at };
}

/** A detector answering `probability` (or failing) after `delayMs` of clock time; `never` never answers. */
function detector(
  clock: VirtualClock,
  answer: number | Error | 'never',
  options: { delayMs?: number; threshold?: number | undefined; supports?: boolean } = {},
): TurnDetector & { asked: string[] } {
  const asked: string[] = [];
  return {
    specificationVersion: SPECIFICATION_VERSION,
    label: 'test-detector',
    asked,
    unlikelyThreshold: () =>
      (options.supports ?? true) ? ('threshold' in options ? options.threshold : 0.5) : undefined,
    predictEndOfTurn: async (turns, { signal } = {}) => {
      asked.push(turns[turns.length - 1]?.text ?? '');
      if (answer === 'never') return new Promise<number>(() => {});
      await clock.sleep(options.delayMs ?? 50, signal);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

const MIN = 500;
const MAX = 6000;

/**
 * The user speaks from 1000 to 1700 ms; the VAD reports the end at 2000 ms after 300 ms of silence, so
 * the last speech is at 1700 ms. The final transcript lands at `finalAt` (before the VAD end by default).
 */
async function utterance(
  r: ReturnType<typeof rig>,
  options: { text?: string; finalAt?: number | 'none'; interim?: string } = {},
): Promise<void> {
  const finalAt = options.finalAt ?? 1900;
  await r.at(1000);
  r.tracker.onVadStartOfSpeech(100);
  if (options.interim !== undefined) {
    await r.at(1400);
    r.tracker.onInterimTranscript(options.interim, undefined);
  }
  if (finalAt !== 'none' && finalAt < 2000) {
    await r.at(finalAt);
    r.tracker.onFinalTranscript(options.text ?? 'hello there', undefined);
  }
  await r.at(2000);
  r.tracker.onVadEndOfSpeech(300);
  if (finalAt !== 'none' && finalAt >= 2000) {
    await r.at(finalAt);
    r.tracker.onFinalTranscript(options.text ?? 'hello there', undefined);
  }
}

const LAST_SPEECH = 1700;

describe('UserTurnTracker: userState', () => {
  it('follows the VAD: speaking at its start of speech, listening at its end', async () => {
    const r = rig();
    await utterance(r);
    expect(r.userStates).toEqual(['speaking@1000', 'listening@2000']);
    expect(r.traces.filter((t) => t.type.startsWith('vad_'))).toEqual([
      { type: 'vad_start_of_speech', speechStartMs: 900, atMs: 1000 },
      { type: 'vad_end_of_speech', lastSpeechMs: LAST_SPEECH, atMs: 2000 },
    ]);
  });

  it('ignores an end of speech that has no start, and the STT speech events while a VAD is present', async () => {
    const r = rig();
    r.tracker.onVadEndOfSpeech(300);
    r.tracker.onSttStartOfSpeech();
    r.tracker.onSttEndOfSpeech();
    await r.at(MAX * 2);
    expect(r.userStates).toEqual([]);
    expect(r.turns).toEqual([]);
  });

  it('without a VAD, follows the STT start and end of speech', async () => {
    const r = rig({ vad: false });
    await r.at(1000);
    r.tracker.onSttStartOfSpeech();
    await r.at(2000);
    r.tracker.onSttEndOfSpeech();
    expect(r.userStates).toEqual(['speaking@1000', 'listening@2000']);
  });

  it('returns to listening at once when the speech source is lost, with or without a VAD', async () => {
    const withVad = rig();
    withVad.tracker.onVadStartOfSpeech(100);
    await withVad.at(500);
    withVad.tracker.onSpeechSourceLost();
    expect(withVad.userStates).toEqual(['speaking@0', 'listening@500']);

    const sttOnly = rig({ vad: false });
    sttOnly.tracker.onSttStartOfSpeech();
    await sttOnly.at(500);
    sttOnly.tracker.onSpeechSourceLost();
    expect(sttOnly.userStates).toEqual(['speaking@0', 'listening@500']);
  });

  it('ends a VAD speech when the VAD goes away', () => {
    const r = rig();
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.setVadPresent(false);
    expect(r.tracker.userState).toBe('listening');
  });

  it('goes away only from listening, and comes back to listening', () => {
    const r = rig();
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.setAway(true);
    expect(r.tracker.userState).toBe('speaking');
    r.tracker.onVadEndOfSpeech(0);
    r.tracker.setAway(true);
    expect(r.tracker.userState).toBe('away');
    r.tracker.setAway(true);
    r.tracker.setAway(false);
    expect(r.tracker.userState).toBe('listening');
    expect(r.userStates).toEqual(['speaking@0', 'listening@0', 'away@0', 'listening@0']);
  });

  it('a user who speaks while away is speaking', () => {
    const r = rig();
    r.tracker.setAway(true);
    r.tracker.onVadStartOfSpeech(100);
    expect(r.userStates).toEqual(['away@0', 'speaking@0']);
  });
});

describe('UserTurnTracker: endpointing without a turn detector', () => {
  it('commits exactly the minimum delay after the last speech, not a millisecond earlier', async () => {
    const r = rig();
    await utterance(r);
    expect(r.traces.find((t) => t.type === 'endpointing_started')).toEqual({
      type: 'endpointing_started',
      lastSpeechMs: LAST_SPEECH,
      minDelayMs: MIN,
      maxDelayMs: MAX,
      atMs: 2000,
    });
    expect(r.tracker.endpointingPending).toBe(true);
    await r.at(LAST_SPEECH + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MIN);
    expect(r.turns).toEqual([
      {
        turnId: 'turn_1',
        transcript: 'hello there',
        lastSpeechAtMs: LAST_SPEECH,
        committedAtMs: LAST_SPEECH + MIN,
        finalTranscriptAtMs: 1900,
        transcriptFinal: true,
      },
    ]);
    expect(r.tracker.endpointingPending).toBe(false);
    await r.at(MAX * 3);
    expect(r.turns).toHaveLength(1);
  });

  it('honours other delays: the min delay is measured from the last speech, not from the VAD report', async () => {
    const r = rig({ turnHandling: { minEndpointingDelay: 800, maxEndpointingDelay: 3000 } });
    await utterance(r);
    await r.at(LAST_SPEECH + 799);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + 800);
    expect(r.turns.map((t) => t.committedAtMs)).toEqual([LAST_SPEECH + 800]);
  });

  it('commits at once when the VAD reports the end later than the min delay', async () => {
    const r = rig({ turnHandling: { minEndpointingDelay: 200 } });
    await r.at(1000);
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.onFinalTranscript('hi', undefined);
    await r.at(2000);
    r.tracker.onVadEndOfSpeech(300);
    await r.at(2000);
    expect(r.turns.map((t) => t.committedAtMs)).toEqual([2000]);
  });

  it('new speech cancels a pending commit; the turn then ends after the new speech', async () => {
    const r = rig();
    await utterance(r);
    await r.at(2100);
    r.tracker.onVadStartOfSpeech(60);
    expect(r.tracker.endpointingPending).toBe(false);
    await r.at(3000);
    expect(r.turns).toEqual([]);
    r.tracker.onFinalTranscript('and more', undefined);
    r.tracker.onVadEndOfSpeech(300);
    await r.at(2700 + MIN);
    expect(r.turns).toMatchObject([{ transcript: 'hello there and more', committedAtMs: 2700 + MIN }]);
  });

  it('without a recognizer, commits at the min delay without waiting for words', async () => {
    const r = rig({ stt: false });
    await utterance(r, { finalAt: 'none' });
    await r.at(LAST_SPEECH + MIN);
    expect(r.turns).toMatchObject([{ transcript: '', committedAtMs: LAST_SPEECH + MIN }]);
  });
});

describe('UserTurnTracker: dating the end of speech', () => {
  it("dates the end of speech by when its audio arrived, so the VAD's analysis time adds no delay", async () => {
    const r = rig();
    await r.at(1000);
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.onFinalTranscript('hello there', undefined);
    // The VAD answered 80 ms after the audio that confirmed 300 ms of silence: the speech ended at 1700.
    await r.at(2080);
    r.tracker.onVadEndOfSpeech(300, 1700);
    await r.at(1700 + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(1700 + MIN);
    expect(r.turns).toMatchObject([{ lastSpeechAtMs: 1700, committedAtMs: 1700 + MIN }]);
  });

  it('keeps its own count when the date is later than the silence counted, or implausibly early', async () => {
    for (const given of [1900, -5000]) {
      const r = rig();
      await r.at(1000);
      r.tracker.onVadStartOfSpeech(100);
      r.tracker.onFinalTranscript('hello there', undefined);
      await r.at(2080);
      r.tracker.onVadEndOfSpeech(300, given);
      await r.at(2080 - 300 + MIN);
      expect(r.turns).toMatchObject([{ lastSpeechAtMs: 1780 }]);
    }
  });
});

describe('UserTurnTracker: waiting for the final transcript', () => {
  it('waits past the min delay for a pending final and commits as soon as it lands', async () => {
    const r = rig();
    await utterance(r, { finalAt: 3000 });
    expect(r.turns).toMatchObject([{ transcript: 'hello there', committedAtMs: 3000 }]);
  });

  it('a final that lands before the min delay still waits for the min delay', async () => {
    const r = rig();
    await utterance(r, { finalAt: 2100 });
    await r.at(LAST_SPEECH + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MIN);
    expect(r.turns).toMatchObject([{ transcript: 'hello there', committedAtMs: LAST_SPEECH + MIN }]);
  });

  it('gives up at the max delay and commits the empty turn', async () => {
    const r = rig();
    await utterance(r, { finalAt: 'none' });
    await r.at(LAST_SPEECH + MAX - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns).toMatchObject([
      { transcript: '', committedAtMs: LAST_SPEECH + MAX, finalTranscriptAtMs: undefined },
    ]);
  });

  it('does not commit on a final heard while the user speaks again', async () => {
    const r = rig();
    await utterance(r, { finalAt: 'none' });
    await r.at(2400);
    r.tracker.onVadStartOfSpeech(60);
    r.tracker.onFinalTranscript('hello', undefined);
    expect(r.turns).toEqual([]);
  });
});

describe('UserTurnTracker: endpointing with a turn detector', () => {
  it('waits the min delay when the end of turn is likely', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.9));
    await utterance(r);
    expect(r.detector.asked).toEqual(['hello there']);
    await r.at(LAST_SPEECH + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MIN);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MIN]);
    expect(r.traces.find((x) => x.type === 'end_of_turn_prediction')).toMatchObject({
      probability: 0.9,
      delayMs: MIN,
    });
  });

  it('waits the max delay when the end of turn is unlikely', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.2));
    await utterance(r);
    await r.at(LAST_SPEECH + MAX - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MAX]);
    expect(r.traces.find((x) => x.type === 'end_of_turn_prediction')).toMatchObject({
      probability: 0.2,
      delayMs: MAX,
    });
  });

  it('treats a probability exactly at the threshold as likely', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.5));
    await utterance(r);
    await r.at(LAST_SPEECH + MIN);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MIN]);
  });

  it('uses the threshold the detector gives for the language', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.6, { threshold: 0.7 }));
    await utterance(r);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MAX]);
  });

  it('a slow detector cannot hold the turn past the max delay', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.9, { delayMs: 60_000 }));
    await utterance(r);
    await r.at(LAST_SPEECH + MAX - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MAX]);
    await r.at(70_000);
    expect(r.turns).toHaveLength(1);
  });

  it('a detector that never answers is bounded by the max delay too', async () => {
    const r = sharedClockRig((clock) => detector(clock, 'never'));
    await utterance(r);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MAX]);
  });

  it('a likely verdict that arrives after the min delay commits at once, never earlier than the min', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.9, { delayMs: 1000 }));
    await utterance(r);
    await r.at(2999);
    expect(r.turns).toEqual([]);
    await r.at(3000);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([3000]);
  });

  it('a failing detector falls back to the min delay and reports the error', async () => {
    const failure = new Error('model crashed');
    const r = sharedClockRig((clock) => detector(clock, failure));
    await utterance(r);
    await r.at(LAST_SPEECH + MIN);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MIN]);
    expect(r.errors).toEqual([{ source: 'turn_detector', error: failure }]);
    expect(r.traces.find((x) => x.type === 'end_of_turn_prediction')).toMatchObject({
      probability: undefined,
      delayMs: MIN,
      error: 'Error: model crashed',
    });
  });

  it('a detector failing after the min delay commits at once', async () => {
    const r = sharedClockRig((clock) => detector(clock, new Error('late'), { delayMs: 2000 }));
    await utterance(r);
    await r.at(3999);
    expect(r.turns).toEqual([]);
    await r.at(4000);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([4000]);
  });

  it('is not asked without words, without a threshold, or for an unsupported language', async () => {
    for (const make of [
      (clock: VirtualClock) => detector(clock, 0.1, { threshold: undefined }),
      (clock: VirtualClock) => detector(clock, 0.1, { supports: false }),
    ]) {
      const r = sharedClockRig(make);
      await utterance(r);
      await r.at(LAST_SPEECH + MIN);
      expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MIN]);
      expect(r.detector.asked).toEqual([]);
    }
    const silent = sharedClockRig((clock) => detector(clock, 0.1));
    await utterance(silent, { text: '' });
    await silent.at(LAST_SPEECH + MIN);
    expect(silent.turns).toMatchObject([{ transcript: '', committedAtMs: LAST_SPEECH + MIN }]);
    expect(silent.detector.asked).toEqual([]);
  });

  it('asks again with better text when a final lands during endpointing, keeping the deadlines', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.2));
    await utterance(r, { finalAt: 'none', interim: 'hello' });
    // Only an interim so far: the detector hears it.
    expect(r.detector.asked).toEqual(['hello']);
    await r.at(2300);
    r.tracker.onFinalTranscript('hello there', undefined);
    expect(r.detector.asked).toEqual(['hello', 'hello there']);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns.map((x) => x.committedAtMs)).toEqual([LAST_SPEECH + MAX]);
  });
});

describe('UserTurnTracker: a turn detector with a recognizer that transcribes whole utterances', () => {
  // No interim, and the final lands after the min delay: the words arrive only then.
  it('asks about the final before committing, and waits the max delay when the turn sounds unfinished', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.2));
    await utterance(r, { finalAt: 3000, text: "I'd like to order, um" });
    expect(r.detector.asked).toEqual(["I'd like to order, um"]);
    await r.at(LAST_SPEECH + MAX - 1);
    expect(r.turns).toEqual([]);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns).toMatchObject([
      { transcript: "I'd like to order, um", committedAtMs: LAST_SPEECH + MAX },
    ]);
  });

  it('commits as soon as the detector finds the final complete', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.9, { delayMs: 40 }));
    await utterance(r, { finalAt: 3000, text: 'a large latte please' });
    await r.at(3039);
    expect(r.turns).toEqual([]);
    await r.at(3040);
    expect(r.turns).toMatchObject([{ transcript: 'a large latte please', committedAtMs: 3040 }]);
  });

  it('still commits on the final at once without a detector that judges the language', async () => {
    const r = sharedClockRig((clock) => detector(clock, 0.2, { supports: false }));
    await utterance(r, { finalAt: 3000 });
    expect(r.turns).toMatchObject([{ committedAtMs: 3000 }]);
    expect(r.detector.asked).toEqual([]);
  });
});

/** A rig whose detector sleeps on the tracker's own clock. */
function sharedClockRig(make: (clock: VirtualClock) => TurnDetector & { asked: string[] }) {
  let made: (TurnDetector & { asked: string[] }) | undefined;
  const lazy: TurnDetector = {
    specificationVersion: SPECIFICATION_VERSION,
    label: 'lazy',
    unlikelyThreshold: (language) => made!.unlikelyThreshold(language),
    predictEndOfTurn: (ctx, options) => made!.predictEndOfTurn(ctx, options),
  };
  const r = rig({ detector: lazy });
  made = make(r.clock);
  return { ...r, detector: made };
}

describe('UserTurnTracker: turn detection modes', () => {
  it('stt mode: the final ends the turn, the min delay after it, even before the VAD hears silence', async () => {
    const r = rig({ turnHandling: { turnDetection: 'stt' } });
    await r.at(1000);
    r.tracker.onVadStartOfSpeech(100);
    await r.at(1900);
    r.tracker.onFinalTranscript('book a table', undefined);
    await r.at(1900 + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(1900 + MIN);
    expect(r.turns).toMatchObject([{ transcript: 'book a table', committedAtMs: 1900 + MIN }]);
  });

  it('stt mode: the VAD end of speech alone starts no endpointing', async () => {
    const r = rig({ turnHandling: { turnDetection: 'stt' } });
    await utterance(r, { finalAt: 'none' });
    expect(r.tracker.endpointingPending).toBe(false);
    await r.at(MAX * 3);
    expect(r.turns).toEqual([]);
  });

  it('stt mode: a final while the recognizer reports speech starts no endpointing', async () => {
    const r = rig({ turnHandling: { turnDetection: 'stt' }, vad: false });
    r.tracker.onSttStartOfSpeech();
    r.tracker.onFinalTranscript('one', undefined);
    expect(r.tracker.endpointingPending).toBe(false);
  });

  it('vad mode without a VAD: the recognizer end of speech starts endpointing', async () => {
    const r = rig({ vad: false });
    await r.at(1000);
    r.tracker.onSttStartOfSpeech();
    await r.at(1800);
    r.tracker.onFinalTranscript('yes please', undefined);
    await r.at(2000);
    r.tracker.onSttEndOfSpeech();
    await r.at(2000 + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(2000 + MIN);
    expect(r.turns).toMatchObject([{ transcript: 'yes please', committedAtMs: 2000 + MIN }]);
  });

  it('vad mode without a VAD: a final after the recognizer end of speech restarts endpointing from it', async () => {
    const r = rig({ vad: false });
    r.tracker.onSttStartOfSpeech();
    await r.at(2000);
    r.tracker.onSttEndOfSpeech();
    await r.at(2300);
    r.tracker.onFinalTranscript('yes', undefined);
    await r.at(2300 + MIN - 1);
    expect(r.turns).toEqual([]);
    await r.at(2300 + MIN);
    expect(r.turns).toMatchObject([{ transcript: 'yes', committedAtMs: 2300 + MIN }]);
  });

  it('manual mode: nothing commits by itself; commitNow() commits what was heard', async () => {
    const r = rig({ turnHandling: { turnDetection: 'manual' } });
    await utterance(r);
    await r.at(MAX * 3);
    expect(r.turns).toEqual([]);
    r.tracker.commitNow();
    expect(r.turns).toMatchObject([{ transcript: 'hello there', committedAtMs: MAX * 3 }]);
  });

  it('manual mode without a VAD: the recognizer end of speech starts no endpointing either', async () => {
    const r = rig({ turnHandling: { turnDetection: 'manual' }, vad: false });
    r.tracker.onSttStartOfSpeech();
    r.tracker.onFinalTranscript('hi', undefined);
    r.tracker.onSttEndOfSpeech();
    expect(r.tracker.endpointingPending).toBe(false);
  });

  it('clear() forgets what was heard and cancels the pending commit', async () => {
    const r = rig();
    await utterance(r);
    r.tracker.clear();
    expect(r.tracker.pendingTranscript).toBe('');
    await r.at(MAX * 3);
    expect(r.turns).toEqual([]);
    r.tracker.commitNow();
    expect(r.turns).toMatchObject([{ transcript: '' }]);
  });

  it('dispose() cancels every timer', async () => {
    const r = rig();
    await utterance(r, { finalAt: 'none' });
    r.tracker.dispose();
    await r.at(MAX * 3);
    expect(r.turns).toEqual([]);
    expect(r.clock.pendingTimers).toBe(0);
  });
});

describe('UserTurnTracker: transcripts', () => {
  it('joins finals, and an interim replaces the previous interim', () => {
    const r = rig();
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.onInterimTranscript('I', undefined);
    r.tracker.onInterimTranscript('I would', undefined);
    expect(r.tracker.pendingTranscript).toBe('I would');
    r.tracker.onFinalTranscript(' I would like ', undefined);
    r.tracker.onInterimTranscript('a', undefined);
    expect(r.tracker.heardBefore).toBe('I would like');
    expect(r.tracker.pendingTranscript).toBe('I would like a');
    r.tracker.onFinalTranscript('a coffee', undefined);
    expect(r.tracker.pendingTranscript).toBe('I would like a coffee');
  });

  it('a late final only corrects the turn committed from an interim, and does not count for the next turn', async () => {
    const r = rig();
    await utterance(r, { finalAt: 'none', interim: 'book' });
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns).toMatchObject([{ turnId: 'turn_1', transcript: 'book', transcriptFinal: false }]);
    expect(r.tracker.nextFinalIsLate).toBe(true);
    await r.at(8000);
    r.tracker.onFinalTranscript('book a table', undefined);
    expect(r.lateFinals).toEqual([{ turnId: 'turn_1', transcript: 'book a table', atMs: 8000 }]);
    expect(r.tracker.nextFinalIsLate).toBe(false);
    expect(r.tracker.pendingTranscript).toBe('');
    r.tracker.commitNow();
    expect(r.turns[1]).toMatchObject({ transcript: '' });
  });

  it('a late final keeps the finals the turn already held and replaces only its interim', async () => {
    const r = rig();
    await r.at(1000);
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.onFinalTranscript('book a table', undefined);
    await r.at(1400);
    r.tracker.onInterimTranscript('for', undefined);
    await r.at(2000);
    r.tracker.onVadEndOfSpeech(300);
    await r.at(LAST_SPEECH + MAX);
    expect(r.turns).toMatchObject([{ transcript: 'book a table for', transcriptFinal: false }]);
    await r.at(8000);
    r.tracker.onFinalTranscript('for two', undefined);
    expect(r.lateFinals).toEqual([{ turnId: 'turn_1', transcript: 'book a table for two', atMs: 8000 }]);
  });

  it('gives a turn the mean confidence of its finals, and none when one final or an interim has none', async () => {
    const r = rig();
    await r.at(1000);
    r.tracker.onVadStartOfSpeech(100);
    r.tracker.onFinalTranscript('book a table', undefined, 0.9);
    r.tracker.onFinalTranscript('for two', undefined, 0.7);
    r.tracker.commitNow();
    expect(r.turns[0]?.transcriptConfidence).toBeCloseTo(0.8);
    r.tracker.onFinalTranscript('thanks', undefined, 0.9);
    r.tracker.onFinalTranscript('bye', undefined);
    r.tracker.commitNow();
    expect(r.turns[1]).toMatchObject({ transcript: 'thanks bye', transcriptConfidence: undefined });
    r.tracker.onFinalTranscript('one', undefined, 0.9);
    r.tracker.onInterimTranscript('two', undefined);
    r.tracker.commitNow();
    expect(r.turns[2]).toMatchObject({ transcript: 'one two', transcriptConfidence: undefined });
  });

  it('a turn committed from a final expects no late final', async () => {
    const r = rig();
    await utterance(r);
    await r.at(LAST_SPEECH + MIN);
    expect(r.tracker.nextFinalIsLate).toBe(false);
    r.tracker.onFinalTranscript('extra', undefined);
    expect(r.lateFinals).toEqual([]);
    expect(r.tracker.pendingTranscript).toBe('extra');
  });

  it('new speech after a commit from an interim means the next final belongs to the new turn', async () => {
    const r = rig();
    await utterance(r, { finalAt: 'none', interim: 'book' });
    await r.at(LAST_SPEECH + MAX);
    r.tracker.onVadStartOfSpeech(100);
    expect(r.tracker.nextFinalIsLate).toBe(false);
    r.tracker.onFinalTranscript('cancel that', undefined);
    expect(r.lateFinals).toEqual([]);
    expect(r.tracker.pendingTranscript).toBe('cancel that');
  });

  it('an empty late final corrects nothing', async () => {
    const r = rig();
    await utterance(r, { finalAt: 'none', interim: 'book' });
    await r.at(LAST_SPEECH + MAX);
    r.tracker.onFinalTranscript('  ', undefined);
    expect(r.lateFinals).toEqual([]);
    expect(r.tracker.nextFinalIsLate).toBe(false);
  });
});

describe('maxUserTurnDuration', () => {
  it('tells the listener once per turn, from the first speech of the turn, across pauses', async () => {
    const { tracker, exceeded, turns, at } = rig({
      turnHandling: { maxUserTurnDuration: 3000, minEndpointingDelay: 500, maxEndpointingDelay: 500 },
    });
    await at(1000);
    tracker.onVadStartOfSpeech(0);
    tracker.onInterimTranscript('one two', undefined);
    await at(2000);
    tracker.onVadEndOfSpeech(0);
    await at(2300);
    // A pause shorter than the endpointing delay: the same turn goes on.
    tracker.onVadStartOfSpeech(0);
    await at(3990);
    expect(exceeded).toEqual([]);
    await at(4000);
    expect(exceeded).toEqual([{ transcript: 'one two', durationMs: 3000, userSpeaking: true, atMs: 4000 }]);
    await at(9000);
    expect(exceeded).toHaveLength(1);
    tracker.onVadEndOfSpeech(0);
    await at(9600);
    expect(turns).toHaveLength(1);
    // The next turn has a limit of its own.
    tracker.onVadStartOfSpeech(0);
    await at(12_600);
    expect(exceeded.map((e) => e.atMs)).toEqual([4000, 12_600]);
  });

  it('a commit, a clear or input turned off ends the count; null (the default) never counts', async () => {
    const limited = rig({ turnHandling: { maxUserTurnDuration: 1000 } });
    limited.tracker.onVadStartOfSpeech(0);
    await limited.at(500);
    limited.tracker.clear();
    await limited.at(1500);
    limited.tracker.onInputDisabled();
    await limited.at(5000);
    expect(limited.exceeded).toEqual([]);
    const unlimited = rig();
    unlimited.tracker.onVadStartOfSpeech(0);
    await unlimited.at(60_000);
    expect(unlimited.exceeded).toEqual([]);
    expect(() => resolveTurnHandling({ maxUserTurnDuration: 0 })).toThrow(RangeError);
  });
});
