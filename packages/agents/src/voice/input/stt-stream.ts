import type { AudioFrame } from '../../audio/audio-frame.js';
import { STTStreamAdapter } from '../../adapters/stt-stream-adapter.js';
import { VoxwireError } from '../../errors.js';
import type { ProviderCallOptions } from '../../providers/common.js';
import type { BatchSTT, STT, STTEvent, STTStream } from '../../providers/stt.js';
import type { VAD } from '../../providers/vad.js';
import type { Clock } from '../../time/clock.js';
import { SttInputFormat } from './stt-input-format.js';

/** A recognizer that only handles finished utterances was given without a VAD to cut them. */
export class MissingVADError extends VoxwireError {
  override name = 'MissingVADError';
}

export interface SttOpenOptions extends ProviderCallOptions {
  language?: string;
}

/**
 * Opens recognition streams for one session. Any STT plugs in the same way: a batch recognizer is
 * driven through a VAD that cuts the audio into utterances, and every stream hears mono audio at a rate
 * its recognizer accepts. Adapters are kept per session, so they run on this session's clock.
 */
export class SttStreamOpener {
  private readonly adapters = new WeakMap<BatchSTT, { vad: VAD; adapter: STTStreamAdapter }>();

  constructor(private readonly clock: Clock) {}

  open(stt: STT, vad: VAD | undefined, options: SttOpenOptions): STTStream {
    if (stt.kind === 'batch' && !vad) {
      throw new MissingVADError(
        `${stt.label} recognizes finished utterances only: give the session (or the agent) a VAD so it can cut the audio into utterances`,
      );
    }
    const streaming = stt.kind === 'streaming' ? stt : this.adapterFor(stt, vad!);
    return new FormattedSttStream(
      (sampleRate) => streaming.stream({ ...options, sampleRate }),
      stt,
      options.signal,
    );
  }

  private adapterFor(stt: BatchSTT, vad: VAD): STTStreamAdapter {
    let entry = this.adapters.get(stt);
    if (!entry || entry.vad !== vad) {
      entry = { vad, adapter: new STTStreamAdapter(stt, vad, { clock: this.clock }) };
      this.adapters.set(stt, entry);
    }
    return entry.adapter;
  }
}

/**
 * Opens the recognizer's stream when the first frame tells the input's rate, and converts every frame
 * to the rate it was opened with. A recognizer that throws when opened fails this stream's iteration,
 * so the session's restart policy handles it like any other stream failure.
 */
class FormattedSttStream implements STTStream {
  private inner: STTStream | undefined;
  private format: SttInputFormat | undefined;
  private openError: unknown;
  private ended = false;
  private closed = false;
  private readonly opened: Promise<void>;
  private resolveOpened!: () => void;

  private readonly onAbort = (): void => void this.close();

  constructor(
    private readonly openInner: (sampleRate: number) => STTStream,
    private readonly stt: STT,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.opened = new Promise((resolve) => {
      this.resolveOpened = resolve;
    });
    // Until the first frame no provider stream listens to the signal; this one must end on abort too.
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  pushFrame(frame: AudioFrame): void {
    if (this.closed || this.ended || this.openError !== undefined) return;
    if (!this.inner) {
      const rate = SttInputFormat.chooseRate(this.stt.inputSampleRates, frame.sampleRate);
      try {
        this.inner = this.openInner(rate);
      } catch (error) {
        this.openError = error;
        this.resolveOpened();
        return;
      }
      this.format = new SttInputFormat(this.stt.inputSampleRates, rate);
      this.resolveOpened();
    }
    for (const piece of this.format!.convert(frame)) this.inner.pushFrame(piece);
  }

  /** Before the first frame nothing was heard, so there is nothing to finalize. */
  flush(): void {
    this.inner?.flush();
  }

  endInput(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.inner) {
      this.resolveOpened();
      return;
    }
    for (const piece of this.format!.flush()) this.inner.pushFrame(piece);
    this.inner.endInput();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.resolveOpened();
    await this.inner?.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<STTEvent> {
    await this.opened;
    if (this.openError !== undefined) throw this.openError;
    if (!this.inner) return;
    yield* this.inner;
  }
}
