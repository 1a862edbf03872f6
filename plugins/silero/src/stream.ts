import { AudioFrame, type AudioFrameLike, InvalidAudioError } from '@voxwire/agents';
import {
  AudioResampler,
  Channel,
  type ProviderCallOptions,
  type VADEvent,
  type VADStream,
} from '@voxwire/agents/provider-utils';
import { SPEECH_ENDED, SPEECH_STARTED, SpeechDetector } from './detector.js';
import { SileroInferenceError } from './errors.js';
import type { ResolvedOptions } from './options.js';
import type { InferenceJob, InferencePool } from './pool.js';
import { contextSize, type ModelSampleRate, STATE_SIZE, windowSize } from './protocol.js';
import { appendMonoFloat, appendMonoInt16, SampleStore } from './sample-store.js';
import { lastVoicedSample, VOICE_END_BLOCK_MS } from './speech-end.js';

const EVENT_CAPACITY = 512;
/**
 * A speech store longer than this (seconds of input audio) is released after its utterance. Short
 * blips (coughs, "yes") reuse one small store; a store grown by real speech would otherwise sit in
 * every idle session (about 160 KiB each after a 3 s turn), while reallocating it once per utterance
 * costs next to nothing (32 streams batch-fed for 40 s: 4 full GCs with a 10 s threshold, 5-6 with
 * this one; `node --trace-gc src/case.mjs voxwire 32 batch 40` in packages/bench-silero).
 */
const RETAINED_SPEECH_SECONDS = 1;
/** Room kept for start/end events: `inference_done` is skipped before a slow consumer loses those. */
const BOUNDARY_RESERVE = 64;
/** The voice's end is looked for this many windows back from Silero's (its probability's lag). */
const VOICE_END_SEARCH_WINDOWS = 3;
/** ...against the loudest block of this many windows back from Silero's end. */
const VOICE_END_REFERENCE_WINDOWS = 6;

/**
 * One audio stream through the shared model. Frames are downmixed, resampled to the model rate and
 * cut into windows here; the pool batches the windows with other streams' and hands back
 * probabilities, which drive the speech detector. Positions are counted in model samples.
 * `SileroVADStream` is its public face, so the pool's side of it stays out of the API.
 */
export class StreamCore implements InferenceJob {
  readonly modelRate: ModelSampleRate;
  readonly state = new Float32Array(STATE_SIZE);
  nextInQueue: InferenceJob | null = null;
  queued = false;
  inFlight = false;
  enqueuedAt = 0;

  private readonly events = new Channel<VADEvent>({
    capacity: EVENT_CAPACITY,
    overflow: 'drop-oldest',
    name: 'silero-vad-events',
  });
  private readonly detector: SpeechDetector;
  private readonly window: number;
  private readonly context: number;
  private readonly prefixSamples: number;
  private readonly updateSamples: number;
  private readonly backlogSamples: number;
  /** Model-rate audio from the current window's context on; starts with a silent context. */
  private readonly pcm: SampleStore<Float32Array>;
  /** Input-rate mono audio kept for prefix padding and the speech frames. */
  private history: SampleStore<Int16Array> | undefined;
  private inputRate = 0;
  private inputChannels = 0;
  private resampler: AudioResampler | undefined;
  /** Where the next window's new samples begin. */
  private nextWindow = 0;
  private lastUpdate = Number.NEGATIVE_INFINITY;
  /**
   * The running utterance at the input rate. It is kept from one utterance to the next and events get
   * exact copies: a new, doubling buffer per utterance made V8 run a full mark-compact about every
   * 0.2 s with 32 streams fed as fast as possible (half as many with the store reused).
   */
  private speech: SampleStore<Int16Array> | undefined;
  private inSpeech = false;
  private speechCap = 0;
  private ended = false;
  private closed = false;
  private readonly abortListener: (() => void) | undefined;

