import { APIConnectionError, APIStatusError, type Clock } from '@voxwire/agents';
import {
  type SynthesizedAudio,
  type BatchTTS,
  SPECIFICATION_VERSION,
  type StreamingTTS,
  type TTSStream,
} from '@voxwire/agents/provider-utils';
import { agentFrame, SAMPLE_RATE } from '../audio.js';

export interface FakeTTSOptions {
  clock: Clock;
  /** Audio per character of text. Default 60 ms (about 2.5 words a second). */
  msPerChar?: number;
  /** Frame length of the produced audio. Default 20 ms. */
  frameMs?: number;
  /** Time to first byte of a stream or synthesis. Default 200 ms. */
  ttfbMs?: number;
  /** Synthesis time per ms of audio after the first byte. Default 0.2 (5x faster than real time). */
  realtimeFactor?: number;
  sampleRate?: number;
  /** Synthesis of text containing any of these fails (case-insensitive). */
  failOn?: readonly string[];
  onEvent?(
    event: { type: 'synthesis'; text: string } | { type: 'error'; message: string } | { type: 'stall' },
  ): void;
}

/** Audio produced per synthesis step, so a long text does not arrive as one burst. */
const BLOCK_MS = 200;

/**
 * A speech synthesizer whose audio lasts in proportion to its text. Audio is produced on demand (the
 * consumer's pace bounds the buffer) after a time to first byte, faster than real time.
 */
