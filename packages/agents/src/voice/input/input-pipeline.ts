import { setMaxListeners } from 'node:events';
import { AudioFrame } from '../../audio/audio-frame.js';
import { InvalidAudioError, isAbortError } from '../../errors.js';
import type { AudioFrameLike } from '../../audio/audio-frame.js';
import type { STTEvent, STTStream } from '../../providers/stt.js';
import type { VADEvent, VADStream } from '../../providers/vad.js';
import type { Clock } from '../../time/clock.js';
import { PushedAudioClock } from './pushed-audio-clock.js';
import { SttStreamOpener } from './stt-stream.js';
import { readPushedFrames } from '../../utils/read-pushed-frames.js';
import { readUntilAborted, STOP_READING } from '../../utils/read-until-aborted.js';
import { type LinkedController, linkedController } from '../../provider-utils/abort.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import { type AudioInput, isFramePushingInput } from '../../providers/audio-io.js';
import type { ActivityState } from '../session/activity-state.js';
import type { TurnHandlingOptions } from '../session/options.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { UserInputRouter } from '../session/user-input-router.js';

export interface InputPipelineDeps {
  clock: Clock;
  /** The VAD and the STT to open (the active agent's, else the session's), and the language hint. */
  providers: Pick<ActiveAgent, 'vad' | 'stt' | 'language'>;
  options: Pick<TurnHandlingOptions, 'discardAudioIfUninterruptible'>;
  /** While an uninterruptible speech plays, the STT may hear silence instead of the user. */
  playback: Pick<ActivityState, 'playingSpeechIsUninterruptible'>;
  /** Receives what the streams hear, and learns when nobody can be heard any more. */
  listener: Pick<
    UserInputRouter,
    'vadEvent' | 'sttEvent' | 'vadLost' | 'inputEnded' | 'inputDisabled' | 'inputResumed'
  >;
  /** Stream failures are reported and their restarts traced. */
  reporter: Pick<SessionReporter, 'trace' | 'error' | 'problem'>;
  /** Turns the STT into a live stream at a rate it accepts; the session's own by default. */
  sttOpener?: Pick<SttStreamOpener, 'open'>;
  /**
   * How long an STT stream may leave speech it was given (as the VAD heard it) unanswered once the user
   * stopped, before it is restarted. Default: no deadline.
   */
  sttResponseTimeoutMs?: number;
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
  /** When the VAD stream's audio arrived: its events are dated by the audio, not by their arrival. */
  private readonly vadAudio = new PushedAudioClock();
  private vadAudioOf: VADStream | STTStream | undefined;
  private readonly sttSlot: StreamSlot<STTStream> = { stream: undefined, generation: 0 };
  private readonly controller = new AbortController();
  private inputTask: Promise<void> | undefined;
  /** Stops reading the current source when another replaces it. */
  private sourceController: LinkedController | undefined;
  private source: AudioInput | undefined;
  private enabled = true;
  /** Whether a source is attached and has not ended: the session can hear the user. */
  private live = false;
  private framesDiscarded = 0;
  private readonly loops = new Set<Promise<void>>();
  private framesIn = 0;
  private framesDropped = 0;
  /** Streams whose `pushFrame` threw and were reopened since they last took a frame. */
  private readonly pushFailed = new Set<'vad' | 'stt'>();
  /** Whether the previous frame was dropped: one error per run of bad frames, not one per frame. */
  private dropping = false;
  /** Sample rate and channel count of the last good frame, to notice a change of format. */
  private format: { sampleRate: number; channels: number } | undefined;
  private readonly sttOpener: Pick<SttStreamOpener, 'open'>;
  /** Utterances the VAD heard while the STT heard the user: the STT owes an answer for each. */
  private readonly sttUtterances = { starts: 0, ends: 0 };
  private sttUtteranceOpen = false;

  constructor(private readonly deps: InputPipelineDeps) {
    this.sttOpener = deps.sttOpener ?? new SttStreamOpener(deps.clock);
    // The input loop and every (re)opened VAD/STT stream listen to this one signal.
    setMaxListeners(0, this.controller.signal);
  }

  get frameCount(): number {
    return this.framesIn;
  }

  /** Input frames that were malformed (bad shape, rate or channels, not 16-bit samples) and dropped. */
  get droppedFrameCount(): number {
    return this.framesDropped;
  }

  /** Frames read while audio input was disabled, and dropped. */
  get discardedFrameCount(): number {
    return this.framesDiscarded;
  }

  /** The source being listened to. */
  get audioSource(): AudioInput | undefined {
    return this.source;
  }

  get audioEnabled(): boolean {
    return this.enabled;
  }

  start(input: AudioInput | undefined): void {
    this.openVad();
    this.openStt();
    if (input) this.attach(input);
  }

