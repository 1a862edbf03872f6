import { AudioFrame, type Clock } from '@voxwire/agents';
import type { AudioTrackStream, RoomConnection } from './room-connection.js';

/** Length of the silence frames fed while the user's microphone is muted or absent. */
const SILENCE_FRAME_MS = 20;

export interface RoomAudioInputOptions {
  sampleRate: number;
  channels: number;
  clock: Clock;
  signal: AbortSignal;
  /**
   * How long silence is played after the microphone goes quiet (muted, unpublished): enough for any
   * VAD to hear the user stop. After that the input waits without sending anything, so a cloud STT is
   * not fed (and billed for) silence while nobody talks. Default 3000 ms.
   */
  silenceAfterInputLossMs?: number;
  /**
   * Audio to play ahead of a track's live frames, asked once per track when it is first read (the
   * pre-connect buffer). The track's live frames wait in its native stream meanwhile, so none are lost.
   * `signal` aborts when the track is replaced or the input closes.
   */
  beforeTrack?: (trackSid: string, signal: AbortSignal) => Promise<AudioFrame[]>;
}

/**
 * The linked participant's microphone as the session's audio input. The track may come, go, be muted
 * and unmuted over a call; the input lasts the whole job. When a live track goes quiet it plays
 * silence at real time for a while, so the VAD hears the user stop (`userState` goes back to
 * `listening`) instead of waiting on frames that will never come. It pulls from the native stream, so
 * nothing piles up.
 */
export class RoomAudioInput implements AsyncIterable<AudioFrame> {
  private trackSid: string | undefined;
  private muted = false;
  private stream: AudioTrackStream | undefined;
  private changed: (() => void) | undefined;
  private framesIn = 0;
  private silenceOut = 0;
  private framesBefore = 0;
  private readonly prefixed = new Set<string>();

  constructor(
    private readonly room: RoomConnection,
    private readonly options: RoomAudioInputOptions,
  ) {}

  /**
   * Frames received from the room, silence frames generated in their absence, and frames played ahead
   * of a track (`beforeTrack`: the pre-connect audio).
   */
  get stats(): { frames: number; silenceFrames: number; preConnectFrames: number } {
    return { frames: this.framesIn, silenceFrames: this.silenceOut, preConnectFrames: this.framesBefore };
  }

  get currentTrackSid(): string | undefined {
    return this.trackSid;
  }

  get isMuted(): boolean {
    return this.muted;
  }

  /** The linked participant's microphone track (or none). */
  setTrack(trackSid: string | undefined): void {
    if (trackSid === this.trackSid) return;
    this.stream?.close();
    this.stream = undefined;
    this.trackSid = trackSid;
    this.wake();
  }

  setMuted(muted: boolean): void {
    if (muted === this.muted) return;
    this.muted = muted;
    this.wake();
  }

