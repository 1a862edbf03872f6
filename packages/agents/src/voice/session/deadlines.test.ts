// Every step has an end: hung providers and sinks become `error` events, and the next turn is answered.
import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import type { LLMChatOptions, LLMStreamPart } from '../../providers/llm.js';
import type { STTEvent, STTStream, STTStreamOptions } from '../../providers/stt.js';
import type { StreamingTTS, SynthesizedAudio, TTSStream } from '../../providers/tts.js';
import {
  FakeLLM,
  FakeSTT,
  FakeTTS,
  historyText,
  type SpeechSegment,
  startSession,
} from '../../test-support/session-harness.js';
import type { Clock } from '../../time/clock.js';
import { Agent } from '../agent/agent.js';
import { NullAudioOutput } from '../io/null-audio-output.js';
import { resolveDeadlines } from './deadlines.js';
import type { SessionEvents } from './session-events.js';

type ErrorEvent = SessionEvents['error'];

/** Answers its first request with one word and then nothing, ignoring its abort signal; then works. */
class StallingLLM extends FakeLLM {
  private calls = 0;
  override async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    if (this.calls++ === 0) {
      await this.clockRef.sleep(100);
      yield { type: 'text_delta', text: 'Well, let me see. ' };
      await new Promise<never>(() => {});
    }
    yield* super.chat(options);
  }
  constructor(
    private readonly clockRef: Clock,
    replies: Array<{ text: string }>,
  ) {
    super(clockRef, replies);
  }
}

/** The first stream takes text but never yields audio (and ignores its signal); later ones work. */
class MuteFirstTTS extends FakeTTS implements StreamingTTS {
  private streams = 0;
  override stream(options: { signal?: AbortSignal } = {}): TTSStream {
    if (this.streams++ > 0) return super.stream(options);
    return {
      pushText: () => {},
      flush: () => {},
      endInput: () => {},
      close: async () => {},
      [Symbol.asyncIterator]: (): AsyncIterator<SynthesizedAudio> => ({ next: () => new Promise(() => {}) }),
    };
  }
}

/** A sink that swallows audio and never reports playback finished, counting what waits on it. */
class SilentSink extends NullAudioOutput {
  protected override onFlush(): void {}
  protected override onClearBuffer(): void {}
  get waiting(): number {
    return this.pendingPlayoutWaits;
  }
}

/** `captureFrame` never resolves after `hangAfter` frames of its first segment; later segments work. */
class StuckCaptureSink extends NullAudioOutput {
  private frames = 0;
  private segments = 0;
  constructor(
    clock: Clock,
    private readonly hangAfter: number,
  ) {
    super(clock);
  }
  override captureFrame(frame: AudioFrame): Promise<void> {
    if (this.segments === 0 && ++this.frames > this.hangAfter) return new Promise(() => {});
    return super.captureFrame(frame);
  }
  override flush(): void {
    this.segments++;
    super.flush();
  }
  override clearBuffer(): void {
    if (this.frames > 0) this.segments++;
    super.clearBuffer();
  }
}

/** Hears the first utterance, then takes audio without ever answering again (a stalled socket). */
class GoingSilentSTT extends FakeSTT {
  streamsOpened = 0;
  override stream(options: STTStreamOptions): STTStream {
    const inner = super.stream(options);
    if (this.streamsOpened++ > 0) return inner;
    let answered = 0;
    const events = inner[Symbol.asyncIterator]();
    return {
      ...inner,
      [Symbol.asyncIterator]: (): AsyncIterator<STTEvent> => ({
        next: async () => {
          if (answered >= 2) return new Promise(() => {});
          const next = await events.next();
          if (!next.done) answered++;
          return next;
        },
      }),
    };
  }
}

/** Sends nothing at all for its first request (a model that never starts); then works. */
class SilentFirstLLM extends FakeLLM {
  private calls = 0;
  override async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    if (this.calls++ === 0) await new Promise<never>(() => {});
    yield* super.chat(options);
  }
}