  /**
   * Listens to another source (or to none) without restarting the session. The VAD starts afresh on the
   * new source (its state belonged to the old one; nobody is speaking on the new one yet); the STT goes on.
   */
  setSource(input: AudioInput | undefined): void {
    if (input === this.source || this.controller.signal.aborted) return;
    this.sourceController?.abort();
    this.sourceController = undefined;
    const wasLive = this.live;
    this.format = undefined;
    this.source = undefined;
    this.live = false;
    this.deps.reporter.trace({ type: 'audio_input_source_changed', attached: input !== undefined });
    if (this.deps.providers.vad) {
      this.closeSlot(this.vadSlot);
      this.openVad();
    }
    this.deps.listener.vadLost();
    if (input) {
      this.attach(input);
      if (!wasLive && this.enabled) this.deps.listener.inputResumed();
    } else if (wasLive) {
      this.deps.listener.inputEnded();
    }
  }

  /**
   * Turns listening off or on. While off, frames are still read from the source (a transport must not
   * back up) but dropped: the VAD stream is closed, so nobody can be heard speaking, and the STT is asked
   * to finalize what it heard. On again, a fresh VAD stream listens.
   */
  setEnabled(enabled: boolean): void {
    if (enabled === this.enabled || this.controller.signal.aborted) return;
    this.enabled = enabled;
    this.deps.reporter.trace({ type: 'audio_input_enabled', enabled });
    if (!enabled) {
      this.closeSlot(this.vadSlot);
      this.sttSlot.stream?.flush();
      this.deps.listener.inputDisabled();
      return;
    }
    this.openVad();
    if (this.live) this.deps.listener.inputResumed();
  }

  private attach(input: AudioInput): void {
    // Stopped by close() (the session's signal) or by the next setSource().
    const controller = linkedController(this.controller.signal);
    this.sourceController = controller;
    this.source = input;
    this.live = true;
    const task = this.pump(input, controller.signal).finally(() => controller.dispose());
    this.track(task);
    this.inputTask = task;
  }

  /** Reopens both streams (the active agent changed providers). */
  reopenStreams(): void {
    this.closeSlot(this.vadSlot);
    this.closeSlot(this.sttSlot);
    this.deps.listener.vadLost();
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
    this.sourceController?.abort();
    await Promise.allSettled([this.inputTask, ...this.loops]);
  }

  private async pump(input: AudioInput, stop: AbortSignal): Promise<void> {
    try {
      if (isFramePushingInput(input)) await readPushedFrames(input, stop, this.onInputFrame);
      else await readUntilAborted(input, stop, this.onInputFrame);
    } catch (error) {
      if (!stop.aborted) this.deps.reporter.error('audio_input', error, false);
    }
    if (stop.aborted) return;
    this.live = false;
    this.deps.reporter.trace({ type: 'audio_input_ended' });
    this.vadSlot.stream?.endInput();
    this.sttSlot.stream?.endInput();
    this.deps.listener.vadLost();
    this.deps.listener.inputEnded();
  }

  /** Every frame of the microphone passes here, in the microtask it arrives in. */
  private readonly onInputFrame = (raw: AudioFrameLike): void => {
    const frame = this.accept(raw);
    if (!frame) return;
    if (!this.enabled) {
      this.framesDiscarded++;
      return;
    }
    this.framesIn++;
    this.followFormat(frame);
    this.push('vad', frame);
    this.push(
      'stt',
      this.sttMustHearSilence()
        ? AudioFrame.silence(frame.sampleRate, frame.channels, frame.samplesPerChannel)
        : frame,
    );
  };

  /**
   * Gives a frame to one stream. A provider whose `pushFrame` throws must not end the microphone (the
   * input loop would stop): its error is reported with its own source and the stream is reopened, once
   * per run of failures, so a stream that throws on every frame costs one event, not one per frame.
   */
  private push(source: 'vad' | 'stt', frame: AudioFrame): void {
    const slot = source === 'vad' ? this.vadSlot : this.sttSlot;
    const stream = slot.stream;
    if (!stream) return;
    try {
      stream.pushFrame(frame);
      if (source === 'vad') {
        // A restarted stream counts its audio from 0 again.
        if (this.vadAudioOf !== stream) this.vadAudio.reset();
        this.vadAudioOf = stream;
        this.vadAudio.pushed(frame.durationMs, this.deps.clock.now());
      }
      if (this.pushFailed.size > 0) this.pushFailed.delete(source);
    } catch (error) {
      if (this.pushFailed.has(source)) return;
      this.pushFailed.add(source);
      this.deps.reporter.error(source, error, true);
      this.deps.reporter.trace({
        type: source === 'vad' ? 'vad_restarted' : 'stt_restarted',
        error: String(error),
      });
      this.closeSlot(slot);
      if (source === 'vad') {
        this.deps.listener.vadLost();
        this.openVad();
      } else {
        this.openStt();
      }
    }
  }

  /**
   * The frame as an AudioFrame, or undefined when it is malformed. One bad frame from a transport must
   * not end the microphone for the whole session: it is dropped, counted, and reported (once per run of
   * bad frames, as a recoverable `audio_input` error), and the next good frame is heard.
   */
  private accept(raw: AudioFrameLike): AudioFrame | undefined {
    try {
      if (!(raw?.data instanceof Int16Array)) {
        throw new InvalidAudioError(
          `frame data must be an Int16Array of samples, got ${describe(raw?.data)}`,
        );
      }
      const frame = AudioFrame.from(raw);
      this.dropping = false;
      return frame;
    } catch (error) {
      this.framesDropped++;
      if (!this.dropping) this.deps.reporter.error('audio_input', error, true);
      this.dropping = true;
      return undefined;
    }
  }

