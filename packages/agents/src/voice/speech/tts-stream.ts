import { TTSStreamAdapter } from '../../adapters/tts-stream-adapter.js';
import { APITimeoutError } from '../../errors.js';
import type { ProviderProblem } from '../../providers/common.js';
import type { BatchTTS, SynthesizedAudio, TTS, TTSStream } from '../../providers/tts.js';
import type { Clock, TimerHandle } from '../../time/clock.js';

export interface TtsDeadlines {
  clock: Clock;
  /** Longest wait for the first audio once the synthesizer has all of its text. */
  firstAudioTimeoutMs: number;
  /** Longest gap in the audio once the synthesizer has all of its text. */
  audioTimeoutMs: number;
}

/**
 * Opens streaming syntheses for one session. A batch synthesizer gets the reply cut into sentences by
 * an adapter kept per session, so no state is shared between sessions. Every stream has deadlines: one
 * that stops producing audio it owes fails with a retryable `APITimeoutError`, even if it ignores its
 * signal.
 */
export class TtsStreamOpener {
  private readonly adapters = new WeakMap<BatchTTS, TTSStreamAdapter>();

  constructor(
    private readonly onProblem: (problem: ProviderProblem) => void,
    private readonly deadlines: TtsDeadlines,
  ) {}

  open(tts: TTS, signal: AbortSignal): TTSStream {
    const options = { signal, onProblem: this.onProblem };
    let inner: TTSStream;
    if (tts.kind === 'streaming') {
      inner = tts.stream(options);
    } else {
      let adapter = this.adapters.get(tts);
      if (!adapter) {
        adapter = new TTSStreamAdapter(tts);
        this.adapters.set(tts, adapter);
      }
      inner = adapter.stream(options);
    }
    return new DeadlinedTtsStream(inner, tts.label, this.deadlines);
  }
}

/**
 * A synthesis whose audio must come in time once the synthesizer has all of its text. Before the end of
 * input it may legitimately wait for more words (a synthesizer that speaks whole sentences), and a slow
 * model has deadlines of its own; from `endInput()` on it owes the rest: its first audio within
 * `firstAudioTimeoutMs`, then each next piece within `audioTimeoutMs`. As with `withIdleTimeout`, the
 * clock runs only while the session waits for the synthesizer, never while it plays what it received
 * (a paused speech, a sink applying back-pressure). A miss fails the stream with a retryable
 * `APITimeoutError` at once, even when the synthesizer ignores its signal, and releases it.
 */
class DeadlinedTtsStream implements TTSStream {
  private inputEnded = false;
  private heardAudio = false;
  /** True while the session waits for the next piece of audio. */
  private waiting = false;
  private timer: TimerHandle | undefined;
  private readonly stalled: Promise<never>;
  private failStalled!: (error: unknown) => void;
  /** Settles the wait for audio when the stream is closed, even if the synthesizer never answers. */
  private readonly closed: Promise<IteratorResult<SynthesizedAudio>>;
  private resolveClosed!: (result: IteratorResult<SynthesizedAudio>) => void;

  constructor(
    private readonly inner: TTSStream,
    private readonly label: string,
    private readonly deadlines: TtsDeadlines,
  ) {
    this.stalled = new Promise<never>((_, reject) => {
      this.failStalled = reject;
    });
    this.stalled.catch(() => {});
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  pushText(text: string): void {
    this.inner.pushText(text);
  }

  flush(): void {
    this.inner.flush();
  }

  endInput(): void {
    this.inner.endInput();
    this.inputEnded = true;
    this.arm();
  }

  close(): Promise<void> {
    this.disarm();
    this.resolveClosed({ done: true, value: undefined });
    return this.inner.close();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SynthesizedAudio> {
    const audio = this.inner[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        const next = audio.next();
        next.catch(() => {});
        this.waiting = true;
        this.arm();
        let result: IteratorResult<SynthesizedAudio>;
        try {
          result = await Promise.race([next, this.stalled, this.closed]);
        } finally {
          this.waiting = false;
          this.disarm();
        }
        if (result.done) {
          finished = true;
          return;
        }
        this.heardAudio = true;
        yield result.value;
      }
    } finally {
      this.disarm();
      if (!finished) void Promise.resolve(audio.return?.()).catch(() => {});
    }
  }

  private arm(): void {
    if (!this.inputEnded || !this.waiting || this.timer) return;
    const ms = this.heardAudio ? this.deadlines.audioTimeoutMs : this.deadlines.firstAudioTimeoutMs;
    if (!Number.isFinite(ms)) return;
    this.timer = this.deadlines.clock.setTimer(ms, () => {
      this.timer = undefined;
      this.failStalled(
        new APITimeoutError(
          this.heardAudio
            ? `${this.label}: no audio for ${ms} ms`
            : `${this.label}: no audio within ${ms} ms of the end of its text`,
        ),
      );
      // A synthesizer that stalled is released now; a hung close must not hold the speech either.
      void this.inner.close().catch(() => {});
    });
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }
}