/** Streams `parts` with the given pauses before each (a slow but healthy model). */
class PausingLLM extends FakeLLM {
  constructor(
    private readonly clockRef: Clock,
    private readonly parts: Array<{ afterMs: number; text: string }>,
  ) {
    super(clockRef, []);
  }
  override async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    for (const part of this.parts) {
      await this.clockRef.sleep(part.afterMs, options.signal);
      yield { type: 'text_delta', text: part.text };
    }
    yield { type: 'finish', reason: 'stop' };
  }
}

/** The first stream yields a few frames, then no more (and ignores its signal); later ones work. */
class StallingTTS extends FakeTTS {
  private streams = 0;
  override stream(options: { signal?: AbortSignal } = {}): TTSStream {
    const inner = super.stream(options);
    if (this.streams++ > 0) return inner;
    let yielded = 0;
    const audio = inner[Symbol.asyncIterator]();
    return {
      ...inner,
      [Symbol.asyncIterator]: (): AsyncIterator<SynthesizedAudio> => ({
        next: () => (yielded++ < 25 ? audio.next() : new Promise(() => {})),
      }),
    };
  }
}

/** Reports only final transcripts, at the end of each utterance (a recognizer without interims). */
class FinalsOnlySTT extends FakeSTT {
  override stream(options: STTStreamOptions): STTStream {
    const inner = super.stream(options);
    const events = inner[Symbol.asyncIterator]();
    return {
      ...inner,
      [Symbol.asyncIterator]: (): AsyncIterator<STTEvent> => ({
        next: async () => {
          for (;;) {
            const next = await events.next();
            if (next.done || next.value.type !== 'interim_transcript') return next;
          }
        },
      }),
    };
  }
}

function errorsOf(h: { session: { on: (name: 'error', fn: (e: ErrorEvent) => void) => void } }) {
  const errors: ErrorEvent[] = [];
  h.session.on('error', (e) => errors.push(e));
  return errors;
}