  /**
   * A VAD stream keeps state for the format it started with (resampler, windows), so a change of sample
   * rate or channel count opens a new VAD stream for the new format. The STT stream converts every
   * frame to the rate it was opened with (stt-input-format.ts), so it goes on without losing its
   * transcript.
   */
  private followFormat(frame: AudioFrame): void {
    const previous = this.format;
    // Every frame passes here: the usual unchanged format costs a comparison, not an allocation.
    if (previous && previous.sampleRate === frame.sampleRate && previous.channels === frame.channels) return;
    this.format = { sampleRate: frame.sampleRate, channels: frame.channels };
    if (!previous) return;
    if (!this.deps.providers.vad) return;
    this.deps.reporter.trace({
      type: 'vad_restarted',
      error: `input format changed from ${formatOf(previous)} to ${formatOf(frame)}`,
    });
    this.closeSlot(this.vadSlot);
    this.deps.listener.vadLost();
    this.openVad();
  }

  /** The STT hears silence of the same length while input must be discarded; the VAD always hears all. */
  private sttMustHearSilence(): boolean {
    return (
      this.deps.options.discardAudioIfUninterruptible && this.deps.playback.playingSpeechIsUninterruptible
    );
  }

  private openVad(): void {
    const vad = this.deps.providers.vad;
    if (!vad || this.controller.signal.aborted || !this.enabled) return;
    const generation = ++this.vadSlot.generation;
    this.track(
      this.consume<VADStream, VADEvent>(
        this.vadSlot,
        generation,
        () =>
          vad.stream({
            signal: this.controller.signal,
            onProblem: (problem) => this.deps.reporter.problem('vad', problem),
          }),
        (event) => {
          this.countUtterance(event);
          // Only the end of speech is dated by its audio; an inference arrives every window.
          const heardAtMs =
            event.type === 'end_of_speech' ? this.vadAudio.timeOf(event.timestampMs) : undefined;
          this.deps.listener.vadEvent(event, heardAtMs);
        },
        'vad',
      ),
    );
  }

  private openStt(): void {
    const stt = this.deps.providers.stt;
    if (!stt || this.controller.signal.aborted) return;
    const generation = ++this.sttSlot.generation;
    const language = this.deps.providers.language;
    this.track(
      this.consume<STTStream, STTEvent>(
        this.sttSlot,
        generation,
        () =>
          this.sttOpener.open(stt, this.deps.providers.vad, {
            signal: this.controller.signal,
            onProblem: (problem) => this.deps.reporter.problem('stt', problem),
            ...(language ? { language } : {}),
            ...(this.deps.sttResponseTimeoutMs !== undefined
              ? {
                  responseDeadline: {
                    clock: this.deps.clock,
                    timeoutMs: this.deps.sttResponseTimeoutMs,
                    utterances: () => this.sttUtterances,
                  },
                }
              : {}),
          }),
        (event) => this.deps.listener.sttEvent(event),
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
        if (source === 'vad') this.deps.listener.vadLost();
        this.deps.reporter.error(source, error, false);
        return;
      }
      try {
        slot.stream = stream;
        await readUntilAborted(stream, signal, (event) => {
          if (slot.generation !== generation) return STOP_READING;
          delay = RESTART_INITIAL_DELAY_MS;
          deliver(event);
        });
      } catch (error) {
        failure = error;
      }
      if (slot.generation !== generation || signal.aborted) return;
      if (failure === undefined || isAbortError(failure)) {
        // The stream ended by itself (input ended): nothing to restart.
        if (source === 'vad') this.deps.listener.vadLost();
        slot.stream = undefined;
        return;
      }
      slot.stream = undefined;
      if (source === 'vad') this.deps.listener.vadLost();
      this.deps.reporter.error(source, failure, true);
      this.deps.reporter.trace({
        type: source === 'vad' ? 'vad_restarted' : 'stt_restarted',
        error: String(failure),
      });
      try {
        await this.deps.clock.sleep(delay, signal);
      } catch {
        return;
      }
      delay = Math.min(delay * 2, RESTART_MAX_DELAY_MS);
    }
  }

  /** Silence fed in place of the user's audio owes no answer. */
  private countUtterance(event: VADEvent): void {
    if (event.type === 'start_of_speech' && !this.sttMustHearSilence()) {
      this.sttUtterances.starts++;
      this.sttUtteranceOpen = true;
    } else if (event.type === 'end_of_speech' && this.sttUtteranceOpen) {
      this.sttUtterances.ends++;
      this.sttUtteranceOpen = false;
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

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}

function formatOf(format: { sampleRate: number; channels: number }): string {
  return `${format.sampleRate} Hz x ${format.channels} channels`;
}
