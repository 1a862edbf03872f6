import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import { APIError, APIStatusError } from '../errors.js';
import {
  type ProviderCallOptions,
  type ProviderProblem,
  SPECIFICATION_VERSION,
} from '../providers/common.js';
import type { BatchTTS, SynthesizedAudio, TTSStream } from '../providers/tts.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { SentenceTokenizer } from './sentence-tokenizer.js';
import { TTSStreamAdapter } from './tts-stream-adapter.js';

const tokenizer = new SentenceTokenizer({ minSentenceLength: 0 });

interface FakeTTSOptions {
  chunks?: number;
  chunkMs?: number;
  latencyMs?: (text: string) => number;
  failOn?: (text: string) => Error | undefined;
  /** Time the text's words on the first chunk, 5 ms each from the call's first sample. */
  words?: boolean;
}

/** What each synthesized frame says, `<text>#<n>`: chunks carry nothing but their frame. */
const labels = new WeakMap<AudioFrame, string>();

/** Synthesizes whole texts: after a latency, `chunks` chunks labelled `<text>#<n>`. */
class FakeTTS implements BatchTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'batch';
  readonly label = 'fake-tts';
  readonly sampleRate = 24_000;
  readonly numChannels = 1;
  readonly calls: Array<{
    text: string;
    at: number;
    signal: AbortSignal | undefined;
    options: ProviderCallOptions | undefined;
  }> = [];
  active = 0;
  maxActive = 0;
  closed = false;
  constructor(
    private readonly clock: VirtualClock,
    private readonly options: FakeTTSOptions = {},
  ) {}

  async *synthesize(text: string, options?: ProviderCallOptions): AsyncGenerator<SynthesizedAudio> {
    const signal = options?.signal;
    this.calls.push({ text, at: this.clock.now(), signal, options });
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await this.clock.sleep(this.options.latencyMs?.(text) ?? 20, signal);
      const failure = this.options.failOn?.(text);
      if (failure) throw failure;
      const chunks = this.options.chunks ?? 2;
      for (let i = 0; i < chunks; i++) {
        const frame = AudioFrame.silence(24_000, 1, 240);
        labels.set(frame, `${text}#${i}`);
        const words = text.split(' ').map((word, k) => ({ word, startMs: k * 5, endMs: k * 5 + 5 }));
        yield this.options.words && i === 0 ? { frame, words } : { frame };
        await this.clock.sleep(this.options.chunkMs ?? 5, signal);
      }
    } finally {
      this.active--;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

async function collect(stream: TTSStream, out: SynthesizedAudio[] = []): Promise<SynthesizedAudio[]> {
  for await (const chunk of stream) out.push(chunk);
  return out;
}

const texts = (chunks: SynthesizedAudio[]): string[] => chunks.map((c) => labels.get(c.frame) ?? '<unknown>');

describe('TTSStreamAdapter', () => {
  it('delegates identity and one-shot synthesis to the provider', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock);
    const adapter = new TTSStreamAdapter(tts);
    expect(adapter).toMatchObject({
      label: 'fake-tts',
      sampleRate: 24_000,
      numChannels: 1,
      kind: 'streaming',
      specificationVersion: 'v1',
    });
    const chunks: SynthesizedAudio[] = [];
    for await (const chunk of adapter.synthesize('Hi.')) chunks.push(chunk);
    expect(texts(chunks)).toEqual(['Hi.#0', 'Hi.#1']);
    await adapter.close();
    expect(tts.closed).toBe(true);
    expect(() => new TTSStreamAdapter(tts, { prefetch: -1 })).toThrow(RangeError);
  });

  it('emits audio in sentence order while the next sentence is prefetched', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock, { latencyMs: (t) => (t.startsWith('First') ? 300 : 10) });
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream();
    const consumed = collect(stream);
    for (const delta of ['First one ', 'is slow. Sec', 'ond is fast. Th', 'ird.']) {
      stream.pushText(delta);
      await clock.sleep(1);
    }
    stream.endInput();
    const chunks = await consumed;
    expect(texts(chunks)).toEqual([
      'First one is slow.#0',
      'First one is slow.#1',
      'Second is fast.#0',
      'Second is fast.#1',
      'Third.#0',
      'Third.#1',
    ]);
    // The second sentence started long before the first one's audio was out; never more than two at once.
    expect(tts.calls[1]!.at).toBeLessThan(300);
    expect(tts.maxActive).toBe(2);
  });

  it("times each sentence's words from the stream's first sample, not from their own call's", async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock, { words: true });
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream();
    const consumed = collect(stream);
    stream.pushText('Hello there. Bye now.');
    stream.endInput();
    const words = (await consumed).flatMap((c) => c.words ?? []);
    // Two 10 ms chunks per sentence: the second sentence starts 20 ms into the stream's audio.
    expect(words).toEqual([
      { word: 'Hello', startMs: 0, endMs: 5 },
      { word: 'there.', startMs: 5, endMs: 10 },
      { word: 'Bye', startMs: 20, endMs: 25 },
      { word: 'now.', startMs: 25, endMs: 30 },
    ]);
  });

  it('flush() cuts the sentence being written; each sentence is synthesized once, in order', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock);
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream();
    const consumed = collect(stream);
    stream.pushText('Alpha one. Alpha tw');
    stream.flush();
    stream.pushText('Beta one.');
    stream.endInput();
    const chunks = await consumed;
    expect(texts(chunks)).toEqual([
      'Alpha one.#0',
      'Alpha one.#1',
      'Alpha tw#0',
      'Alpha tw#1',
      'Beta one.#0',
      'Beta one.#1',
    ]);
    expect(tts.calls.map((c) => c.text)).toEqual(['Alpha one.', 'Alpha tw', 'Beta one.']);
  });

  it('yields only the provider audio: a flush after the audio went out adds no marker or empty frame', async () => {
    const clock = new VirtualClock();
    const stream = new TTSStreamAdapter(new FakeTTS(clock), { tokenizer }).stream();
    const chunks: SynthesizedAudio[] = [];
    const consumed = collect(stream, chunks);
    stream.pushText('Alpha one.\n');
    await clock.sleep(100);
    expect(texts(chunks)).toEqual(['Alpha one.#0', 'Alpha one.#1']);
    stream.flush();
    stream.flush();
    await clock.sleep(1);
    expect(chunks).toHaveLength(2);
    stream.endInput();
    await consumed;
    expect(chunks).toHaveLength(2);
    expect(chunks.every((c) => c.frame.samplesPerChannel > 0)).toBe(true);
    expect(chunks.every((c) => Object.keys(c).join() === 'frame')).toBe(true);
  });

  it("hands every synthesis the stream's problem channel and a signal of its own", async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock);
    const problems: ProviderProblem[] = [];
    const onProblem = (p: ProviderProblem): void => void problems.push(p);
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream({ onProblem });
    const consumed = collect(stream);
    stream.pushText('One. Two.');
    stream.endInput();
    await consumed;
    expect(tts.calls).toHaveLength(2);
    for (const call of tts.calls) {
      expect(call.options?.onProblem).toBe(onProblem);
      expect(call.signal).toBeInstanceOf(AbortSignal);
    }
  });

  it('bounds the syntheses in flight when the consumer does not read', async () => {
    const clock = new VirtualClock();
    for (const [prefetch, expected] of [
      [0, 1],
      [1, 2],
      [3, 4],
    ] as const) {
      const tts = new FakeTTS(clock, { chunks: 100 });
      const stream = new TTSStreamAdapter(tts, { tokenizer, prefetch, chunkBuffer: 4 }).stream();
      stream.pushText('One. Two. Three. Four. Five. Six. Seven.');
      stream.endInput();
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
      await clock.sleep(10_000);
      expect(tts.calls).toHaveLength(expected);
      await stream.close();
      expect(tts.active).toBe(0);
    }
  });

  it('fails with the typed error, keeping the audio before it, and aborts the other syntheses', async () => {
    const clock = new VirtualClock();
    const failure = new APIStatusError('overloaded', { statusCode: 503 });
    const tts = new FakeTTS(clock, {
      failOn: (t) => (t.startsWith('Bad') ? failure : undefined),
      latencyMs: (t) => (t.startsWith('Good') ? 10 : 50),
    });
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream();
    const chunks: SynthesizedAudio[] = [];
    const consumed = collect(stream, chunks);
    stream.pushText('Good sentence. Bad sentence. Later sentence. Never.');
    stream.endInput();
    await expect(consumed).rejects.toBe(failure);
    expect(texts(chunks)).toEqual(['Good sentence.#0', 'Good sentence.#1']);
    await clock.sleep(1);
    expect(tts.active).toBe(0);
    expect(tts.calls.every((c) => c.signal?.aborted)).toBe(true);
    expect(tts.calls.map((c) => c.text)).not.toContain('Never.');
  });

  it('wraps provider errors that are not APIErrors', async () => {
    const clock = new VirtualClock();
    const stream = new TTSStreamAdapter(new FakeTTS(clock, { failOn: () => new Error('boom') }), {
      tokenizer,
    }).stream();
    const consumed = collect(stream);
    stream.pushText('Hello.');
    stream.endInput();
    const error = await consumed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toBe('fake-tts: boom');
  });

  it('close() stops the syntheses and ends iteration', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock, { chunks: 10, chunkMs: 100 });
    const controller = new AbortController();
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream({ signal: controller.signal });
    const chunks: SynthesizedAudio[] = [];
    const consumed = collect(stream, chunks);
    stream.pushText('A long first sentence. A second one.');
    await clock.sleep(250);
    const started = tts.calls.length;
    await stream.close();
    await consumed;
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.length).toBeLessThan(10);
    expect(tts.active).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    stream.pushText('Ignored. Really ignored.');
    stream.endInput();
    await clock.sleep(100);
    expect(tts.calls).toHaveLength(started);
  });

  it('the stream signal aborts it too', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock, { chunks: 10, chunkMs: 100 });
    const controller = new AbortController();
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream({ signal: controller.signal });
    const consumed = collect(stream);
    stream.pushText('A long first sentence.\n');
    await clock.sleep(150);
    controller.abort();
    await consumed;
    expect(tts.active).toBe(0);
  });

  it('ends at once when no text came, and ignores text after the end', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS(clock);
    const stream = new TTSStreamAdapter(tts, { tokenizer }).stream();
    stream.flush();
    stream.pushText('   ');
    stream.endInput();
    stream.pushText('Too late.');
    await expect(collect(stream)).resolves.toEqual([]);
    expect(tts.calls).toHaveLength(0);
  });
});