describe('deadlines on provider streams', () => {
  it('ends a reply whose LLM stops mid-stream with an llm error, and answers the next turn', async () => {
    const segments: SpeechSegment[] = [
      { startMs: 500, endMs: 1000, transcript: 'first question' },
      { startMs: 9000, endMs: 9500, transcript: 'second question' },
    ];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: (clock) => ({
        llm: new StallingLLM(clock, [{ text: 'Second answer.' }]),
        llmChunkTimeoutMs: 3000,
      }),
      totalMs: 14_000,
    });
    const errors = errorsOf(h);
    await h.run(6000);
    expect(errors.map((e) => [e.source, e.recoverable])).toEqual([['llm', true]]);
    // The model's one word comes 100 ms after the turn is committed; nothing for 3 s after it.
    const committedAt = h.trace.find((r) => r.type === 'user_turn_committed')!.atMs;
    expect(errors[0]!.atMs).toBe(committedAt + 100 + 3000);
    expect(String(errors[0]!.error)).toMatch(/no data for 3000 ms/);
    expect(h.session.agentState).toBe('listening');
    await h.run(13_000);
    const history = historyText(h.session);
    // What was heard of the cut reply stays, marked interrupted.
    expect(history[1]).toMatch(/^assistant\(interrupted\): Well, let me/);
    expect([history[0], ...history.slice(2)]).toEqual([
      'user: first question',
      'user: second question',
      'assistant: Second answer.',
    ]);
    await h.session.close();
  });

  it('ends an uninterruptible say() whose TTS never yields with a tts error; the reply behind it plays', async () => {
    const segments: SpeechSegment[] = [{ startMs: 1000, endMs: 1500, transcript: 'hello' }];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      replies: [{ text: 'Hi there.' }],
      session: (clock) => ({ tts: new MuteFirstTTS(clock), ttsFirstAudioTimeoutMs: 4000 }),
      totalMs: 12_000,
    });
    const errors = errorsOf(h);
    const welcome = h.session.say('Welcome to the shop.', { allowInterruptions: false });
    await h.run(4500);
    expect(welcome.outcome).toBe('failed');
    expect(errors.map((e) => [e.source, e.recoverable])).toEqual([['tts', true]]);
    expect(errors[0]!.atMs).toBeLessThanOrEqual(4100);
    await h.run(10_000);
    expect(historyText(h.session)).toEqual(['user: hello', 'assistant: Hi there.']);
    expect(h.session.agentState).toBe('listening');
    await h.session.close();
  });

  it('ends a reply whose LLM never sends its first chunk, after llmFirstChunkTimeoutMs', async () => {
    const segments: SpeechSegment[] = [
      { startMs: 500, endMs: 1000, transcript: 'anyone there' },
      { startMs: 6000, endMs: 6500, transcript: 'hello again' },
    ];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: (clock) => ({
        llm: new SilentFirstLLM(clock, [{ text: 'Yes, here.' }]),
        llmFirstChunkTimeoutMs: 2000,
      }),
      totalMs: 10_000,
    });
    const errors = errorsOf(h);
    await h.run(9000);
    const committedAt = h.trace.find((r) => r.type === 'user_turn_committed')!.atMs;
    expect(errors.map((e) => [e.source, e.atMs - committedAt])).toEqual([['llm', 2000]]);
    expect(String(errors[0]!.error)).toMatch(/nothing received within 2000 ms/);
    expect(historyText(h.session)).toEqual([
      'user: anyone there',
      'user: hello again',
      'assistant: Yes, here.',
    ]);
    await h.session.close();
  });

  it('a slow but healthy model pausing mid-reply trips no TTS deadline', async () => {
    const segments: SpeechSegment[] = [{ startMs: 500, endMs: 1000, transcript: 'take your time' }];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: (clock) => ({
        llm: new PausingLLM(clock, [
          { afterMs: 100, text: 'Let me think. ' },
          { afterMs: 7000, text: 'The answer ' },
          { afterMs: 6000, text: 'is forty-two.' },
        ]),
        ttsFirstAudioTimeoutMs: 1000,
        ttsAudioTimeoutMs: 1000,
      }),
      totalMs: 20_000,
    });
    const errors = errorsOf(h);
    await h.run(19_000);
    expect(errors).toEqual([]);
    expect(historyText(h.session)).toEqual([
      'user: take your time',
      'assistant: Let me think. The answer is forty-two.',
    ]);
    await h.session.close();
  });

  it('ends a step whose TTS stops mid-audio once it has all its text, keeping what was heard', async () => {
    const segments: SpeechSegment[] = [
      { startMs: 500, endMs: 1000, transcript: 'tell me more' },
      { startMs: 9000, endMs: 9500, transcript: 'and now' },
    ];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      replies: [{ text: 'There is a lot to say about this topic today.' }, { text: 'Now it works.' }],
      session: (clock) => ({ tts: new StallingTTS(clock), ttsAudioTimeoutMs: 2000 }),
      totalMs: 14_000,
    });
    const errors = errorsOf(h);
    await h.run(13_000);
    expect(errors.map((e) => e.source)).toEqual(['tts']);
    expect(String(errors[0]!.error)).toMatch(/no audio for 2000 ms/);
    const history = historyText(h.session);
    expect(history[1]).toMatch(/^assistant\(interrupted\): There/);
    expect(history.slice(2)).toEqual(['user: and now', 'assistant: Now it works.']);
    await h.session.close();
  });

  it("ends a say() whose given audio stops coming, as the TTS's failure, keeping what was heard", async () => {
    const h = await startSession({
      agent: new Agent({ instructions: '' }),
      session: { ttsAudioTimeoutMs: 1500 },
      totalMs: 6000,
    });
    const errors = errorsOf(h);
    const clock = h.clock;
    async function* audio(): AsyncGenerator<AudioFrame> {
      // One second of audio in real time, then a source that never yields again.
      for (let i = 0; i < 50; i++) {
        await clock.sleep(20);
        yield AudioFrame.silence(16000, 1, 320);
      }
      await new Promise<never>(() => {});
    }
    const handle = h.session.say('one two three four five six seven eight nine ten', { audio: audio() });
    await h.run(5000);
    expect(handle.outcome).toBe('failed');
    expect(errors.map((e) => [e.source, e.atMs])).toEqual([['tts', 1000 + 1500]]);
    expect(historyText(h.session)[0]).toMatch(/^assistant\(interrupted\): one/);
    await h.session.close();
  });

  it('refuses deadlines that could never be met', () => {
    expect(() => resolveDeadlines({ llmChunkTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => resolveDeadlines({ ttsAudioTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => resolveDeadlines({ playoutGraceMs: -1 })).toThrow(RangeError);
    expect(resolveDeadlines({ playoutGraceMs: 0, sttResponseTimeoutMs: Infinity })).toMatchObject({
      playoutGraceMs: 0,
      sttResponseTimeoutMs: Infinity,
      llmFirstChunkTimeoutMs: 15_000,
    });
    expect(resolveDeadlines({ playoutWatchdogSlack: 700 }).playoutGraceMs).toBe(700);
  });

  it('restarts an STT that takes audio but does not answer speech once the user stopped', async () => {
    const segments: SpeechSegment[] = [
      { startMs: 500, endMs: 1000, transcript: 'first words' },
      { startMs: 4000, endMs: 6000, transcript: 'lost words' },
      { startMs: 14_000, endMs: 14_600, transcript: 'heard again' },
    ];
    let stt: GoingSilentSTT | undefined;
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      replies: [{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }],
      session: (clock) => {
        stt = new GoingSilentSTT(clock, segments);
        return { stt, sttResponseTimeoutMs: 5000 };
      },
      totalMs: 20_000,
    });
    const errors = errorsOf(h);
    await h.run(19_000);
    const sttErrors = errors.filter((e) => e.source === 'stt');
    expect(sttErrors.map((e) => e.recoverable)).toEqual([true]);
    // Counted from the end of the speech it did not answer (the VAD heard it end at 6300 ms).
    const ended = h.trace.find((r) => r.type === 'vad_end_of_speech' && r.atMs > 6000)!.atMs;
    expect(sttErrors[0]!.atMs - ended).toBeGreaterThanOrEqual(5000);
    expect(sttErrors[0]!.atMs - ended).toBeLessThanOrEqual(5000 + 20);
    expect(h.trace.filter((r) => r.type === 'stt_restarted')).toHaveLength(1);
    expect(stt!.streamsOpened).toBe(2);
    expect(historyText(h.session)).toContain('user: heard again');
    await h.session.close();
  });

  it('owes no STT answer for speech it was not given (silence fed while an uninterruptible say plays)', async () => {
    const segments: SpeechSegment[] = [{ startMs: 1000, endMs: 2500, transcript: 'talking over you' }];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: { sttResponseTimeoutMs: 1000 },
      totalMs: 12_000,
    });
    const errors = errorsOf(h);
    // About 5 s of audio, uninterruptible: the user's words reach the STT as silence.
    h.session.say('x'.repeat(99).concat('.'), { allowInterruptions: false });
    await h.run(11_000);
    expect(errors).toEqual([]);
    expect(h.trace.filter((r) => r.type === 'stt_restarted')).toEqual([]);
    await h.session.close();
  });

  it('owes nothing while the user still speaks: a long monologue to a recognizer without interims', async () => {
    const segments: SpeechSegment[] = [{ startMs: 500, endMs: 9500, transcript: 'a very long story' }];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      replies: [{ text: 'What a story.' }],
      session: (clock) => ({ stt: new FinalsOnlySTT(clock, segments), sttResponseTimeoutMs: 2000 }),
      totalMs: 14_000,
    });
    const errors = errorsOf(h);
    await h.run(13_000);
    expect(errors).toEqual([]);
    expect(historyText(h.session)).toEqual(['user: a very long story', 'assistant: What a story.']);
    await h.session.close();
  });

  it('does not restart a healthy STT during long silences', async () => {
    const segments: SpeechSegment[] = [
      { startMs: 500, endMs: 1000, transcript: 'hello' },
      { startMs: 30_000, endMs: 30_500, transcript: 'still there' },
    ];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      replies: [{ text: 'Hi.' }, { text: 'Yes.' }],
      session: { sttResponseTimeoutMs: 2000 },
      totalMs: 34_000,
    });
    const errors = errorsOf(h);
    await h.run(33_000);
    expect(errors.map((e) => `${e.atMs} ${e.source} ${String(e.error)}`)).toEqual([]);
    expect(historyText(h.session)).toEqual([
      'user: hello',
      'assistant: Hi.',
      'user: still there',
      'assistant: Yes.',
    ]);
    await h.session.close();
  });
});