  constructor(
    private readonly pool: InferencePool,
    private readonly options: ResolvedOptions,
    private readonly callOptions: ProviderCallOptions = {},
    private readonly onClose?: () => void,
  ) {
    const signal = callOptions.signal;
    const rate = options.sampleRate;
    this.modelRate = rate;
    this.window = windowSize(rate);
    this.context = contextSize(rate);
    const samples = (ms: number) => Math.round((ms * rate) / 1000);
    this.prefixSamples = samples(options.prefixPaddingDurationMs);
    this.updateSamples = samples(options.updateIntervalMs);
    this.backlogSamples = Math.max(samples(options.maxBacklogMs), 2 * this.window);
    this.detector = new SpeechDetector({
      activationThreshold: options.activationThreshold,
      deactivationThreshold: options.deactivationThreshold,
      minSpeechSamples: samples(options.minSpeechDurationMs),
      minSilenceSamples: samples(options.minSilenceDurationMs),
    });
    this.pcm = new SampleStore((n) => new Float32Array(n), 4 * (this.window + this.context), -this.context);
    this.pcm.commit(this.context);
    pool.activate(this);
    if (signal) {
      if (signal.aborted) {
        // Not from inside the constructor: the owner has not seen this stream yet.
        queueMicrotask(() => void this.close());
      } else {
        this.abortListener = () => void this.close();
        signal.addEventListener('abort', this.abortListener, { once: true });
      }
    }
  }

  /** Unanalysed audio waiting for inference, in ms. */
  get pendingAudioMs(): number {
    return (Math.max(0, this.pcm.end - this.nextWindow) * 1000) / this.modelRate;
  }

  /** Audio analysed so far, in ms. */
  get processedAudioMs(): number {
    return (this.nextWindow * 1000) / this.modelRate;
  }

  pushFrame(frame: AudioFrameLike): void {
    if (this.closed || this.ended) return;
    if (frame.samplesPerChannel === 0) return;
    if (this.inputRate === 0) this.startInput(frame);
    else if (frame.sampleRate !== this.inputRate || frame.channels !== this.inputChannels) {
      throw new InvalidAudioError(
        `Silero VAD stream started at ${this.inputRate} Hz x ${this.inputChannels} channel(s) and got ` +
          `${frame.sampleRate} Hz x ${frame.channels}; open a new stream for a new format`,
      );
    }
    appendMonoInt16(this.history as SampleStore<Int16Array>, frame.data, frame.channels);
    if (this.resampler) {
      for (const out of this.resampler.push(frame)) appendMonoFloat(this.pcm, out.data, out.channels);
    } else {
      appendMonoFloat(this.pcm, frame.data, frame.channels);
    }
    this.schedule();
  }

