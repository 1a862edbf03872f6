import { setMaxListeners } from 'node:events';
import { AudioFrame } from '../../audio/audio-frame.js';
import { isAbortError } from '../../errors.js';
import type { ProviderProblem } from '../../providers/common.js';
import type { STT, STTEvent, STTStream } from '../../providers/stt.js';
import type { VAD, VADEvent, VADStream } from '../../providers/vad.js';
import type { Clock } from '../../time/clock.js';
import type { AudioInput } from '../../providers/audio-io.js';
import type { ErrorSource } from '../session/session-events.js';
import { SttStreamOpener } from './stt-stream.js';
import { untilAborted } from '../../utils/abortable.js';
import type { TraceRecord } from '../session/trace.js';

export interface InputPipelineDeps {
  clock: Clock;
  vad(): VAD | undefined;
  stt(): STT | undefined;
  language(): string | undefined;
  /** While true, the STT hears silence of the same length instead of the user (the VAD still hears all). */
  discardForStt(): boolean;
  onVadEvent(event: VADEvent): void;
  onSttEvent(event: STTEvent): void;
  /** The VAD can no longer hear the user (failed, closed, or input ended). */
  onVadLost(): void;
  onInputEnded(): void;
  onError(source: ErrorSource, error: unknown, recoverable: boolean): void;
  /** A provider recovered from a problem by itself; the session reports it as a recoverable error. */
  onProblem(source: 'vad' | 'stt', problem: ProviderProblem): void;
  trace(record: TraceRecord): void;
}

const RESTART_INITIAL_DELAY_MS = 100;
const RESTART_MAX_DELAY_MS = 5000;

interface StreamSlot<S> {
  stream: S | undefined;
  generation: number;
}

/**
 * Fans every input frame out to the VAD (always, real audio) and the STT (real audio, or silence while
 * input is being discarded), and keeps both streams alive: a failed stream is reported, restarted with
 * backoff on the Clock, and the user is considered silent until the VAD is back.
 */
export class InputPipeline {
  private readonly vadSlot: StreamSlot<VADStream> = { stream: undefined, generation: 0 };
  private readonly sttSlot: StreamSlot<STTStream> = { stream: undefined, generation: 0 };
  private readonly controller = new AbortController();
  private inputTask: Promise<void> | undefined;
  private readonly loops = new Set<Promise<void>>();
  private framesIn = 0;
  private readonly sttOpener: SttStreamOpener;

  constructor(private readonly deps: InputPipelineDeps) {
    this.sttOpener = new SttStreamOpener(deps.clock);
    // The input loop and every (re)opened VAD/STT stream listen to this one signal.
    setMaxListeners(0, this.controller.signal);
  }

  get frameCount(): number {
    return this.framesIn;
  }

  start(input: AudioInput | undefined): void {
    this.openVad();
    this.openStt();
    if (input) this.inputTask = this.pump(input);
  }

  /** Reopens both streams (the active agent changed providers). */
  reopenStreams(): void {
    this.closeSlot(this.vadSlot);
    this.closeSlot(this.sttSlot);
    this.deps.onVadLost();
    this.openVad();
    this.openStt();
  }

  /** Asks the STT to finalize what it has (manual commit). */
  flushStt(): void {
    this.sttSlot.stream?.flush();
  }

  async close(): Promise<void> {
    this.controller.abort();
    this.closeSlot(this.vadSlot);
    this.closeSlot(this.sttSlot);
    await Promise.allSettled([this.inputTask, ...this.loops]);
  }

  private async pump(input: AudioInput): Promise<void> {
    const signal = this.controller.signal;
    try {
      for await (const raw of untilAborted(input, signal)) {
        const frame = AudioFrame.from(raw);
        this.framesIn++;
        this.vadSlot.stream?.pushFrame(frame);
        const stt = this.sttSlot.stream;
        if (stt) {
          stt.pushFrame(
            this.deps.discardForStt()
              ? AudioFrame.silence(frame.sampleRate, frame.channels, frame.samplesPerChannel)
              : frame,
          );
        }
      }
    } catch (error) {
      if (!signal.aborted) this.deps.onError('audio_input', error, false);
    }
    if (signal.aborted) return;
    this.deps.trace({ type: 'audio_input_ended' });
    this.vadSlot.stream?.endInput();
    this.sttSlot.stream?.endInput();
    this.deps.onVadLost();
    this.deps.onInputEnded();
  }

  private openVad(): void {
    const vad = this.deps.vad();
    if (!vad || this.controller.signal.aborted) return;
    const generation = ++this.vadSlot.generation;
    this.track(
      this.consume<VADStream, VADEvent>(
        this.vadSlot,
        generation,
        () =>
          vad.stream({
            signal: this.controller.signal,
            onProblem: (problem) => this.deps.onProblem('vad', problem),
          }),
        (event) => this.deps.onVadEvent(event),
        'vad',
      ),
    );
  }

  private openStt(): void {
    const stt = this.deps.stt();
    if (!stt || this.controller.signal.aborted) return;
    const generation = ++this.sttSlot.generation;
    const language = this.deps.language();
    this.track(
      this.consume<STTStream, STTEvent>(
        this.sttSlot,
        generation,
        () =>
          this.sttOpener.open(stt, this.deps.vad(), {
            signal: this.controller.signal,
            onProblem: (problem) => this.deps.onProblem('stt', problem),
            ...(language ? { language } : {}),
          }),
        (event) => this.deps.onSttEvent(event),
        'stt',
      ),
    );
  }

  /** Reads one stream until it ends; on failure, reports and reopens it after a growing delay. */
  private async consume<S extends AsyncIterable<E> & { close(): Promise<void> }, E>(
    slot: StreamSlot<S>,
    generation: number,
    open: () => S,
    deliver: (event: E) => void,
    source: 'vad' | 'stt',
  ): Promise<void> {
    const signal = this.controller.signal;
    let delay = RESTART_INITIAL_DELAY_MS;
    while (!signal.aborted && slot.generation === generation) {
      let failure: unknown;
      let stream: S;
      try {
        stream = open();
      } catch (error) {
        // A stream that cannot even be opened is misconfigured: retrying would only repeat the error.
        if (source === 'vad') this.deps.onVadLost();
        this.deps.onError(source, error, false);
        return;
      }
      try {
        slot.stream = stream;
        for await (const event of untilAborted(stream, signal)) {
          if (slot.generation !== generation) break;
          delay = RESTART_INITIAL_DELAY_MS;
          deliver(event);
        }
      } catch (error) {
        failure = error;
      }
      if (slot.generation !== generation || signal.aborted) return;
      if (failure === undefined || isAbortError(failure)) {
        // The stream ended by itself (input ended): nothing to restart.
        if (source === 'vad') this.deps.onVadLost();
        slot.stream = undefined;
        return;
      }
      slot.stream = undefined;
      if (source === 'vad') this.deps.onVadLost();
      this.deps.onError(source, failure, true);
      this.deps.trace({ type: source === 'vad' ? 'vad_restarted' : 'stt_restarted', error: String(failure) });
      try {
        await this.deps.clock.sleep(delay, signal);
      } catch {
        return;
      }
      delay = Math.min(delay * 2, RESTART_MAX_DELAY_MS);
    }
  }

  private closeSlot(slot: StreamSlot<{ close(): Promise<void> }>): void {
    slot.generation++;
    const stream = slot.stream;
    slot.stream = undefined;
    if (stream) void stream.close().catch(() => {});
  }

  private track(loop: Promise<void>): void {
    this.loops.add(loop);
    void loop.finally(() => this.loops.delete(loop));
  }
}
