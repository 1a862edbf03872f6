// Small fakes for the core's own unit tests. Whole-conversation simulation lives in @voxwire/testing.
import { AudioFrame } from '../audio/audio-frame.js';
import { SPECIFICATION_VERSION } from '../providers/common.js';
import type { LLM, LLMChatOptions, LLMMessage, LLMStreamPart } from '../providers/llm.js';
import type { StreamingSTT, STTEvent, STTStream, STTStreamOptions } from '../providers/stt.js';
import type { StreamingTTS, SynthesizedAudio, TTSStream } from '../providers/tts.js';
import type { VAD, VADEvent, VADStream } from '../providers/vad.js';
import { Channel } from '../stream/channel.js';
import type { Clock } from '../time/clock.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { createIdGenerator } from '../utils/ids.js';
import type { Agent } from '../voice/agent/agent.js';
import { AgentSession, type AgentSessionOptions } from '../voice/session/agent-session.js';
import type { AudioOutput, TextOutput } from '../providers/audio-io.js';
import { NullAudioOutput } from '../voice/io/null-audio-output.js';
import type { TimedTraceRecord } from '../voice/session/trace.js';

const RATE = 16000;
const FRAME_MS = 20;
const SAMPLES = (RATE * FRAME_MS) / 1000;

export interface SpeechSegment {
  startMs: number;
  endMs: number;
  transcript: string;
  /** The recognizer's confidence in the final transcript, when it reports one. */
  confidence?: number;
}

/** User audio on the clock: silence, with a tone during each segment (its amplitude names the segment). */
export async function* scriptedInput(
  clock: Clock,
  segments: SpeechSegment[],
  totalMs: number,
): AsyncGenerator<AudioFrame> {
  for (let t = 0; t < totalMs; t += FRAME_MS) {
    await clock.sleep(FRAME_MS);
    const index = segments.findIndex((s) => t >= s.startMs && t < s.endMs);
    const data = new Int16Array(SAMPLES);
    if (index >= 0) data.fill(1000 + index);
    yield new AudioFrame(data, RATE, 1, SAMPLES);
  }
}

function segmentOf(frame: AudioFrame): number {
  const v = frame.data[0] ?? 0;
  return v >= 1000 ? v - 1000 : -1;
}

/** An energy VAD over the frames it is given, with min speech/silence durations. */
export class FakeVAD implements VAD {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'fake-vad';
  constructor(
    readonly minSpeechDurationMs = 60,
    readonly minSilenceDurationMs = 300,
  ) {}
  stream(): VADStream {
    const out = new Channel<VADEvent>({ capacity: 1000, overflow: 'drop-oldest' });
    let position = 0;
    let speechMs = 0;
    let silenceMs = 0;
    let speaking = false;
    let utterance: AudioFrame[] = [];
    const vad = this;
    return {
      pushFrame(frame) {
        position += frame.durationMs;
        utterance.push(frame);
        if (!speaking && utterance.length > 10) utterance.shift();
        const voiced = segmentOf(frame) >= 0;
        if (voiced) {
          speechMs += frame.durationMs;
          silenceMs = 0;
        } else {
          silenceMs += frame.durationMs;
          if (!speaking) speechMs = 0;
        }
        if (!speaking && voiced && speechMs >= vad.minSpeechDurationMs) {
          speaking = true;
          out.trySend({
            type: 'start_of_speech',
            timestampMs: position - speechMs,
            speechDurationMs: speechMs,
            frames: [],
          });
        }
        out.trySend({
          type: 'inference_done',
          timestampMs: position,
          probability: voiced ? 1 : 0,
          speaking,
          speechDurationMs: speaking ? speechMs : 0,
        });
        if (speaking && silenceMs >= vad.minSilenceDurationMs) {
          speaking = false;
          out.trySend({
            type: 'end_of_speech',
            timestampMs: position - silenceMs,
            silenceDurationMs: silenceMs,
            frames: utterance,
          });
          utterance = [];
          speechMs = 0;
        }
      },
      endInput: () => out.close(),
      close: async () => out.close(),
      [Symbol.asyncIterator]: () => out[Symbol.asyncIterator](),
    };
  }
}