describe('deadlines on the audio sink', () => {
  it('a sink that never reports playback finished leaks no waiter, and the agent listens once the audio is due', async () => {
    let sink: SilentSink | undefined;
    const h = await startSession({
      agent: new Agent({ instructions: '' }),
      noInput: true,
      output: (clock) => {
        sink = new SilentSink(clock);
        return sink;
      },
      session: { playoutGraceMs: 500 },
      totalMs: 0,
    });
    const errors = errorsOf(h);
    const states: Array<{ state: string; atMs: number }> = [];
    h.session.on('agent_state_changed', (e) => states.push({ state: e.newState, atMs: e.atMs }));
    // 100 characters at 50 ms each: 5 s of audio per speech.
    const text = 'x'.repeat(99).concat('.');
    for (let i = 0; i < 20; i++) {
      const startedAt = h.clock.now();
      const handle = h.session.say(text);
      await h.run(startedAt + 20_000);
      expect(handle.outcome).toBe('played');
      const speaking = states.filter((s) => s.state === 'speaking' && s.atMs >= startedAt)[0]!;
      const back = states.find((s) => s.atMs > speaking.atMs && s.state === 'idle')!;
      // Due when the 5 s of audio have played from the first frame, plus the grace.
      expect(back.atMs - speaking.atMs).toBeLessThanOrEqual(5000 + 500 + 20);
    }
    expect(sink!.waiting).toBe(0);
    expect(errors.every((e) => e.source === 'audio_output')).toBe(true);
    expect(errors).toHaveLength(20);
    await h.session.close();
  });

  it('ends a step whose captureFrame never resolves with an audio_output error; the next reply plays', async () => {
    const segments: SpeechSegment[] = [{ startMs: 8000, endMs: 8500, transcript: 'are you there' }];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      replies: [{ text: 'I am here.' }],
      output: (clock) => new StuckCaptureSink(clock, 10),
      session: { playoutGraceMs: 500 },
      totalMs: 14_000,
    });
    const errors = errorsOf(h);
    const say = h.session.say('This greeting gets stuck in the sink.');
    await h.run(3000);
    expect(say.outcome).toBe('failed');
    expect(errors.map((e) => [e.source, e.recoverable])).toEqual([['audio_output', true]]);
    // Ten 20 ms frames were taken from ~50 ms on: the eleventh is due 200 ms later, plus the grace.
    expect(errors[0]!.atMs).toBeLessThanOrEqual(50 + 200 + 500 + 40);
    expect(h.session.agentState).toBe('listening');
    await h.run(13_000);
    expect(historyText(h.session).slice(-2)).toEqual(['user: are you there', 'assistant: I am here.']);
    await h.session.close();
  });
});
