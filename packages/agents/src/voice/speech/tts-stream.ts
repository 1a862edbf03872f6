import { TTSStreamAdapter } from '../../adapters/tts-stream-adapter.js';
import { withIdleTimeout } from '../../provider-utils/idle-timeout.js';
import type { ProviderProblem } from '../../providers/common.js';
import type { BatchTTS, SynthesizedAudio, TTS, TTSStream } from '../../providers/tts.js';
import type { Clock } from '../../time/clock.js';

export interface TtsDeadlines {
  clock: Clock;
  /** Longest wait for the first audio, from the first text. */
  firstAudioTimeoutMs: number;
  /** Longest gap in the audio while the synthesizer owes some. */
  audioTimeoutMs: number;
}

/**
 * Opens streaming syntheses for one session. A batch synthesizer gets the reply cut into sentences by
 * an adapter kept per session, so no state is shared between sessions. Every stream has deadlines: one
 * that stops producing audio fails with a retryable `APITimeoutError`, even if it ignores its signal.
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
    return new DeadlinedTtsStream(inner, tts.label, signal, this.deadlines);
  }
}

/** Stands for "the synthesizer was given more to say" in the stream the idle guard watches. */
const OWES_AUDIO = Symbol('owes-audio');

/**
 * A synthesis whose audio must come in time. Before the first audio the wait is `firstAudioTimeoutMs`
 * from the first read; after it, `audioTimeoutMs` from the later of the last audio and the last text
 * (or end of input) sent: a synthesizer waiting for the LLM's next words owes nothing, so a slow model is
 * never taken for a stalled synthesizer (the LLM has deadlines of its own).
 */
class DeadlinedTtsStream implements TTSStream {
  private heardAudio = false;
  private wakeOwed: (() => void) | undefined;

  constructor(
    private readonly inner: TTSStream,
    private readonly label: string,
    private readonly signal: AbortSignal,
    private readonly deadlines: TtsDeadlines,
  ) {}

  pushText(text: string): void {
    this.inner.pushText(text);
    this.owed();
  }

  flush(): void {
    this.inner.flush();
    this.owed();
  }

  endInput(): void {
    this.inner.endInput();
    this.owed();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SynthesizedAudio> {
    const guarded = withIdleTimeout(() => this.withOwedMarks(), {
      clock: this.deadlines.clock,
      firstItemTimeoutMs: this.deadlines.firstAudioTimeoutMs,
      idleTimeoutMs: this.deadlines.audioTimeoutMs,
      signal: this.signal,
      label: this.label,
    });
    for await (const item of guarded) {
      if (item !== OWES_AUDIO) yield item;
    }
  }

  private owed(): void {
    const wake = this.wakeOwed;
    this.wakeOwed = undefined;
    wake?.();
  }

  /** The synthesizer's audio, with a mark each time it is given more to say after its first audio. */
  private async *withOwedMarks(): AsyncGenerator<SynthesizedAudio | typeof OWES_AUDIO> {
    const audio = this.inner[Symbol.asyncIterator]();
    let nextAudio = audio.next();
    // Observed here too: the wait may be abandoned (timeout, abort) while the read is pending.
    nextAudio.catch(() => {});
    for (;;) {
      const owedMark = this.heardAudio
        ? new Promise<typeof OWES_AUDIO>((resolve) => {
            this.wakeOwed = () => resolve(OWES_AUDIO);
          })
        : undefined;
      const next = await (owedMark ? Promise.race([nextAudio, owedMark]) : nextAudio);
      if (next === OWES_AUDIO) {
        yield OWES_AUDIO;
        continue;
      }
      this.wakeOwed = undefined;
      if (next.done) return;
      this.heardAudio = true;
      yield next.value;
      nextAudio = audio.next();
      nextAudio.catch(() => {});
    }
  }
}
