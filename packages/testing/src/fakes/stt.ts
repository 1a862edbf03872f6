import { APIConnectionError, type AudioFrame, type Clock, type TimerHandle } from '@voxwire/agents';
import {
  Channel,
  SPECIFICATION_VERSION,
  type StreamingSTT,
  type STTEvent,
  type STTStream,
  type STTStreamOptions,
} from '@voxwire/agents/provider-utils';
import { decodeSegment } from '../audio.js';

/** What the fake recognizer knows about the utterance behind one segment code. */
export interface FakeUtterance {
  transcript: string;
  /** Length of the spoken audio, so partial hearing yields partial text. */
  durationMs: number;
  /** From the last voiced audio heard to the final transcript. Default: the STT's `finalDelayMs`. */
  finalDelayMs?: number;
  /** The final transcript arrives empty (a recognizer that heard noise, or lost the words). */
  emptyFinal?: boolean;
  /** No final transcript at all for this utterance (only interims). */
  noFinal?: boolean;
  /**
   * From the last voiced audio to an eager end of turn (`preflight_transcript` of the final's text), when
   * shorter than the final's delay. Default: none.
   */
  preflightDelayMs?: number;
}

export interface FakeSTTOptions {
  clock: Clock;
  /** Indexed by segment code. */
  utterances: readonly FakeUtterance[];
  /** Default delay from the end of voiced audio to the final transcript. Default 300 ms. */
  finalDelayMs?: number;
  /** Silence after which the recognizer considers the utterance over. Default 200 ms. */
  endSilenceMs?: number;
  /** Voiced audio between interim transcripts. Default 400 ms; 0 disables interims. */
  interimIntervalMs?: number;
  /** Latency of an interim transcript. Default 150 ms. */
  interimDelayMs?: number;
  /** Emit the recognizer's own start/end of speech events. Default false. */
  speechEvents?: boolean;
  language?: string;
  /** Sees every frame the session feeds, with the code it carries (undefined: silence). */
  onFrame?(code: number | undefined): void;
  /** A stream went quiet (see `stall()`): it takes audio but reports nothing any more. */
  onStall?(): void;
  queueCapacity?: number;
}

/**
 * A streaming recognizer that transcribes what it hears: it decodes which scripted utterance a voiced
 * frame belongs to, emits interims as the audio accumulates, and a final transcript of the part it
 * heard after the utterance ends. Fed silence, it hears nothing, as a real recognizer would.
 */
export class FakeSTT implements StreamingSTT {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label = 'fake.FakeSTT';
  /** Every common rate, so the session hands the fake microphone's frames over untouched. */
  readonly inputSampleRates: readonly number[] = [16_000, 8_000, 24_000, 44_100, 48_000];
  private readonly streams = new Set<FakeSTTStream>();
  private outageUntil = -1;
  private stalledUntil = -1;
  private framesTotal = 0;

  constructor(readonly options: FakeSTTOptions) {}

  get framesPushed(): number {
    return this.framesTotal;
  }

  stream(options: STTStreamOptions): STTStream {
    const signal = options.signal;
    const onAbort = (): void => void stream.close();
    const stream = new FakeSTTStream(this, this.options, () => {
      this.streams.delete(stream);
      signal?.removeEventListener('abort', onAbort);
    });
    this.streams.add(stream);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (this.options.clock.now() < this.stalledUntil) stream.goQuiet();
    if (this.options.clock.now() < this.outageUntil) {
      stream.fail(new APIConnectionError('STT unavailable'));
    }
    return stream;
  }

  /** Drops every open connection; new ones fail until `outageMs` has passed. */
  disconnect(outageMs = 0): void {
    this.outageUntil = this.options.clock.now() + outageMs;
    for (const stream of [...this.streams]) stream.fail(new APIConnectionError('STT connection lost'));
  }

  /**
   * Open streams go quiet for good: they take audio but never report anything again (a stalled socket);
   * new streams are quiet too until `durationMs` has passed.
   */
  stall(durationMs: number): void {
    this.stalledUntil = this.options.clock.now() + Math.max(1, durationMs);
    for (const stream of [...this.streams]) stream.goQuiet();
  }

  /** @internal */
  countFrame(): void {
    this.framesTotal++;
  }
}

interface Heard {
  code: number;
  heardMs: number;
  lastVoicedAt: number;
  interimsSent: number;
  finalizing: boolean;
}

class FakeSTTStream implements STTStream {
  private readonly events: Channel<STTEvent>;
  private readonly timers = new Set<TimerHandle>();
  private current: Heard | undefined;
  private ended = false;
  private inputEnded = false;
  private quiet = false;

