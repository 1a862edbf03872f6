import { APIConnectionError, type AudioFrame, type VAD } from '@voxwire/agents';
import {
  Channel,
  SPECIFICATION_VERSION,
  type VADEvent,
  type VADStream,
} from '@voxwire/agents/provider-utils';
import { peakOf, VOICE_THRESHOLD } from '../audio.js';

export interface ScriptedVADOptions {
  /** Voiced audio needed before `start_of_speech`, in ms. Default 100. */
  minSpeechDurationMs?: number;
  /** Silence needed before `end_of_speech`, in ms. Default 500. */
  minSilenceDurationMs?: number;
  /** Analysis window; one `inference_done` per window. Default 20 ms. */
  windowMs?: number;
  /** Peak amplitude above which a window is voiced. */
  threshold?: number;
  /** Audio kept for the `frames` of speech events, in ms. Default 2000. */
  maxBufferedSpeechMs?: number;
  /** Events queued for a consumer that does not read them; beyond it the oldest are dropped (counted). */
  queueCapacity?: number;
  /** Sees whether each frame fed to the detector was voiced. */
  onFrame?(voiced: boolean): void;
}

/**
 * An energy VAD: it listens to the frames it is fed and decides speech the way a model-based detector
 * would, with an activation delay (minimum speech) and a release delay (minimum silence). Because it
 * hears real frames, a session that stops feeding it, or feeds it the wrong audio, is caught.
 */
export class ScriptedVAD implements VAD {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'fake.ScriptedVAD';
  /** How often the detector reports, in ms of audio. */
  readonly windowMs: number;
  readonly minSilenceDurationMs: number;
  readonly minSpeechDurationMs: number;
  private readonly streams = new Set<EnergyVADStream>();
  private droppedTotal = 0;
  private framesTotal = 0;

  constructor(private readonly options: ScriptedVADOptions = {}) {
    this.minSpeechDurationMs = options.minSpeechDurationMs ?? 100;
    this.minSilenceDurationMs = options.minSilenceDurationMs ?? 500;
    this.windowMs = options.windowMs ?? 20;
  }

  /** Events dropped because a consumer fell behind, over every stream. */
  get droppedEvents(): number {
    let live = 0;
    for (const s of this.streams) live += s.dropped;
    return this.droppedTotal + live;
  }

  /** Frames pushed into every stream so far. */
  get framesPushed(): number {
    return this.framesTotal;
  }

  stream(options: { signal?: AbortSignal } = {}): VADStream {
    const signal = options.signal;
    const onAbort = (): void => void stream.close();
    const stream = new EnergyVADStream(this, this.options, () => {
      this.streams.delete(stream);
      this.droppedTotal += stream.dropped;
      signal?.removeEventListener('abort', onAbort);
    });
    this.streams.add(stream);
    signal?.addEventListener('abort', onAbort, { once: true });
    return stream;
  }

  /** Makes every open stream fail, as a crashed inference worker would. */
  fail(error: unknown = new APIConnectionError('VAD inference failed')): void {
    for (const stream of [...this.streams]) stream.fail(error);
  }

  /** @internal */
  countFrame(): void {
    this.framesTotal++;
  }
}

class EnergyVADStream implements VADStream {
  private readonly events: Channel<VADEvent>;
  private readonly minSpeech: number;
  private readonly minSilence: number;
  private readonly windowMs: number;
  private readonly threshold: number;
  private readonly maxBufferedMs: number;
  private positionMs = 0;
  private windowFillMs = 0;
  private windowPeak = 0;
  private speaking = false;
  private pendingSpeechMs = 0;
  private speechMs = 0;
  private silenceMs = 0;
  /** Recent audio for the events' `frames`, from `bufferedFrom` on (older slots are cleared). */
  private buffered: AudioFrame[] = [];
  private bufferedFrom = 0;
  private bufferedMs = 0;
  private ended = false;
  private readonly onFrame: ((voiced: boolean) => void) | undefined;

