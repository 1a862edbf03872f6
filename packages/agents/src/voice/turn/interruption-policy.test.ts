import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../time/virtual-clock.js';
import { resolveTurnHandling, type TurnHandlingOptions } from '../session/options.js';
import type { EventPayload } from '../session/session-reporter.js';
import type { TraceRecord } from '../session/trace.js';
import { PlayoutGate } from '../speech/playout-gate.js';
import { SpeechHandle } from '../speech/speech-handle.js';
import { InterruptionPolicy } from './interruption-policy.js';

/** What the policy can see of the session: who holds the output, who plays, whose tools run. */
interface World {
  /** The speech whose step holds the output. */
  current: SpeechHandle | undefined;
  /** The speech whose frames reach the output. */
  playing: SpeechHandle | undefined;
  /** Speeches whose tools are running, oldest first. */
  toolPhase: SpeechHandle[];
  endpointingPending: boolean;
  /** The step of `current` that holds the output. */
  step: number;
}

class PausableSink {
  readonly canPause = true;
  pauses = 0;
  resumes = 0;
  pause(): void {
    this.pauses++;
  }
  resume(): void {
    this.resumes++;
  }
  clears = 0;
  clearBuffer(): void {
    this.clears++;
  }
}

function rig(turnHandling: Partial<TurnHandlingOptions> = {}) {
  const clock = new VirtualClock({ autoAdvance: false });
  const gate = new PlayoutGate();
  const sink = new PausableSink();
  const world: World = {
    current: undefined,
    playing: undefined,
    toolPhase: [],
    endpointingPending: false,
    step: 1,
  };
  const traces: Array<TraceRecord & { atMs: number }> = [];
  const falseInterruptions: string[] = [];
  let pauseChanges = 0;
  const policy = new InterruptionPolicy({
    clock,
    // The plain thresholds, unless a test gives a detector (the session's default is the local one).
    options: resolveTurnHandling({ interruptionDetector: null, ...turnHandling }),
    gate,
    audioOutput: sink,
    scheduler: {
      get current() {
        return world.current;
      },
      get currentStep() {
        return world.current ? world.step : undefined;
      },
    },
    activity: {
      get playingSpeech() {
        return world.playing;
      },
      get latestToolPhaseSpeech() {
        return world.toolPhase[world.toolPhase.length - 1];
      },
      outputPauseChanged: () => pauseChanges++,
    },
    turns: {
      get endpointingPending() {
        return world.endpointingPending;
      },
    },
    reporter: {
      trace: (record) => traces.push({ ...record, atMs: clock.now() }),
      event: (name, payload) => {
        if (name !== 'agent_false_interruption') return;
        const { speechId, resumed } = payload as unknown as EventPayload<'agent_false_interruption'>;
        falseInterruptions.push(`${speechId}@${clock.now()}${resumed ? '' : ' (not resumed)'}`);
      },
    },
  });
  const at = (ms: number): Promise<void> => clock.advance(ms - clock.now());
  /** A speech that holds the output and sends frames. */
  const playing = (options: { allowInterruptions?: boolean } = {}): SpeechHandle => {
    const handle = speech(options.allowInterruptions ?? true);
    world.current = handle;
    world.playing = handle;
    return handle;
  };
  const kinds = (type: TraceRecord['type']) => traces.filter((t) => t.type === type);
  return {
    clock,
    gate,
    sink,
    world,
    traces,
    falseInterruptions,
    policy,
    at,
    playing,
    kinds,
    pauseChanges: () => pauseChanges,
  };
}

let speechCount = 0;
function speech(allowInterruptions = true): SpeechHandle {
  return new SpeechHandle({ id: `speech_${++speechCount}`, allowInterruptions, source: 'say' });
}

