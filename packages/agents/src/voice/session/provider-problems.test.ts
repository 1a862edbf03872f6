// Recoverable provider problems (specification v1's `onProblem`) as the session reports them.
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../audio/audio-frame.js';
import { APIConnectionError, ProviderProblemError } from '../../errors.js';
import {
  type ProviderCallOptions,
  type ProviderProblem,
  SPECIFICATION_VERSION,
} from '../../providers/common.js';
import type { LLMChatOptions, LLMStreamPart } from '../../providers/llm.js';
import type { BatchSTT, SpeechAlternative, STTStream, STTStreamOptions } from '../../providers/stt.js';
import type { TTSStream } from '../../providers/tts.js';
import type { VADStream } from '../../providers/vad.js';
import {
  FakeLLM,
  FakeSTT,
  FakeTTS,
  FakeVAD,
  historyText,
  type SpeechSegment,
  startSession,
} from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';
import type { SessionEvents } from './session-events.js';

const vadProblem: ProviderProblem = { type: 'audio_dropped', droppedMs: 32, message: 'inference failed' };
const sttProblem: ProviderProblem = {
  type: 'reconnecting',
  attempt: 1,
  delayMs: 250,
  error: new APIConnectionError('socket reset'),
};
const ttsProblem: ProviderProblem = { type: 'warning', message: 'voice not found, using the default' };
const llmProblem: ProviderProblem = {
  type: 'retrying',
  attempt: 1,
  delayMs: 500,
  error: new APIConnectionError('429 from upstream'),
};

/** Reports a problem on the 10th frame of its first stream, and goes on. */
class ProblemVAD extends FakeVAD {
  private reported = false;
  override stream(options?: ProviderCallOptions): VADStream {
    const inner = super.stream();
    let frames = 0;
    return {
      ...inner,
      pushFrame: (frame) => {
        if (++frames === 10 && !this.reported) {
          this.reported = true;
          options?.onProblem?.(vadProblem);
        }
        inner.pushFrame(frame);
      },
    };
  }
}

/** Reports a reconnect on the first frame of its first stream, and goes on. */
class ProblemSTT extends FakeSTT {
  private reported = false;
  override stream(options: STTStreamOptions): STTStream {
    const inner = super.stream(options);
    return {
      ...inner,
      pushFrame: (frame) => {
        if (!this.reported) {
          this.reported = true;
          options.onProblem?.(sttProblem);
        }
        inner.pushFrame(frame);
      },
    };
  }
}

/** Warns once, when the first text arrives. */
class ProblemTTS extends FakeTTS {
  private reported = false;
  override stream(options: ProviderCallOptions = {}): TTSStream {
    const inner = super.stream(options);
    return {
      ...inner,
      pushText: (text) => {
        if (!this.reported) {
          this.reported = true;
          options.onProblem?.(ttsProblem);
        }
        inner.pushText(text);
      },
    };
  }
}

/** Reports a retry before its first reply. */
class ProblemLLM extends FakeLLM {
  private reported = false;
  override async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    if (!this.reported) {
      this.reported = true;
      options.onProblem?.(llmProblem);
    }
    yield* super.chat(options);
  }
}

type ErrorEvent = SessionEvents['error'];

describe('recoverable provider problems', () => {
  it("reports every provider's problem as a recoverable error of its source, and the session goes on", async () => {
    const segments: SpeechSegment[] = [
      { startMs: 500, endMs: 1200, transcript: 'hello there' },
      { startMs: 5000, endMs: 5600, transcript: 'and again' },
    ];
    const h = await startSession({
      segments,
      agent: new Agent({ instructions: '' }),
      session: (clock) => ({
        vad: new ProblemVAD(),
        stt: new ProblemSTT(clock, segments),
        tts: new ProblemTTS(clock),
        llm: new ProblemLLM(clock, [{ text: 'Hi there.' }, { text: 'Yes, again.' }]),
      }),
      totalMs: 10_000,
    });
    const errors: ErrorEvent[] = [];
    h.session.on('error', (e) => errors.push(e));
    await h.run(9000);

    expect(errors.map((e) => [e.source, e.recoverable])).toEqual([
      ['stt', true],
      ['vad', true],
      ['llm', true],
      ['tts', true],
    ]);
    const bySource = new Map(errors.map((e) => [e.source, e.error]));
    const expected: Array<[string, ProviderProblem]> = [
      ['stt', sttProblem],
      ['vad', vadProblem],
      ['llm', llmProblem],
      ['tts', ttsProblem],
    ];
    for (const [source, problem] of expected) {
      const error = bySource.get(source as ErrorEvent['source']);
      expect(error).toBeInstanceOf(ProviderProblemError);
      expect((error as ProviderProblemError).problem).toBe(problem);
    }
    expect((bySource.get('stt') as Error).message).toBe('reconnecting (attempt 1) in 250 ms: socket reset');
    expect((bySource.get('stt') as Error).cause).toBe((sttProblem as { error: Error }).error);
    expect((bySource.get('vad') as Error).message).toBe('dropped 32 ms of audio: inference failed');
    expect((bySource.get('tts') as Error).message).toBe('voice not found, using the default');
    // Dated when they happened: the STT's at the first frame, the VAD's at the tenth.
    expect(errors[0]!.atMs).toBe(20);
    expect(errors[1]!.atMs).toBe(200);

    // Nothing stopped: both turns were heard and answered, and the agent listens again.
    expect(historyText(h.session)).toEqual([
      'user: hello there',
      'assistant: Hi there.',
      'user: and again',
      'assistant: Yes, again.',
    ]);
    expect(h.session.agentState).toBe('listening');
    expect(h.trace.some((r) => r.type === 'vad_restarted')).toBe(false);
    await h.session.close();
  });

  it("reports a batch recognizer's retries as recoverable stt errors, on the session clock", async () => {
    const segments: SpeechSegment[] = [{ startMs: 500, endMs: 1200, transcript: 'batch words' }];
    const calls: Array<{ at: number; sampleRate: number }> = [];
    let clockNow = (): number => 0;
    const flaky: BatchSTT = {
      specificationVersion: SPECIFICATION_VERSION,
      kind: 'batch',
      label: 'flaky-batch',
      inputSampleRates: [16_000],
      recognize: async (
        frames: readonly AudioFrame[],
        options: STTStreamOptions,
      ): Promise<SpeechAlternative[]> => {
        calls.push({ at: clockNow(), sampleRate: options.sampleRate });
        if (calls.length === 1) throw new APIConnectionError('blip');
        const code = frames.map((f) => f.data[0] ?? 0).find((v) => v >= 1000);
        return [{ text: code === undefined ? '' : (segments[code - 1000]?.transcript ?? '') }];
      },
    };
    const h = await startSession({
      segments,
      replies: [{ text: 'Heard you.' }],
      agent: new Agent({ instructions: '' }),
      session: (clock) => {
        clockNow = () => clock.now();
        return { stt: flaky };
      },
      totalMs: 6000,
    });
    const errors: ErrorEvent[] = [];
    h.session.on('error', (e) => errors.push(e));
    await h.run(5000);

    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ source: 'stt', recoverable: true });
    const problem = (errors[0]!.error as ProviderProblemError).problem;
    expect(problem).toMatchObject({ type: 'retrying', attempt: 1 });
    // The retry waited its backoff on the session's (virtual) clock.
    const delayMs = (problem as { delayMs: number }).delayMs;
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBe(delayMs);
    expect(calls.every((c) => c.sampleRate === 16_000)).toBe(true);
    expect(historyText(h.session)).toEqual(['user: batch words', 'assistant: Heard you.']);
    await h.session.close();
  });
});
