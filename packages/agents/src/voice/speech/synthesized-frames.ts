import type { AudioFrame } from '../../audio/audio-frame.js';
import type { SynthesizedAudio, TTSStream } from '../../providers/tts.js';
import { untilAborted } from '../../utils/abortable.js';
import { tagErrorSource } from '../session/error-source.js';
import type { LatencyMetrics } from '../session/latency-metrics.js';
import type { PlayoutDeps, PlayoutSource } from './speech-playout.js';
import type { SpeechHandle } from './speech-handle.js';
import type { TranscriptSync } from './transcript-sync.js';

/**
 * What a synthesis needs of the playout's dependencies. The streams `tts` opens must end a read in
 * progress when closed, whatever the synthesizer does: the session's opener gives them deadlines that
 * do (tts-stream.ts), and an interrupted speech relies on it to stop waiting.
 */
export interface SynthesisDeps extends Pick<PlayoutDeps, 'clock' | 'tts'> {
  metrics: Pick<LatencyMetrics, 'ttsFirstByte'>;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The frames of one step's synthesis: its text fed to a TTS stream as it is generated, the audio read
 * back frame by frame. The stream is opened on the first non-empty text, so a step that only calls tools
 * opens none.
 *
 * A plain iterator rather than an async generator: a reply yields fifty frames a second, and a
 * generator's yield and await cost several promises per frame. It answers `done` as soon as the speech
 * is interrupted: the interrupt closes the synthesis, whose deadlined stream then ends the read in
 * progress at once, even for a synthesizer that never answers (one listener for the whole synthesis,
 * rather than a wrapper's promise around every frame). Leaving it early (`return()`, a failure) closes
 * the synthesis without waiting for it: a hung provider must not hold the speech.
 */
export class SynthesizedFrames implements AsyncIterableIterator<AudioFrame> {
  private readonly signal: AbortSignal;
  private readonly text: AsyncIterator<string>;
  private tts: TTSStream | undefined;
  private audio: AsyncIterator<SynthesizedAudio> | undefined;
  private feeding: Promise<void> | undefined;
  private feedFailed = false;
  private feedError: unknown;
  private finished = false;
  private firstAudio = true;
  private startedAt = 0;

  constructor(
    private readonly deps: SynthesisDeps,
    private readonly handle: SpeechHandle,
    private readonly source: PlayoutSource,
    private readonly sync: TranscriptSync,
  ) {
    this.signal = handle.interruptSignal;
    this.text = untilAborted(source.text, this.signal)[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<AudioFrame> {
    return this;
  }

  next(): Promise<IteratorResult<AudioFrame>> {
    if (this.finished) return Promise.resolve(DONE);
    if (this.signal.aborted) {
      this.finish();
      return Promise.resolve(DONE);
    }
    if (!this.audio) return this.open();
    return this.audio.next().then(this.onAudio, this.onFailure);
  }

  return(): Promise<IteratorResult<AudioFrame>> {
    this.finish();
    return Promise.resolve(DONE);
  }

  private readonly onAudio = (
    result: IteratorResult<SynthesizedAudio>,
  ): IteratorResult<AudioFrame> | Promise<IteratorResult<AudioFrame>> => {
    if (result.done) return this.ended();
    // Audio that comes after the interrupt is not the speech's any more.
    if (this.signal.aborted) {
      this.finish();
      return DONE;
    }
    const chunk = result.value;
    if (this.firstAudio) {
      this.firstAudio = false;
      this.deps.metrics.ttsFirstByte(this.handle, this.deps.clock.now() - this.startedAt);
    }
    this.sync.pushAudio(chunk.frame.durationMs);
    if (chunk.words) this.sync.pushWords(chunk.words);
    return { done: false, value: chunk.frame };
  };

  private readonly onFailure = (error: unknown): IteratorResult<AudioFrame> => {
    this.finish();
    // A synthesis that fails because the interrupt closed it ends quietly.
    if (this.signal.aborted) return DONE;
    throw tagErrorSource(error, this.feedFailed && this.feedError === error ? 'llm' : 'tts');
  };

  /** Waits for the first non-empty text, opens the synthesis and starts feeding it. */
  private async open(): Promise<IteratorResult<AudioFrame>> {
    let first: IteratorResult<string>;
    do {
      first = await this.text.next();
    } while (!first.done && first.value === '');
    if (first.done || this.signal.aborted) {
      this.finished = true;
      this.sync.markTextComplete();
      return DONE;
    }
    let tts: TTSStream;
    try {
      tts = this.deps.tts.open(this.source.tts!, this.signal);
    } catch (error) {
      // A synchronous throw of the provider's stream() is the TTS's failure, like one while streaming.
      this.finished = true;
      throw tagErrorSource(error, 'tts');
    }
    this.tts = tts;
    this.startedAt = this.deps.clock.now();
    this.feeding = this.feed(tts, first);
    this.feeding.catch((error: unknown) => {
      this.feedFailed = true;
      this.feedError = error;
    });
    this.audio = tts[Symbol.asyncIterator]();
    this.signal.addEventListener('abort', this.onInterrupt, { once: true });
    return this.audio.next().then(this.onAudio, this.onFailure);
  }

  private async feed(tts: TTSStream, firstText: IteratorResult<string>): Promise<void> {
    try {
      let next = firstText;
      while (!next.done) {
        if (this.signal.aborted) return;
        this.sync.pushText(next.value);
        tts.pushText(next.value);
        next = await this.text.next();
      }
      this.sync.markTextComplete();
      tts.endInput();
    } catch (error) {
      void tts.close().catch(() => {});
      throw error;
    }
  }

  /** The synthesis ended: complete once the text it was fed has all been read. */
  private async ended(): Promise<IteratorResult<AudioFrame>> {
    if (this.signal.aborted) {
      this.finish();
      return DONE;
    }
    try {
      await this.feeding;
    } catch (error) {
      this.finish();
      throw tagErrorSource(error, 'llm');
    }
    if (!this.signal.aborted) this.sync.markAudioComplete();
    this.finish();
    return DONE;
  }

  private readonly onInterrupt = (): void => this.finish();

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.signal.removeEventListener('abort', this.onInterrupt);
    const audio = this.audio;
    if (audio) void Promise.resolve(audio.return?.()).catch(() => {});
    void this.tts?.close().catch(() => {});
  }
}