describe('InterruptionPolicy: pausing', () => {
  it('pauses a playing interruptible speech the moment the user starts talking, sink included', () => {
    const r = rig();
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    expect(r.policy.pausedSpeech).toBe(h);
    expect(r.gate.paused).toBe(true);
    expect(r.sink.pauses).toBe(1);
    expect(r.kinds('speech_paused')).toEqual([{ type: 'speech_paused', speechId: h.id, atMs: 0 }]);
    expect(r.pauseChanges()).toBe(1);
    expect(h.interrupted).toBe(false);
  });

  it('holds back the first frame of a speech that starts while the user talks, leaving the sink alone', () => {
    const r = rig();
    r.policy.onUserSpeechStarted();
    const h = speech();
    r.world.current = h;
    expect(r.gate.paused).toBe(false);
    r.policy.onFrameReady(h);
    expect(r.policy.pausedSpeech).toBe(h);
    expect(r.gate.paused).toBe(true);
    expect(r.sink.pauses).toBe(0);
    // It appeared while the user talked: only the speech after that can cut it, and a word alone cannot.
    r.policy.onUserTranscript('stop');
    expect(h.interrupted).toBe(false);
    // Cut before its first frame: the gate opens and the sink, never paused, is not resumed either.
    r.policy.onUserSpeechProgress(600);
    expect(h.interrupted).toBe(true);
    expect(r.gate.paused).toBe(false);
    expect(r.sink.resumes).toBe(0);
  });

  it('lets frames through while nobody speaks', () => {
    const r = rig();
    const h = r.playing();
    r.policy.onFrameReady(h);
    expect(r.gate.paused).toBe(false);
  });

  it('does not pause a speech that holds the output before its first frame (the frame itself is held)', () => {
    const r = rig();
    const h = speech();
    r.world.current = h;
    r.policy.onUserSpeechStarted();
    expect(r.policy.pausedSpeech).toBeUndefined();
    r.policy.onFrameReady(h);
    expect(r.policy.pausedSpeech).toBe(h);
  });

  it('never pauses or cuts an uninterruptible speech, whatever the user does', async () => {
    const r = rig({ resumeFalseInterruption: false });
    const h = r.playing({ allowInterruptions: false });
    r.policy.onUserSpeechStarted();
    r.policy.onFrameReady(h);
    r.policy.onUserSpeechProgress(5000);
    r.policy.onUserTranscript('stop stop stop please stop');
    r.policy.onTurnCommitted('stop stop stop please stop');
    await r.at(10_000);
    expect(r.gate.paused).toBe(false);
    expect(h.interrupted).toBe(false);
    expect(r.traces).toEqual([]);
  });

  it('treats a speech with an interruption hold as uninterruptible until the last hold is released', () => {
    const r = rig();
    const h = r.playing();
    const releaseA = h.holdInterruptions();
    const releaseB = h.holdInterruptions();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(600);
    r.policy.onUserTranscript('stop');
    expect(r.gate.paused).toBe(false);
    releaseA();
    r.policy.onUserTranscript('stop now');
    expect(h.interrupted).toBe(false);
    releaseB();
    r.policy.onUserTranscript('stop now please');
    expect(h.interrupted).toBe(true);
    expect(r.kinds('speech_interrupted')).toMatchObject([{ speechId: h.id, reason: 'user_words' }]);
  });
});