  close(): void {
    this.stream?.close();
    this.stream = undefined;
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AudioFrame> {
    const { clock, signal, sampleRate, channels } = this.options;
    const silenceSamples = Math.round((sampleRate * SILENCE_FRAME_MS) / 1000);
    let reader: AsyncIterator<AudioFrame> | undefined;
    let readerOf: AudioTrackStream | undefined;
    let pending: Promise<IteratorResult<AudioFrame>> | undefined;
    let nextSilenceAt = clock.now();
    const silenceBudgetMs = this.options.silenceAfterInputLossMs ?? 3000;
    // Silence left to play: none before the user was ever heard, a budget after each loss.
    let silenceLeftMs = 0;
    try {
      while (!signal.aborted) {
        if (this.trackSid !== undefined && !this.stream) {
          this.stream = this.room.openAudioTrack(this.trackSid, { sampleRate, channels });
        }
        const stream = this.stream;
        if (readerOf !== stream) {
          readerOf = stream;
          reader = stream?.[Symbol.asyncIterator]();
          pending = undefined;
          const trackSid = this.trackSid;
          if (stream && trackSid !== undefined && this.options.beforeTrack && !this.prefixed.has(trackSid)) {
            // The stream is open (its frames queue natively) while the audio from before it plays.
            this.prefixed.add(trackSid);
            const frames = await this.audioBeforeTrack(trackSid, this.options.beforeTrack);
            for (const frame of frames) {
              if (signal.aborted || this.trackSid !== trackSid) break;
              if (this.muted) continue;
              this.framesBefore++;
              yield frame;
            }
            if (frames.length > 0) {
              nextSilenceAt = clock.now();
              silenceLeftMs = silenceBudgetMs;
            }
            continue;
          }
        }
        if (!reader || this.muted) {
          // No live microphone: silence, paced by the clock, until a track or an unmute arrives. A
          // muted track is still read and its frames dropped, so nothing piles up in the native stream.
          if (reader) pending ??= reader.next();
          const wait =
            silenceLeftMs > 0 ? Math.max(0, nextSilenceAt - clock.now()) : Number.POSITIVE_INFINITY;
          const woken = await this.sleepOrChange(wait, pending);
          if (woken === 'change') continue;
          if (woken === 'frame') {
            const dropped = await pending!;
            pending = undefined;
            if (dropped.done) this.trackEnded(stream);
            continue;
          }
          nextSilenceAt = Math.max(nextSilenceAt + SILENCE_FRAME_MS, clock.now() - SILENCE_FRAME_MS);
          silenceLeftMs -= SILENCE_FRAME_MS;
          this.silenceOut++;
          yield AudioFrame.silence(sampleRate, channels, silenceSamples);
          continue;
        }
        pending ??= reader.next();
        const changedSignal = this.whenChanged();
        const result = await Promise.race([pending, changedSignal.then(() => undefined)]);
        if (result === undefined) continue;
        pending = undefined;
        if (result.done) {
          // The track ended under us (unpublished, or the stream closed): wait for the next one.
          this.trackEnded(stream);
          nextSilenceAt = clock.now();
          continue;
        }
        this.framesIn++;
        nextSilenceAt = clock.now();
        silenceLeftMs = silenceBudgetMs;
        yield result.value;
      }
    } finally {
      // The session stopped reading (or the job ended): release the native stream.
      this.stream?.close();
      this.stream = undefined;
    }
  }

  /** Waits for `beforeTrack`, giving up (nothing to play) when the track changes or the input closes. */
  private async audioBeforeTrack(
    trackSid: string,
    beforeTrack: NonNullable<RoomAudioInputOptions['beforeTrack']>,
  ): Promise<AudioFrame[]> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    this.options.signal.addEventListener('abort', onAbort, { once: true });
    const frames = beforeTrack(trackSid, controller.signal).catch(() => [] as AudioFrame[]);
    try {
      for (;;) {
        const result = await Promise.race([frames, this.whenChanged().then(() => undefined)]);
        if (result !== undefined) return result;
        if (this.trackSid !== trackSid || this.options.signal.aborted) {
          controller.abort();
          return [];
        }
      }
    } finally {
      this.options.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * A promise for the next change, for the one wait in progress. Each wait replaces the previous one's
   * (never chains onto it), so a long stretch without changes holds nothing: the loop re-reads the
   * state before each wait, so a change between waits is not lost.
   */
  private whenChanged(): Promise<void> {
    return new Promise((resolve) => {
      this.changed = resolve;
    });
  }

  private wake(): void {
    const changed = this.changed;
    this.changed = undefined;
    changed?.();
  }

  private trackEnded(stream: AudioTrackStream | undefined): void {
    if (stream && this.stream === stream) {
      this.stream = undefined;
      this.trackSid = undefined;
    }
  }

  /**
   * Sleeps `ms`: `'timer'` when it passed, `'change'` when woken early by a change of track or mute (or
   * the job ending), `'frame'` when `frame` (a pending read) settled first.
   */
  private async sleepOrChange(ms: number, frame?: Promise<unknown>): Promise<'timer' | 'change' | 'frame'> {
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    this.options.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const waits: Array<Promise<'timer' | 'change' | 'frame'>> = [
        this.whenChanged().then(() => 'change' as const),
        this.options.clock.sleep(ms, timer.signal).then(
          () => 'timer' as const,
          () => 'change' as const,
        ),
      ];
      if (frame)
        waits.push(
          frame.then(
            () => 'frame' as const,
            () => 'frame' as const,
          ),
        );
      return await Promise.race(waits);
    } finally {
      this.options.signal.removeEventListener('abort', onAbort);
      timer.abort();
    }
  }
}
