// Every step has an end: hung providers and sinks become `error` events, and the next turn is answered.
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../audio/audio-frame.js';
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

  it('restarts an STT that takes audio but stops answering while the user speaks', async () => {
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
    // Counted from the first voiced frame the stream did not answer (the VAD heard speech at ~4060 ms).
    expect(sttErrors[0]!.atMs).toBeGreaterThanOrEqual(4000 + 5000);
    expect(sttErrors[0]!.atMs).toBeLessThanOrEqual(4200 + 5000);
    expect(h.trace.filter((r) => r.type === 'stt_restarted')).toHaveLength(1);
    expect(stt!.streamsOpened).toBe(2);
    expect(historyText(h.session)).toContain('user: heard again');
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