/** Hears the segment index in the audio and reports its transcript `delayMs` after the segment ends. */
export class FakeSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label = 'fake-stt';
  readonly inputSampleRates = [RATE];
  /** The options of every stream opened, in order. */
  readonly opened: STTStreamOptions[] = [];
  constructor(
    private readonly clock: Clock,
    private readonly segments: SpeechSegment[],
    private readonly delayMs = 100,
  ) {}
  stream(options: STTStreamOptions): STTStream {
    this.opened.push(options);
    const out = new Channel<STTEvent>({ capacity: 1000, overflow: 'drop-oldest' });
    let current = -1;
    let heardMs = 0;
    const finished = new Set<number>();
    const finish = (index: number): void => {
      // One final per segment, as if the recognizer joined the pieces it heard.
      if (finished.has(index)) return;
      finished.add(index);
      const text = this.segments[index]?.transcript ?? '';
      const confidence = this.segments[index]?.confidence;
      this.clock.setTimer(this.delayMs, () => {
        out.trySend({
          type: 'final_transcript',
          alternatives: [{ text, ...(confidence !== undefined ? { confidence } : {}) }],
        });
      });
    };
    return {
      pushFrame: (frame) => {
        const index = segmentOf(frame);
        if (index >= 0) {
          if (current !== index) heardMs = 0;
          current = index;
          heardMs += frame.durationMs;
          if (heardMs === 200) {
            const words = (this.segments[index]?.transcript ?? '').split(' ');
            out.trySend({ type: 'interim_transcript', alternatives: [{ text: words[0] ?? '' }] });
          }
        } else if (current >= 0) {
          finish(current);
          current = -1;
        }
      },
      flush: () => {},
      endInput: () => out.close(),
      close: async () => out.close(),
      [Symbol.asyncIterator]: () => out[Symbol.asyncIterator](),
    };
  }
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: Array<{ name: string; args: unknown; callId?: string }>;
  ttftMs?: number;
  msPerWord?: number;
  error?: Error;
}

/** Replies from a script, in order; `respond` may compute a reply from the messages instead. */
export class FakeLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'fake-llm';
  readonly model = 'fake';
  readonly supportsToolCalls = true;
  /** The options of every request, in order. */
  readonly requests: LLMChatOptions[] = [];
  private index = 0;
  constructor(
    private readonly clock: Clock,
    private readonly replies: ScriptedReply[] = [],
    private readonly respond?: (messages: readonly LLMMessage[]) => ScriptedReply,
  ) {}
  async *chat(options: LLMChatOptions): AsyncGenerator<LLMStreamPart> {
    this.requests.push(options);
    const reply = this.respond?.(options.messages) ?? this.replies[this.index++] ?? { text: 'Okay.' };
    const signal = options.signal;
    try {
      await this.clock.sleep(reply.ttftMs ?? 100, signal);
      if (reply.error) throw reply.error;
      const words = (reply.text ?? '').split(' ').filter((w) => w !== '');
      for (let i = 0; i < words.length; i++) {
        if (i > 0) await this.clock.sleep(reply.msPerWord ?? 20, signal);
        yield { type: 'text_delta', text: i === 0 ? words[i]! : ` ${words[i]}` };
      }
      for (const [i, call] of (reply.toolCalls ?? []).entries()) {
        yield {
          type: 'tool_call',
          callId: call.callId ?? `call_${this.index}_${i}`,
          name: call.name,
          arguments: JSON.stringify(call.args),
        };
      }
      yield {
        type: 'usage',
        usage: { promptTokens: options.messages.length, completionTokens: words.length, totalTokens: 0 },
      };
      yield { type: 'finish', reason: reply.toolCalls?.length ? 'tool_calls' : 'stop' };
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
  }
}

/** Streams 20 ms frames, `msPerChar` of audio per character, after `ttfbMs`, faster than real time. */
export class FakeTTS implements StreamingTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label = 'fake-tts';
  readonly sampleRate = RATE;
  readonly numChannels = 1;
  constructor(
    private readonly clock: Clock,
    private readonly msPerChar = 50,
    private readonly ttfbMs = 50,
  ) {}
  async *synthesize(text: string): AsyncGenerator<SynthesizedAudio> {
    yield* this.render(text, true);
  }
  /** Speaks each pushed piece as it arrives, like a streaming TTS. */
  stream(options: { signal?: AbortSignal } = {}): TTSStream {
    const input = new Channel<string>({ capacity: 1000, overflow: 'block' });
    const out = new Channel<SynthesizedAudio>({ capacity: 10000, overflow: 'block' });
    void (async () => {
      try {
        let first = true;
        for await (const piece of input) {
          for await (const chunk of this.render(piece, first)) {
            if (options.signal?.aborted) break;
            await out.send(chunk);
          }
          first = false;
        }
        out.close();
      } catch (error) {
        out.fail(error);
      }
    })();
    return {
      pushText: (t) => void input.trySend(t),
      flush: () => {},
      endInput: () => input.close(),
      close: async () => {
        input.close();
        out.dispose();
      },
      [Symbol.asyncIterator]: () => out[Symbol.asyncIterator](),
    };
  }
  private async *render(text: string, first: boolean): AsyncGenerator<SynthesizedAudio> {
    if (first) await this.clock.sleep(this.ttfbMs);
    const frames = Math.max(1, Math.ceil((text.length * this.msPerChar) / FRAME_MS));
    for (let i = 0; i < frames; i++) {
      if (i % 10 === 9) await this.clock.sleep(FRAME_MS);
      yield { frame: AudioFrame.silence(RATE, 1, SAMPLES) };
    }
  }
}