describe('InterruptionPolicy: cutting', () => {
  it('without false-interruption resume, cuts at exactly the minimum duration', () => {
    const r = rig({ resumeFalseInterruption: false, minInterruptionDuration: 500 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(499);
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechProgress(500);
    expect(h.interrupted).toBe(true);
    expect(h.interruptReason).toBe('user_speech');
    expect(r.kinds('speech_interrupt_requested')).toMatchObject([{ force: false, reason: 'user_speech' }]);
    expect(r.kinds('speech_interrupted')).toMatchObject([
      { speechId: h.id, reason: 'user_speech', userSpeechMs: 500, userWords: 0 },
    ]);
    // The cut speech stays silent: its pause ends without resuming the sink.
    expect(r.gate.paused).toBe(false);
    expect(r.sink.resumes).toBe(0);
    expect(r.falseInterruptions).toEqual([]);
  });

  it('counts the longest speech duration reported, and only while the user speaks', () => {
    const r = rig({ resumeFalseInterruption: false });
    const h = r.playing();
    r.policy.onUserSpeechProgress(900);
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(450);
    r.policy.onUserSpeechProgress(300);
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechProgress(520);
    expect(h.interrupted).toBe(true);
  });

  it('with false-interruption resume, a long speech over a playing speech pauses it without cutting it', () => {
    const r = rig();
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(3000);
    expect(h.interrupted).toBe(false);
    expect(r.policy.pausedSpeech).toBe(h);
  });

  it('with false-interruption resume, cuts at the minimum duration a speech that is not playing (its tools run)', () => {
    const r = rig();
    const h = speech();
    r.world.toolPhase = [h];
    r.policy.onUserSpeechStarted();
    expect(r.gate.paused).toBe(false);
    r.policy.onUserSpeechProgress(499);
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechProgress(500);
    expect(h.interruptReason).toBe('user_speech');
  });

  it('cuts on words once the transcript reaches the minimum words', () => {
    const r = rig({ minInterruptionWords: 3 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(600);
    r.policy.onUserTranscript('wait a');
    expect(h.interrupted).toBe(false);
    r.policy.onUserTranscript('wait a second');
    expect(h.interruptReason).toBe('user_words');
    expect(r.kinds('speech_interrupted')).toMatchObject([{ userWords: 3 }]);
  });

  it('with minimum words 0, any word cuts once the speech reached the minimum duration', () => {
    const r = rig({ minInterruptionWords: 0 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(300);
    r.policy.onUserTranscript('mm');
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechProgress(500);
    expect(h.interruptReason).toBe('user_words');
  });

  it('a word threshold is an additional condition: duration and words are both needed', () => {
    const r = rig({ minInterruptionWords: 2, resumeFalseInterruption: false });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(2000);
    r.policy.onUserTranscript('mm');
    expect(h.interrupted).toBe(false);
    r.policy.onUserTranscript('mm hmm');
    expect(h.interruptReason).toBe('user_words');
  });

  it('a word arriving after the user stopped does not cut when the speech was too short', async () => {
    const r = rig();
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(400);
    r.policy.onUserSpeechEnded();
    r.policy.onUserTranscript('mm');
    r.policy.onTurnCommitted('mm');
    await r.at(10_000);
    expect(h.interrupted).toBe(false);
    expect(r.falseInterruptions).toEqual([`${h.id}@0`]);
  });

  it('words cut only while the user speaks or the speech is paused', () => {
    const r = rig();
    const h = r.playing();
    r.policy.onUserTranscript('stop talking now');
    expect(h.interrupted).toBe(false);
  });

  it('words that arrive after the user stopped still cut a paused speech, which then never resumes', async () => {
    const r = rig();
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    await r.at(1000);
    r.policy.onUserSpeechEnded();
    await r.at(1500);
    r.policy.onUserTranscript('wait');
    expect(h.interruptReason).toBe('user_words');
    await r.at(10_000);
    expect(r.falseInterruptions).toEqual([]);
    expect(r.kinds('speech_resumed')).toEqual([]);
  });

  it('a committed turn with enough words cuts an interruptible speech', () => {
    const r = rig({ minInterruptionWords: 2 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(600);
    r.policy.onTurnCommitted('hello');
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(600);
    r.policy.onTurnCommitted('hello there');
    expect(h.interruptReason).toBe('user_turn');
  });

  it('a committed turn cuts only when its speech reached the minimum duration', () => {
    const r = rig({ minInterruptionWords: 0 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(499);
    r.policy.onTurnCommitted('two words');
    expect(h.interrupted).toBe(false);
    // Speech the committed turn already had never counts again, even in the same utterance.
    r.policy.onUserSpeechProgress(900);
    r.policy.onTurnCommitted('two words');
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(500);
    r.policy.onTurnCommitted('two words');
    expect(h.interruptReason).toBe('user_turn');
  });

  it('an empty committed turn never cuts, however long the user spoke', () => {
    const r = rig({ resumeFalseInterruption: true });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(5000);
    r.policy.onTurnCommitted('');
    expect(h.interrupted).toBe(false);
  });

  it('cuts the speech holding the output rather than one whose tools run', () => {
    const r = rig({ resumeFalseInterruption: false });
    const a = r.playing();
    const b = speech();
    r.world.toolPhase = [b];
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(600);
    expect(a.interrupted).toBe(true);
    expect(b.interrupted).toBe(false);
  });

  it('with nothing holding the output, cuts the speech whose tools started last', () => {
    const r = rig();
    const a = speech();
    const b = speech();
    r.world.toolPhase = [a, b];
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(600);
    r.policy.onUserTranscript('cancel');
    expect(b.interrupted).toBe(true);
    expect(a.interrupted).toBe(false);
  });
});

describe('InterruptionPolicy: what counts against a speech step', () => {
  it('a step that takes the output while the user talks is cut only by the speech after it began', () => {
    const r = rig({ resumeFalseInterruption: false });
    const h = speech();
    r.world.toolPhase = [h];
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(300);
    // The tools finish within the same instant and the next step takes the output.
    r.world.toolPhase = [];
    r.world.current = h;
    r.world.step = 2;
    // The first report it sees is its baseline: what that report covers may predate the step.
    r.policy.onUserSpeechProgress(700);
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechProgress(1199);
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechProgress(1200);
    expect(h.interruptReason).toBe('user_speech');
    expect(r.kinds('speech_interrupted')).toMatchObject([{ userSpeechMs: 500 }]);
  });

  it('speech of a committed turn never cuts the reply to it, even while the VAD still hears it', () => {
    const r = rig({ resumeFalseInterruption: false, turnDetection: 'stt' });
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(1000);
    r.policy.onUserTranscript('what time is it');
    r.policy.onTurnCommitted('what time is it');
    const reply = speech();
    r.world.current = reply;
    r.policy.onUserSpeechProgress(1000);
    r.policy.onUserTranscript('what time is it');
    expect(reply.interrupted).toBe(false);
    r.policy.onUserSpeechEnded();
    expect(reply.interrupted).toBe(false);
  });
});

describe('InterruptionPolicy: without a VAD', () => {
  it('measures the speech on the clock from the first transcript', async () => {
    const r = rig({ resumeFalseInterruption: false });
    const h = r.playing();
    await r.at(1000);
    r.policy.onRecognizerHeardSpeech(true);
    r.policy.onUserTranscript('wait');
    expect(h.interrupted).toBe(false);
    await r.at(1400);
    r.policy.onRecognizerHeardSpeech(true);
    r.policy.onUserTranscript('wait a');
    expect(h.interrupted).toBe(false);
    await r.at(1500);
    r.policy.onRecognizerHeardSpeech(true);
    r.policy.onUserTranscript('wait a second');
    expect(h.interruptReason).toBe('user_words');
  });

  it("with the recognizer's speech events, measures from its start of speech; a late final starts nothing", async () => {
    const r = rig({ resumeFalseInterruption: false });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    await r.at(300);
    r.policy.onRecognizerHeardSpeech(false);
    r.policy.onUserTranscript('wait');
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechEnded();
    await r.at(2000);
    r.policy.onRecognizerHeardSpeech(false);
    r.policy.onUserTranscript('wait');
    expect(h.interrupted).toBe(false);
    expect(r.gate.paused).toBe(false);
    await r.at(3000);
    r.policy.onUserSpeechStarted();
    await r.at(3500);
    r.policy.onRecognizerHeardSpeech(false);
    expect(h.interruptReason).toBe('user_speech');
  });
});

describe('InterruptionPolicy: false interruptions', () => {
  it('resumes a short noise at once when the user stops, announced once', async () => {
    const r = rig();
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(200);
    await r.at(300);
    r.policy.onUserSpeechEnded();
    expect(r.falseInterruptions).toEqual([`${h.id}@300`]);
    expect(r.kinds('speech_resumed')).toEqual([
      { type: 'speech_resumed', speechId: h.id, falseInterruption: true, atMs: 300 },
    ]);
    expect(r.gate.paused).toBe(false);
    expect(r.sink.resumes).toBe(1);
    expect(r.policy.pausedSpeech).toBeUndefined();
  });

  it('resumes a long speech without words exactly the false-interruption timeout after the user stops', async () => {
    const r = rig({ falseInterruptionTimeout: 2000 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    await r.at(1000);
    r.policy.onUserSpeechEnded();
    await r.at(2999);
    expect(r.falseInterruptions).toEqual([]);
    expect(r.gate.paused).toBe(true);
    await r.at(3000);
    expect(r.falseInterruptions).toEqual([`${h.id}@3000`]);
    expect(r.sink.resumes).toBe(1);
    expect(h.interrupted).toBe(false);
  });

  it('a speech with words below the minimum waits out the timeout as well', async () => {
    const r = rig({ minInterruptionWords: 3, falseInterruptionTimeout: 1000 });
    r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserTranscript('uh');
    r.policy.onUserSpeechEnded();
    expect(r.falseInterruptions).toEqual([]);
    await r.at(1000);
    expect(r.falseInterruptions).toHaveLength(1);
  });

  it('does not resume while the user talks again, and restarts the timeout when they stop', async () => {
    const r = rig({ falseInterruptionTimeout: 2000 });
    r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserSpeechEnded();
    await r.at(1500);
    r.policy.onUserSpeechStarted();
    await r.at(4000);
    expect(r.falseInterruptions).toEqual([]);
    r.policy.onUserSpeechProgress(700);
    r.policy.onUserSpeechEnded();
    await r.at(5999);
    expect(r.falseInterruptions).toEqual([]);
    await r.at(6000);
    expect(r.falseInterruptions).toHaveLength(1);
  });

  it('a lost VAD while nobody speaks does not re-arm the timeout', async () => {
    const r = rig({ falseInterruptionTimeout: 2000 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserSpeechEnded();
    await r.at(1500);
    r.policy.onUserSpeechEnded();
    await r.at(2000);
    expect(r.falseInterruptions).toEqual([`${h.id}@2000`]);
  });

  it('at the timeout, waits for a pending end-of-turn decision; a skipped turn then resumes', async () => {
    const r = rig({ falseInterruptionTimeout: 1000, minInterruptionWords: 3 });
    const h = r.playing();
    r.world.endpointingPending = true;
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserTranscript('um');
    r.policy.onUserSpeechEnded();
    await r.at(5000);
    expect(r.falseInterruptions).toEqual([]);
    r.policy.onTurnSkipped();
    expect(r.falseInterruptions).toEqual([`${h.id}@5000`]);
  });

  it('a committed turn too short to cut resumes a speech waiting on the decision', async () => {
    const r = rig({ falseInterruptionTimeout: 1000, minInterruptionWords: 3 });
    const h = r.playing();
    r.world.endpointingPending = true;
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserTranscript('um');
    r.policy.onUserSpeechEnded();
    await r.at(1000);
    r.policy.onTurnCommitted('um');
    expect(h.interrupted).toBe(false);
    expect(r.falseInterruptions).toEqual([`${h.id}@1000`]);
  });

  it('a turn decision while the timeout runs leaves the pause to the timeout', async () => {
    const r = rig({ falseInterruptionTimeout: 1000, minInterruptionWords: 3 });
    r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserTranscript('um');
    r.policy.onUserSpeechEnded();
    // The timer runs and no decision was awaited yet: the timer decides.
    r.policy.onTurnSkipped();
    expect(r.falseInterruptions).toEqual([]);
    await r.at(1000);
    expect(r.falseInterruptions).toHaveLength(1);
  });

  it('a turn decision never resumes over a user who is still talking', () => {
    const r = rig();
    r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onTurnSkipped();
    r.policy.onTurnCommitted('');
    expect(r.falseInterruptions).toEqual([]);
    expect(r.gate.paused).toBe(true);
  });

  it('words of a committed turn do not count for the next pause: a short noise resumes at once again', () => {
    const r = rig({ minInterruptionWords: 3 });
    const h = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserTranscript('hi there');
    r.policy.onTurnCommitted('hi there');
    expect(h.interrupted).toBe(false);
    r.policy.onUserSpeechEnded();
    expect(r.falseInterruptions).toEqual([`${h.id}@0`]);
  });

  it('a speech cut or ended while paused is released and never resumed', async () => {
    const r = rig({ falseInterruptionTimeout: 1000 });
    const cut = r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserSpeechEnded();
    cut.requestInterrupt('api', false);
    expect(r.gate.paused).toBe(false);
    expect(r.policy.pausedSpeech).toBeUndefined();
    await r.at(5000);
    expect(r.falseInterruptions).toEqual([]);
    expect(r.sink.resumes).toBe(0);

    const ended = r.playing();
    r.policy.onUserSpeechStarted();
    ended.markDone('played');
    expect(r.gate.paused).toBe(false);
    // Its sink, paused for it, is not left paused for the speeches after it.
    expect(r.sink.resumes).toBe(1);
    r.policy.onUserSpeechEnded();
    expect(r.falseInterruptions).toEqual([]);
  });

  it('a speech cut after its audio left the sink (its step over, tools running) does not leave the sink paused', () => {
    const r = rig({ falseInterruptionTimeout: 1000 });
    const cut = r.playing();
    r.policy.onUserSpeechStarted();
    expect(r.sink.pauses).toBe(1);
    // The step ends (its sink reported the end of playout) and the speech runs its tools.
    r.world.current = undefined;
    r.world.playing = undefined;
    r.world.toolPhase.push(cut);
    cut.requestInterrupt('user_speech', false);
    expect(r.gate.paused).toBe(false);
    // Nothing of it is left to play: the pause ends by clearing, never by a resume.
    expect(r.sink.clears).toBe(1);
    expect(r.sink.resumes).toBe(0);

    // Cut while its audio is still in the sink: its playout clears the sink itself.
    const playing = r.playing();
    r.policy.onUserSpeechStarted();
    playing.requestInterrupt('user_speech', false);
    expect(r.sink.clears).toBe(1);
  });

  it('announces at most one false interruption per pause', async () => {
    const r = rig();
    r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechEnded();
    r.policy.onTurnSkipped();
    r.policy.onTurnCommitted('');
    await r.at(10_000);
    expect(r.falseInterruptions).toHaveLength(1);
    expect(r.kinds('speech_paused')).toHaveLength(1);
  });

  it('dispose() opens the gate and cancels the timeout', async () => {
    const r = rig();
    r.playing();
    r.policy.onUserSpeechStarted();
    r.policy.onUserSpeechProgress(800);
    r.policy.onUserSpeechEnded();
    r.policy.dispose();
    expect(r.gate.paused).toBe(false);
    expect(r.clock.pendingTimers).toBe(0);
    await r.at(10_000);
    expect(r.falseInterruptions).toEqual([]);
  });
});