  constructor(
    private readonly owner: ScriptedVAD,
    options: ScriptedVADOptions,
    private readonly onEnd: () => void,
  ) {
    this.minSpeech = owner.minSpeechDurationMs;
    this.minSilence = owner.minSilenceDurationMs;
    this.windowMs = owner.windowMs;
    this.threshold = options.threshold ?? VOICE_THRESHOLD;
    this.maxBufferedMs = options.maxBufferedSpeechMs ?? 2000;
    this.onFrame = options.onFrame;
    this.events = new Channel<VADEvent>({
      capacity: options.queueCapacity ?? 512,
      overflow: 'drop-oldest',
      name: 'fake-vad-events',
    });
  }

  get dropped(): number {
    return this.events.droppedCount;
  }

  pushFrame(frame: AudioFrame): void {
    if (this.ended) return;
    this.owner.countFrame();
    const durationMs = (frame.samplesPerChannel * 1000) / frame.sampleRate;
    this.keep(frame, durationMs);
    const peak = peakOf(frame);
    this.onFrame?.(peak >= this.threshold);
    this.windowPeak = Math.max(this.windowPeak, peak);
    this.windowFillMs += durationMs;
    this.positionMs += durationMs;
    // Frames longer than a window still yield one decision per window they cover.
    while (this.windowFillMs >= this.windowMs) {
      this.windowFillMs -= this.windowMs;
      this.decide(this.windowPeak >= this.threshold);
      if (this.windowFillMs < this.windowMs) this.windowPeak = 0;
    }
  }

  endInput(): void {
    if (this.ended) return;
    this.finish();
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.finish();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.events.fail(error);
    this.onEnd();
  }

  [Symbol.asyncIterator](): AsyncIterator<VADEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  private finish(): void {
    this.ended = true;
    this.events.close();
    this.onEnd();
  }

  private keep(frame: AudioFrame, durationMs: number): void {
    const buffered = this.buffered;
    buffered.push(frame);
    this.bufferedMs += durationMs;
    // The oldest frames leave by moving a start index, not by shifting the whole array every frame.
    while (this.bufferedMs > this.maxBufferedMs && buffered.length - this.bufferedFrom > 1) {
      const old = buffered[this.bufferedFrom]!;
      (buffered as Array<AudioFrame | undefined>)[this.bufferedFrom] = undefined;
      this.bufferedFrom++;
      this.bufferedMs -= (old.samplesPerChannel * 1000) / old.sampleRate;
    }
    if (this.bufferedFrom >= 256 && this.bufferedFrom * 2 >= buffered.length) {
      this.buffered = buffered.slice(this.bufferedFrom);
      this.bufferedFrom = 0;
    }
  }

  /** The audio kept, oldest first. */
  private keptFrames(): AudioFrame[] {
    return this.buffered.slice(this.bufferedFrom);
  }

  private decide(voiced: boolean): void {
    const w = this.windowMs;
    if (!this.speaking) {
      this.pendingSpeechMs = voiced ? this.pendingSpeechMs + w : 0;
      if (this.pendingSpeechMs >= this.minSpeech && voiced) {
        this.speaking = true;
        this.speechMs = this.pendingSpeechMs;
        this.silenceMs = 0;
        this.events.trySend({
          type: 'start_of_speech',
          // Where the speech began, as the spec says (not where it was confirmed).
          timestampMs: this.positionMs - this.speechMs,
          speechDurationMs: this.speechMs,
          frames: this.keptFrames(),
        });
      }
    } else if (voiced) {
      this.speechMs += w;
      this.silenceMs = 0;
    } else {
      this.silenceMs += w;
      if (this.silenceMs >= this.minSilence) {
        this.speaking = false;
        this.pendingSpeechMs = 0;
        this.events.trySend({
          type: 'end_of_speech',
          // Where the speech ended, as the spec says (not where the silence was confirmed).
          timestampMs: this.positionMs - this.silenceMs,
          silenceDurationMs: this.silenceMs,
          frames: this.keptFrames(),
        });
        this.buffered = [];
        this.bufferedFrom = 0;
        this.bufferedMs = 0;
      }
    }
    this.events.trySend({
      type: 'inference_done',
      timestampMs: this.positionMs,
      probability: voiced ? 0.95 : 0.02,
      speaking: this.speaking,
      speechDurationMs: this.speaking ? this.speechMs : 0,
    });
  }
}
