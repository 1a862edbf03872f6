import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import type { SynthesizedAudio, TTS, TTSStream } from '../../providers/tts.js';
import { Channel } from '../../stream/channel.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { errorSourceOf } from '../session/error-source.js';
import type { SpeechHandle } from './speech-handle.js';
import { SynthesizedFrames } from './synthesized-frames.js';
import { TtsStreamOpener } from './tts-stream.js';
import { SpeakingRate, TranscriptSync } from './transcript-sync.js';

/** A synthesizer that answers each text piece with one 20 ms frame per character, and records its use. */
function fakeSynthesis() {
  const record = { opened: 0, closed: 0, texts: [] as string[], ended: false };
  let audio: Channel<SynthesizedAudio> | undefined;
  const open = (): TTSStream => {
    record.opened++;
    const channel = new Channel<SynthesizedAudio>({
      capacity: 256,
      name: 'test-tts',
      overflow: 'drop-newest',
    });
    audio = channel;
    return {
      pushText: (text) => {
        record.texts.push(text);
        for (let i = 0; i < text.length; i++) {
          channel.trySend({ frame: AudioFrame.silence(16000, 1, 320) });
        }
      },
      flush: () => {},
      endInput: () => {
        record.ended = true;
        channel.close();
      },
      close: async () => {
        record.closed++;
        channel.dispose();
      },
      [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
    };
  };
  return { record, open, audio: () => audio };
}

async function* texts(...pieces: string[]): AsyncGenerator<string> {
  yield* pieces;
}

function frames(text: AsyncIterable<string>, signal = new AbortController().signal) {
  const synthesis = fakeSynthesis();
  const firstBytes: number[] = [];
  const sync = new TranscriptSync(undefined, new SpeakingRate());
  const handle = { interruptSignal: signal } as unknown as SpeechHandle;
  const iterator = new SynthesizedFrames(
    {
      clock: new VirtualClock(),
      metrics: { ttsFirstByte: (_handle, ms) => firstBytes.push(ms) },
      tts: { open: () => synthesis.open() },
    },
    handle,
    { text, tts: {} as TTS },
    sync,
  );
  return { iterator, synthesis, firstBytes, sync };
}

async function collect(iterator: AsyncIterable<AudioFrame>): Promise<AudioFrame[]> {
  const out: AudioFrame[] = [];
  for await (const frame of iterator) out.push(frame);
  return out;
}

describe('SynthesizedFrames', () => {
  it('feeds every text piece to one synthesis and yields its audio to the end', async () => {
    const { iterator, synthesis, firstBytes, sync } = frames(texts('', 'Hi', ' there'));
    const out = await collect(iterator);
    expect(out).toHaveLength('Hi there'.length);
    expect(synthesis.record.opened).toBe(1);
    expect(synthesis.record.texts).toEqual(['Hi', ' there']);
    expect(synthesis.record.ended).toBe(true);
    expect(firstBytes).toHaveLength(1);
    expect(sync.fullText).toBe('Hi there');
    // Released once done, as every way out of the step releases it.
    expect(synthesis.record.closed).toBe(1);
  });

  it('opens no synthesis for a step without text', async () => {
    const { iterator, synthesis } = frames(texts('', ''));
    expect(await collect(iterator)).toEqual([]);
    expect(synthesis.record.opened).toBe(0);
  });

  it('fails once, opening nothing, when the text fails before any of it came', async () => {
    // A source that fails every time it is read, as a provider's stream may: the step reads it once.
    let reads = 0;
    const failing: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          reads++;
          return Promise.reject(new Error('no reply'));
        },
      }),
    };
    const { iterator, synthesis } = frames(failing);
    await expect(iterator.next()).rejects.toThrow('no reply');
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(reads).toBe(1);
    expect(synthesis.record.opened).toBe(0);
  });

  it("tags a failure of the text's source as the LLM's, after the audio of what came before", async () => {
    async function* failing(): AsyncGenerator<string> {
      yield 'Hello';
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error('stream cut');
    }
    const { iterator, synthesis } = frames(failing());
    const got: AudioFrame[] = [];
    const error = await (async () => {
      try {
        for await (const frame of iterator) got.push(frame);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(Error);
    expect(errorSourceOf(error)).toBe('llm');
    expect(got.length).toBeLessThanOrEqual(5);
    expect(synthesis.record.closed).toBeGreaterThanOrEqual(1);
  });

  it("tags the synthesizer's own failure as the TTS's", async () => {
    // Text still coming, so the synthesis is open when it fails.
    const text = new Channel<string>({ capacity: 4, name: 'test-text', overflow: 'drop-newest' });
    text.trySend('Hi');
    const { iterator, synthesis } = frames(text);
    const first = await iterator.next();
    expect(first.done).toBe(false);
    synthesis.audio()!.fail(new Error('socket dropped'));
    // What was queued before the failure still plays; then the failure comes.
    let error: unknown;
    for (let i = 0; i < 3 && error === undefined; i++) {
      error = await iterator.next().then(
        () => undefined,
        (caught: unknown) => caught,
      );
    }
    expect(error).toBeInstanceOf(Error);
    expect(errorSourceOf(error)).toBe('tts');
    expect(synthesis.record.closed).toBe(1);
  });

  it('answers done at once when the speech is interrupted mid-wait, and closes the synthesis', async () => {
    const controller = new AbortController();
    // Text that never ends: the synthesis waits for more.
    const pending = new Channel<string>({ capacity: 4, name: 'test-text', overflow: 'drop-newest' });
    pending.trySend('Hey');
    const { iterator, synthesis } = frames(pending, controller.signal);
    for (let i = 0; i < 3; i++) expect((await iterator.next()).done).toBe(false);
    const waiting = iterator.next();
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(synthesis.record.closed).toBe(1);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("ends the read at the interrupt through the session's opener, for a synthesizer that never answers nor closes", async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    let reads = 0;
    const never = (): AsyncIterator<SynthesizedAudio> => ({
      next: () => {
        reads++;
        return new Promise<IteratorResult<SynthesizedAudio>>(() => {});
      },
    });
    const hung: TTS = {
      specificationVersion: 'v1',
      kind: 'streaming',
      label: 'hung',
      sampleRate: 16000,
      numChannels: 1,
      stream: () => ({
        pushText: () => {},
        flush: () => {},
        endInput: () => {},
        // Ignores its close, and its reads never settle.
        close: async () => {},
        [Symbol.asyncIterator]: never,
      }),
      synthesize: () => ({ [Symbol.asyncIterator]: never }),
    };
    const opener = new TtsStreamOpener(() => {}, {
      clock,
      firstAudioTimeoutMs: Number.POSITIVE_INFINITY,
      audioTimeoutMs: Number.POSITIVE_INFINITY,
    });
    const iterator = new SynthesizedFrames(
      { clock, metrics: { ttsFirstByte: () => {} }, tts: opener },
      { interruptSignal: controller.signal } as unknown as SpeechHandle,
      { text: texts('Hello there'), tts: hung },
      new TranscriptSync(undefined, new SpeakingRate()),
    );
    const waiting = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(1);
    controller.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('closes the synthesis when the step leaves early', async () => {
    const { iterator, synthesis } = frames(texts('Hello'));
    await iterator.next();
    await iterator.return();
    expect(synthesis.record.closed).toBe(1);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });
});