  constructor(
    private readonly owner: FakeSTT,
    private readonly options: FakeSTTOptions,
    private readonly onEnd: () => void,
  ) {
    this.events = new Channel<STTEvent>({
      capacity: options.queueCapacity ?? 256,
      overflow: 'drop-oldest',
      name: 'fake-stt-events',
    });
  }

  pushFrame(frame: AudioFrame): void {
    if (this.ended || this.inputEnded) return;
    this.owner.countFrame();
    const clock = this.options.clock;
    const code = decodeSegment(frame);
    this.options.onFrame?.(code);
    const durationMs = (frame.samplesPerChannel * 1000) / frame.sampleRate;
    const now = clock.now();
    if (code !== undefined && code < this.options.utterances.length) {
      if (this.current && this.current.code !== code) this.finalize(this.current, 0);
      if (!this.current) {
        this.current = { code, heardMs: 0, lastVoicedAt: now, interimsSent: 0, finalizing: false };
        if (this.options.speechEvents) this.emit({ type: 'start_of_speech' });
      }
      const heard = this.current;
      heard.heardMs += durationMs;
      heard.lastVoicedAt = now;
      const interval = this.options.interimIntervalMs ?? 400;
      if (interval > 0 && heard.heardMs >= (heard.interimsSent + 1) * interval) {
        heard.interimsSent++;
        const text = this.textOf(heard);
        this.later(this.options.interimDelayMs ?? 150, () => {
          if (this.current === heard && text !== '') {
            this.emit({ type: 'interim_transcript', alternatives: [this.alternative(text)] });
          }
        });
      }
      return;
    }
    const heard = this.current;
    if (heard && now - heard.lastVoicedAt >= (this.options.endSilenceMs ?? 200)) {
      const delay = this.utterance(heard).finalDelayMs ?? this.options.finalDelayMs ?? 300;
      this.finalize(heard, Math.max(0, heard.lastVoicedAt + delay - now));
    }
  }

  flush(): void {
    if (this.current) this.finalize(this.current, 0);
  }

  endInput(): void {
    if (this.ended) return;
    this.inputEnded = true;
    if (this.current) this.finalize(this.current, 0);
    // Iteration ends once the transcripts already due have been delivered.
    this.later(0, () => this.finish());
  }

  async close(): Promise<void> {
    this.finish();
  }

  goQuiet(): void {
    if (this.quiet || this.ended) return;
    this.quiet = true;
    this.options.onStall?.();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.cancelTimers();
    this.events.fail(error);
    this.onEnd();
  }

  [Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.cancelTimers();
    this.events.close();
    this.onEnd();
  }

  private finalize(heard: Heard, delayMs: number): void {
    if (heard.finalizing) return;
    heard.finalizing = true;
    if (this.current === heard) this.current = undefined;
    const utterance = this.utterance(heard);
    if (utterance.noFinal) return;
    const text = utterance.emptyFinal ? '' : this.textOf(heard);
    // The eager end of turn keeps its lead on the final, however late the final is scheduled.
    const lead =
      (utterance.finalDelayMs ?? this.options.finalDelayMs ?? 300) - (utterance.preflightDelayMs ?? 0);
    if (utterance.preflightDelayMs !== undefined && lead > 0 && text !== '') {
      this.later(Math.max(0, delayMs - lead), () => {
        this.emit({ type: 'preflight_transcript', alternatives: [this.alternative(text)] });
      });
    }
    this.later(delayMs, () => {
      this.emit({ type: 'final_transcript', alternatives: [this.alternative(text)] });
      if (this.options.speechEvents) this.emit({ type: 'end_of_speech' });
    });
  }

  private utterance(heard: Heard): FakeUtterance {
    return this.options.utterances[heard.code]!;
  }

  /** The words covered by the audio heard so far. */
  private textOf(heard: Heard): string {
    const utterance = this.utterance(heard);
    const words = utterance.transcript.split(/\s+/u).filter((w) => w !== '');
    if (words.length === 0) return '';
    const fraction = utterance.durationMs <= 0 ? 1 : heard.heardMs / utterance.durationMs;
    // A recognizer catches up with the last word once nearly all of the audio is in.
    const count = fraction >= 0.9 ? words.length : Math.floor(words.length * fraction);
    return words.slice(0, count).join(' ');
  }

  private alternative(text: string): { text: string; language?: string; confidence: number } {
    return {
      text,
      confidence: 0.9,
      ...(this.options.language !== undefined ? { language: this.options.language } : {}),
    };
  }

  private emit(event: STTEvent): void {
    if (!this.ended && !this.quiet) this.events.trySend(event);
  }

  private later(delayMs: number, fn: () => void): void {
    const timer = this.options.clock.setTimer(delayMs, () => {
      this.timers.delete(timer);
      fn();
    });
    this.timers.add(timer);
  }

  private cancelTimers(): void {
    for (const timer of this.timers) timer.cancel();
    this.timers.clear();
  }
}