export class FakeTTS implements StreamingTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly kind = 'streaming';
  readonly label = 'fake.FakeTTS';
  readonly sampleRate: number;
  readonly numChannels = 1;
  /** @internal */
  readonly streams = new Set<FakeTTSStream>();
  private outageUntil = -1;
  private stalledUntil = -1;

  constructor(readonly options: FakeTTSOptions) {
    this.sampleRate = options.sampleRate ?? SAMPLE_RATE;
  }

  /** Streams in flight fail now; new ones fail until `durationMs` has passed. */
  outage(durationMs: number): void {
    this.outageUntil = this.options.clock.now() + Math.max(1, durationMs);
    for (const stream of [...this.streams]) stream.drop();
  }

  /**
   * Streams in flight stop producing audio (no error: they go quiet until closed); new ones produce
   * none until `durationMs` has passed.
   */
  stall(durationMs: number): void {
    this.stalledUntil = this.options.clock.now() + Math.max(1, durationMs);
    for (const stream of [...this.streams]) stream.stalled = true;
  }

  /** @internal */
  get stalling(): boolean {
    return this.options.clock.now() < this.stalledUntil;
  }

  /** @internal */
  get down(): boolean {
    return this.options.clock.now() < this.outageUntil;
  }

  /** The same synthesizer seen as one that takes only whole texts (the session then cuts sentences). */
  asBatch(): BatchTTS {
    return {
      specificationVersion: SPECIFICATION_VERSION,
      kind: 'batch',
      label: `${this.label}.batch`,
      sampleRate: this.sampleRate,
      numChannels: this.numChannels,
      synthesize: (text, options) => this.synthesize(text, options),
    };
  }

  synthesize(text: string, options: { signal?: AbortSignal } = {}): AsyncIterable<SynthesizedAudio> {
    const stream = new FakeTTSStream(this, options.signal);
    stream.pushText(text);
    stream.endInput();
    return stream;
  }

  stream(options: { signal?: AbortSignal } = {}): TTSStream {
    return new FakeTTSStream(this, options.signal);
  }

  /** @internal */
  error(message: string, status?: number): Error {
    this.options.onEvent?.({ type: 'error', message });
    return status === undefined
      ? new APIConnectionError(message)
      : new APIStatusError(message, { statusCode: status });
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * One synthesis. Its audio is read through a plain iterator rather than an async generator: a reply
 * reads dozens of frames a second, and a generator's yield and await cost several promises each. A frame
 * of a block already synthesized is answered at once; only the wait for text or for the next block is
 * asynchronous. Calls made while one is in progress wait for it, as a generator's would.
 */
class FakeTTSStream implements TTSStream {
  private pending = '';
  private inputEnded = false;
  private closed = false;
  private dropped = false;
  /** @internal Produces nothing more (a synthesizer that went quiet). */
  stalled: boolean;
  /** Wakes the producer waiting for text. */
  private wake: (() => void) | undefined;
  /** Cuts a synthesis delay short: only close, abort and outages do. */
  private cut: (() => void) | undefined;
  private readonly onAbort = (): void => this.stopNow();
  private readonly audio: AsyncIterator<SynthesizedAudio> = {
    next: () => this.nextAudio(),
    return: () => this.returnAudio(),
  };
  private started = false;
  private finished = false;
  private first = true;
  private backlogMs = 0;
  /** Frames of the block synthesized last that are still to be read. */
  private framesLeft = 0;
  /** The last call answered a frame: the next one goes on from there. */
  private afterFrame = false;
  private inFlight: Promise<IteratorResult<SynthesizedAudio>> | undefined;

  constructor(
    private readonly owner: FakeTTS,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.stalled = owner.stalling;
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  pushText(text: string): void {
    if (this.inputEnded || this.closed) return;
    this.pending += text;
    this.notify();
  }

  flush(): void {
    this.notify();
  }

  endInput(): void {
    this.inputEnded = true;
    this.notify();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopNow();
    await this.audio.return?.();
  }

  drop(): void {
    this.dropped = true;
    this.stopNow();
  }

  [Symbol.asyncIterator](): AsyncIterator<SynthesizedAudio> {
    return this.audio;
  }

  private nextAudio(): Promise<IteratorResult<SynthesizedAudio>> {
    if (this.inFlight) return this.after(this.inFlight, () => this.nextAudio());
    if (this.finished) return Promise.resolve(DONE);
    const starting = !this.started;
    if (starting) {
      this.started = true;
      this.owner.streams.add(this);
    }
    if (this.afterFrame) {
      this.afterFrame = false;
      if (this.stopped()) return Promise.resolve(this.finish());
      if (this.dropped) {
        this.finish();
        return Promise.reject(this.owner.error('TTS connection lost'));
      }
      if (this.framesLeft > 0) return Promise.resolve(this.frame());
    }
    const call = this.produce(starting).then(
      (result) => {
        this.inFlight = undefined;
        if (result.done) this.finish();
        return result;
      },
      (error: unknown) => {
        this.inFlight = undefined;
        this.finish();
        throw error;
      },
    );
    this.inFlight = call;
    return call;
  }

  private returnAudio(): Promise<IteratorResult<SynthesizedAudio>> {
    if (this.inFlight) return this.after(this.inFlight, () => this.returnAudio());
    return Promise.resolve(this.finish());
  }

  private after(
    call: Promise<unknown>,
    then: () => Promise<IteratorResult<SynthesizedAudio>>,
  ): Promise<IteratorResult<SynthesizedAudio>> {
    return call.then(then, then);
  }

  private finish(): IteratorReturnResult<undefined> {
    if (!this.finished) {
      this.finished = true;
      this.owner.streams.delete(this);
      this.signal?.removeEventListener('abort', this.onAbort);
    }
    return DONE;
  }

  private frame(): IteratorResult<SynthesizedAudio> {
    this.framesLeft--;
    this.afterFrame = true;
    return {
      done: false,
      value: { frame: agentFrame(this.owner.options.frameMs ?? 20, this.owner.sampleRate) },
    };
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private stopNow(): void {
    this.notify();
    const cut = this.cut;
    this.cut = undefined;
    cut?.();
  }

  private stopped(): boolean {
    return this.closed || this.signal?.aborted === true;
  }

  /** Sleeps on the clock; false when the stream was closed or aborted meanwhile. */
  private async pause(ms: number): Promise<boolean> {
    const clock = this.owner.options.clock;
    if (this.stalled) this.owner.options.onEvent?.({ type: 'stall' });
    let cut: (() => void) | undefined;
    // A timer and its cancel rather than a sleep on an AbortController: a controller and the
    // DOMException its abort makes cost more than the whole pause, and a stream pauses at every chunk.
    await new Promise<void>((resolve) => {
      const timer = clock.setTimer(this.stalled ? Number.POSITIVE_INFINITY : ms, resolve);
      cut = (): void => {
        timer.cancel();
        resolve();
      };
      this.cut = cut;
    });
    if (this.cut === cut) this.cut = undefined;
    if (this.dropped) throw this.owner.error('TTS connection lost');
    return !this.stopped();
  }

  /** Waits for text, synthesizes the next block and answers its first frame; done when there is no more. */
  private async produce(starting: boolean): Promise<IteratorResult<SynthesizedAudio>> {
    const owner = this.owner;
    const opts = owner.options;
    if (starting && owner.down) {
      await this.pause(50);
      throw owner.error('TTS unavailable', 503);
    }
    const msPerChar = opts.msPerChar ?? 60;
    const frameMs = opts.frameMs ?? 20;
    const rtf = opts.realtimeFactor ?? 0.2;
    for (;;) {
      if (this.stopped()) return DONE;
      if (this.dropped) throw owner.error('TTS connection lost');
      if (this.pending === '' && this.backlogMs <= 0) {
        if (this.inputEnded) return DONE;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        continue;
      }
      if (this.pending !== '') {
        const text = this.pending;
        this.pending = '';
        opts.onEvent?.({ type: 'synthesis', text });
        const lower = text.toLowerCase();
        if (opts.failOn?.some((s) => lower.includes(s.toLowerCase()))) {
          if (!(await this.pause(opts.ttfbMs ?? 200))) return DONE;
          throw owner.error(`TTS failed to synthesize "${text.trim()}"`, 500);
        }
        this.backlogMs += text.trim() === '' ? 0 : Math.max(frameMs, text.length * msPerChar);
        if (this.backlogMs <= 0) continue;
      }
      const blockMs = Math.min(BLOCK_MS, this.backlogMs);
      const waitMs = this.first ? (opts.ttfbMs ?? 200) : blockMs * rtf;
      this.first = false;
      if (!(await this.pause(waitMs))) return DONE;
      this.backlogMs -= blockMs;
      this.framesLeft = Math.max(1, Math.round(blockMs / frameMs));
      return this.frame();
    }
  }
}