export interface Harness {
  clock: VirtualClock;
  session: AgentSession;
  trace: TimedTraceRecord[];
  events: Array<{ name: string; atMs: number; detail: string }>;
  llm: FakeLLM;
  run(untilMs: number): Promise<void>;
}

export interface HarnessOptions {
  segments?: SpeechSegment[];
  replies?: ScriptedReply[];
  respond?: (messages: readonly LLMMessage[]) => ScriptedReply;
  agent: Agent;
  /** Session options; a function gets the clock to build fakes on it. */
  session?: Partial<AgentSessionOptions> | ((clock: VirtualClock) => Partial<AgentSessionOptions>);
  totalMs?: number;
  output?: (clock: VirtualClock) => AudioOutput;
  text?: TextOutput;
  /** No audio input at all (a text-only session). */
  noInput?: boolean;
}

export async function startSession(config: HarnessOptions): Promise<Harness> {
  const segments = config.segments ?? [];
  const clock = new VirtualClock();
  const trace: TimedTraceRecord[] = [];
  const llm = new FakeLLM(clock, config.replies ?? [], config.respond);
  const extra = typeof config.session === 'function' ? config.session(clock) : (config.session ?? {});
  const session = new AgentSession({
    clock,
    vad: new FakeVAD(),
    stt: new FakeSTT(clock, segments),
    llm,
    tts: new FakeTTS(clock),
    ids: createIdGenerator(),
    onTrace: (r) => trace.push(r),
    userAwayTimeout: null,
    ...extra,
  });
  const events: Harness['events'] = [];
  for (const name of [
    'user_state_changed',
    'agent_state_changed',
    'agent_false_interruption',
    'error',
    'conversation_item_added',
    'function_tools_executed',
  ] as const) {
    session.on(name, (e: { atMs: number }) =>
      events.push({
        name,
        atMs: e.atMs,
        detail: JSON.stringify(e, (k, v) => (k === 'speechHandle' ? undefined : v)),
      }),
    );
  }
  const agent = config.agent;
  const totalMs = config.totalMs ?? 20_000;
  await session.start({
    agent,
    ...(config.noInput ? {} : { input: { audio: scriptedInput(clock, segments, totalMs) } }),
    output: {
      audio: config.output ? config.output(clock) : new NullAudioOutput(clock),
      ...(config.text ? { text: config.text } : {}),
    },
  });
  return {
    clock,
    session,
    trace,
    events,
    llm,
    run: async (untilMs) => {
      while (clock.now() < untilMs) await clock.sleep(100);
    },
  };
}

export function historyText(session: AgentSession): string[] {
  return session.history.items.map((item) => {
    switch (item.type) {
      case 'message':
        return `${item.role}${item.interrupted ? '(interrupted)' : ''}: ${item.content.join('')}`;
      case 'function_call':
        return `call ${item.name}(${item.arguments})`;
      case 'function_call_output':
        return `output ${item.name}: ${item.output}`;
      case 'agent_handoff':
        return `handoff ${item.oldAgentId} -> ${item.newAgentId}`;
    }
    return '';
  });
}

/** A readable timeline of a harness run, for debugging failing tests. */
export function dumpTimeline(h: Harness): string {
  const rows = [
    ...h.trace
      .filter((r) => r.type !== 'speech_frame')
      .map((r) => ({ atMs: r.atMs, text: JSON.stringify(r) })),
    ...h.events.map((e) => ({ atMs: e.atMs, text: `${e.name} ${e.detail.slice(0, 160)}` })),
  ];
  rows.sort((a, b) => a.atMs - b.atMs);
  return rows.map((r) => `${String(r.atMs).padStart(6)} ${r.text}`).join('\n');
}

/** An output that swallows audio and never reports the end of playout, like a broken transport. */
export class SilentSinkOutput extends NullAudioOutput {
  protected override onFlush(): void {}
  protected override onClearBuffer(): void {}
}

/** A VAD whose first stream fails after `failAfterFrames` frames; later streams work. */
export class FlakyVAD extends FakeVAD {
  streams = 0;
  constructor(private readonly failAfterFrames: number) {
    super();
  }
  override stream(): VADStream {
    const inner = super.stream();
    const attempt = ++this.streams;
    let frames = 0;
    const failure = new Channel<VADEvent>({ capacity: 1, overflow: 'drop-oldest' });
    return {
      pushFrame: (frame) => {
        frames++;
        if (attempt === 1 && frames === this.failAfterFrames) failure.fail(new Error('vad crashed'));
        inner.pushFrame(frame);
      },
      endInput: () => inner.endInput(),
      close: () => inner.close(),
      [Symbol.asyncIterator]: () => {
        const it = inner[Symbol.asyncIterator]();
        return {
          next: async () => {
            if (failure.closed) await failure.receive();
            const race = await Promise.race([it.next(), failure.receive().then(() => undefined)]);
            if (!race) throw new Error('vad crashed');
            return race;
          },
          return: async () => ({ value: undefined, done: true }),
        };
      },
    };
  }
}