  endInput(): void {
    if (this.closed || this.ended) return;
    this.ended = true;
    if (this.resampler) {
      for (const out of this.resampler.flush()) appendMonoFloat(this.pcm, out.data, out.channels);
    }
    this.pool.deactivate(this);
    this.schedule();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.ended) this.pool.deactivate(this);
    this.ended = true;
    this.pool.cancel(this);
    if (this.abortListener) this.callOptions.signal?.removeEventListener('abort', this.abortListener);
    this.events.dispose();
    this.speech = undefined;
    this.inSpeech = false;
    this.history = undefined;
    this.onClose?.();
  }

  iterator(): AsyncIterator<VADEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  availableWindows(): number {
    return Math.floor((this.pcm.end - this.nextWindow) / this.window);
  }

  fillWindow(target: Float32Array, offset: number, step: number): void {
    const from = this.pcm.data;
    const start = this.pcm.indexOf(this.nextWindow + step * this.window - this.context);
    target.set(from.subarray(start, start + this.context + this.window), offset);
  }

  completeWindow(probability: number): void {
    if (this.closed) return;
    const start = this.nextWindow;
    this.nextWindow = start + this.window;
    this.onProbability(probability, start);
    this.pcm.trimBefore(this.nextWindow - this.context);
  }

  resume(): void {
    this.schedule();
  }

  failWindow(error: Error): void {
    if (this.closed) return;
    // A broken recurrent state would poison every later window, so the stream starts afresh.
    this.state.fill(0);
    const timestampMs = this.toMs(this.nextWindow);
    const message = `Silero VAD inference failed at ${timestampMs} ms: ${error.message}`;
    this.callOptions.onProblem?.({
      type: 'audio_dropped',
      droppedMs: this.toMs(this.window),
      message,
      error: new SileroInferenceError(message, { code: 'inference_failed', timestampMs, cause: error }),
    });
    // Counting the window as silence lets a running utterance end instead of hanging on a dead model.
    this.completeWindow(0);
    this.schedule();
  }

  private startInput(frame: AudioFrameLike): void {
    this.inputRate = frame.sampleRate;
    this.inputChannels = frame.channels;
    if (frame.sampleRate !== this.modelRate) {
      this.resampler = new AudioResampler(frame.sampleRate, this.modelRate, { channels: frame.channels });
    }
    const perWindow = Math.ceil((this.window * frame.sampleRate) / this.modelRate);
    this.history = new SampleStore(
      (n) => new Int16Array(n),
      this.toInput(this.prefixSamples) + 8 * perWindow,
    );
  }

  /** Queues the next window, drops audio the pool cannot keep up with, or finishes an ended stream. */
  private schedule(): void {
    if (this.closed || this.inFlight) return;
    const available = this.pcm.end - this.nextWindow;
    if (available > this.backlogSamples) this.dropBacklog(available);
    if (this.pcm.end - this.nextWindow >= this.window) {
      this.pool.enqueue(this);
      return;
    }
    if (this.ended && !this.queued) this.finish();
  }

  private dropBacklog(available: number): void {
    const drop = Math.floor((available - (this.backlogSamples >> 1)) / this.window) * this.window;
    if (drop <= 0) return;
    const timestampMs = this.toMs(this.nextWindow);
    this.nextWindow += drop;
    this.pcm.trimBefore(this.nextWindow - this.context);
    this.state.fill(0);
    this.detector.skipTo(this.nextWindow);
    this.trimHistory();
    const message = `Silero VAD fell ${this.toMs(available)} ms behind and dropped ${this.toMs(drop)} ms of audio`;
    this.callOptions.onProblem?.({
      type: 'audio_dropped',
      droppedMs: this.toMs(drop),
      message,
      error: new SileroInferenceError(message, { code: 'audio_dropped', timestampMs }),
    });
  }

  private onProbability(probability: number, start: number): void {
    const detector = this.detector;
    const end = start + this.window;
    const transition = detector.update(probability, start, this.window);
    if (transition === SPEECH_STARTED) {
      this.beginSpeech(Math.max(0, detector.speechStart - this.prefixSamples), end);
    } else if (this.inSpeech) {
      this.appendSpeech(start, end);
    }
    if (end - this.lastUpdate >= this.updateSamples) {
      this.lastUpdate = end;
      if (this.events.size < EVENT_CAPACITY - BOUNDARY_RESERVE) {
        this.events.trySend({
          type: 'inference_done',
          timestampMs: this.toMs(end),
          probability,
          speaking: detector.speaking,
          speechDurationMs: this.toMs(detector.speechSamples()),
        });
      }
    }
    if (transition === SPEECH_STARTED) {
      this.events.trySend({
        type: 'start_of_speech',
        timestampMs: this.toMs(detector.speechStart),
        speechDurationMs: this.toMs(detector.speechSamples()),
        frames: [this.speechFrame()],
      });
    } else if (transition === SPEECH_ENDED) {
      this.endSpeech(end);
    }
    this.trimHistory();
  }

  private endSpeech(position: number): void {
    const endedAt = this.voiceEndOf(this.detector.endedAt);
    this.events.trySend({
      type: 'end_of_speech',
      timestampMs: this.toMs(endedAt),
      silenceDurationMs: this.toMs(position - endedAt),
      frames: [this.speechFrame()],
    });
    this.inSpeech = false;
    // A store grown by a long utterance is not held for the life of the stream.
    if ((this.speech?.data.length ?? 0) > RETAINED_SPEECH_SECONDS * this.inputRate) this.speech = undefined;
  }

  private finish(): void {
    const end = this.nextWindow;
    if (this.detector.finish()) this.endSpeech(end);
    this.events.close();
    this.history = undefined;
    this.onClose?.();
  }

  private beginSpeech(from: number, to: number): void {
    const first = this.toInput(from);
    this.speechCap = this.toInput(Math.round((this.options.maxBufferedSpeechMs * this.modelRate) / 1000));
    if (this.speech) {
      this.speech.trimBefore(this.speech.end);
    } else {
      const initial = Math.min(this.speechCap, this.toInput(to) - first + this.toInput(this.modelRate));
      this.speech = new SampleStore((n) => new Int16Array(n), initial, 0);
    }
    this.inSpeech = true;
    this.copySpeech(first, this.toInput(to));
  }

  private appendSpeech(from: number, to: number): void {
    this.copySpeech(this.toInput(from), this.toInput(to));
  }

  /** Copies input-rate history [first, last) into the speech buffer, up to the cap. */
  private copySpeech(first: number, last: number): void {
    const speech = this.speech as SampleStore<Int16Array>;
    const history = this.history;
    if (!history) return;
    const from = Math.max(first, history.origin);
    const to = Math.min(last, history.end, from + (this.speechCap - speech.count));
    if (to <= from) return;
    const at = speech.reserve(to - from);
    const offset = history.indexOf(from);
    speech.data.set(history.data.subarray(offset, offset + (to - from)), at);
    speech.commit(to - from);
  }

  private speechFrame(): AudioFrame {
    const speech = this.speech as SampleStore<Int16Array>;
    // A copy: the store is written again by the next utterance, and listeners may keep the frames.
    const samples = speech.data.slice(speech.head, speech.head + speech.count);
    return new AudioFrame(samples, this.inputRate, 1, samples.length);
  }

  /** `voiceEnd`, computed once per confident end. */
  private readonly voiceEndOf = (confidentEnd: number): number => {
    if (confidentEnd !== this.voiceEndCache.confidentEnd) {
      this.voiceEndCache.confidentEnd = confidentEnd;
      this.voiceEndCache.voiceEnd = this.voiceEnd(confidentEnd);
    }
    return this.voiceEndCache.voiceEnd;
  };
  private readonly voiceEndCache = { confidentEnd: -1, voiceEnd: 0 };

  /**
   * Where the voice stopped, in model samples: Silero's end moved back to where the audio's level
   * drops (see speech-end.ts), by at most `VOICE_END_SEARCH_WINDOWS` windows.
   */
  private voiceEnd(confidentEnd: number): number {
    const history = this.history;
    if (!history) return confidentEnd;
    const referenceFrom = this.toInput(Math.max(0, confidentEnd - VOICE_END_REFERENCE_WINDOWS * this.window));
    const searchFrom = this.toInput(Math.max(0, confidentEnd - VOICE_END_SEARCH_WINDOWS * this.window));
    const end = this.toInput(confidentEnd);
    if (referenceFrom < history.origin || end > history.end || end <= searchFrom) return confidentEnd;
    const offset = history.indexOf(referenceFrom);
    const voiced = lastVoicedSample(
      history.data,
      offset,
      offset + (searchFrom - referenceFrom),
      offset + (end - referenceFrom),
      (VOICE_END_BLOCK_MS * this.inputRate) / 1000,
    );
    const inputPosition = referenceFrom + (voiced - offset);
    return Math.min(confidentEnd, Math.round((inputPosition * this.modelRate) / this.inputRate));
  }

  /** Keeps the input audio that prefix padding, a possible start of speech or the voice's end may need. */
  private trimHistory(): void {
    const history = this.history;
    if (!history) return;
    const detector = this.detector;
    const candidate = !detector.speaking && detector.speechSamples() > 0;
    let keepFrom = (candidate ? detector.speechStart : this.nextWindow) - this.prefixSamples;
    if (detector.speaking) {
      keepFrom = Math.min(keepFrom, detector.confidentEnd - VOICE_END_REFERENCE_WINDOWS * this.window);
    }
    history.trimBefore(this.toInput(Math.max(0, keepFrom)));
  }

  /** Model-rate position to input-rate position; the resampler keeps the two aligned without delay. */
  private toInput(modelPosition: number): number {
    return Math.round((modelPosition * this.inputRate) / this.modelRate);
  }

  private toMs(modelSamples: number): number {
    return (modelSamples * 1000) / this.modelRate;
  }
}

let wrap: (core: StreamCore) => SileroVADStream;

/** The public stream around a core; kept out of the class so its constructor stays out of the API. */
export function publicStream(core: StreamCore): SileroVADStream {
  return wrap(core);
}

/**
 * A Silero VAD stream: the `VADStream` contract plus backlog figures. Windows it could not analyse and
 * audio it dropped to keep up go to the stream's `onProblem`.
 */
export class SileroVADStream implements VADStream {
  readonly #core: StreamCore;

  static {
    wrap = (core) => new SileroVADStream(core);
  }

  private constructor(core: StreamCore) {
    this.#core = core;
  }

  /** Unanalysed audio waiting for inference, in ms. */
  get pendingAudioMs(): number {
    return this.#core.pendingAudioMs;
  }

  /** Audio analysed so far, in ms. */
  get processedAudioMs(): number {
    return this.#core.processedAudioMs;
  }

  pushFrame(frame: AudioFrameLike): void {
    this.#core.pushFrame(frame);
  }

  endInput(): void {
    this.#core.endInput();
  }

  close(): Promise<void> {
    return this.#core.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<VADEvent> {
    return this.#core.iterator();
  }
}
