import type { AudioFrame, Clock, FramePushingInput, FrameReceiver, TimerHandle } from '@voxwire/agents';
import { AudioOutputBase } from '@voxwire/agents/provider-utils';
import { SAMPLE_RATE, silentFrame, voicedFrame } from '../audio.js';

export interface InputSegment {
  startMs: number;
  endMs: number;
}

export interface FakeAudioInputOptions {
  clock: Clock;
  /** Voiced spans; segment `i` carries code `i`. */
  segments: readonly InputSegment[];
  /** Default 20 ms. */
  frameMs?: number;
  sampleRate?: number;
  /** The microphone closes at this time (the input ends). Default: never, until `stop()`. */
  endAtMs?: number;
  /** Sees the code of every frame delivered (undefined: silence). */
  onFrame?(code: number | undefined): void;
}

/**
 * A microphone on the virtual clock: one frame every `frameMs`, delivered when its audio has been
 * captured, silent outside the scripted speech and carrying the segment's code inside it.
 */
export class FakeAudioInput implements FramePushingInput {
  private stopped = false;
  private delivered = 0;

  constructor(private readonly options: FakeAudioInputOptions) {}

  get framesDelivered(): number {
    return this.delivered;
  }

  /** Ends the input after the frame in progress (a microphone unplugged, a track unpublished). */
  stop(): void {
    this.stopped = true;
  }

  private badFrames = 0;

  /** Sends one malformed frame (0 Hz, as a broken transport would) before the next regular one. */
  injectBadFrame(): void {
    this.badFrames++;
  }

  [Symbol.asyncIterator](): AsyncIterator<AudioFrame> {
    return new MicrophoneIterator(this.options, this.control);
  }

  /** The same frames at the same times as iterating, each handed over in its frame timer's callback. */
  subscribeFrames(receiver: FrameReceiver): () => void {
    const pusher = new MicrophonePusher(this.options, this.control, receiver);
    pusher.start();
    return () => pusher.stop();
  }

  private readonly control: MicrophoneControl = {
    stopped: () => this.stopped,
    takeBadFrame: () => {
      if (this.badFrames === 0) return false;
      this.badFrames--;
      return true;
    },
    delivered: (code) => {
      this.delivered++;
      this.options.onFrame?.(code);
    },
  };
}

interface MicrophoneControl {
  stopped(): boolean;
  takeBadFrame(): boolean;
  delivered(code: number | undefined): void;
}

/** A frame of the wrong shape at runtime: typed as a frame, as a transport's bug would arrive. */
const BAD_FRAME = {
  data: new Int16Array(0),
  sampleRate: 0,
  channels: 1,
  samplesPerChannel: 320,
} as unknown as AudioFrame;

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** Where a pass over the microphone is: the next frame's time, and which segment voices it. */
class MicrophoneTimeline {
  protected readonly frameMs: number;
  protected readonly rate: number;
  protected readonly endAt: number;
  private readonly order: Array<InputSegment & { code: number }>;
  private next_ = 0;
  protected t: number;

  constructor(protected readonly options: FakeAudioInputOptions) {
    this.frameMs = options.frameMs ?? 20;
    this.rate = options.sampleRate ?? SAMPLE_RATE;
    this.endAt = options.endAtMs ?? Number.POSITIVE_INFINITY;
    this.order = options.segments.map((s, code) => ({ ...s, code })).sort((a, b) => a.startMs - b.startMs);
    this.t = options.clock.now();
  }

  /** The code of the frame `capture()` returned last (a field, not an object made per frame). */
  protected capturedCode: number | undefined;

  /** The frame captured from `t` on (its audio is complete once the clock reaches `t + frameMs`). */
  protected capture(): AudioFrame {
    const code = this.codeAt(this.t);
    this.capturedCode = code;
    this.t += this.frameMs;
    return code === undefined
      ? silentFrame(this.frameMs, this.rate)
      : voicedFrame(code, this.frameMs, this.rate);
  }

  /** The code of the segment voiced at `t`, if any; segments that ended are skipped for good. */
  private codeAt(t: number): number | undefined {
    const order = this.order;
    while (this.next_ < order.length && order[this.next_]!.endMs <= t) this.next_++;
    for (let i = this.next_; i < order.length && order[i]!.startMs <= t; i++) {
      if (order[i]!.endMs > t) return order[i]!.code;
    }
    return undefined;
  }
}

/**
 * One pass over the microphone's frames. A plain iterator on the clock's timers rather than an async
 * generator: a simulation runs fifty of these steps per simulated second, and a generator's sleep, yield
 * and await cost several promises each.
 */
class MicrophoneIterator extends MicrophoneTimeline implements AsyncIterator<AudioFrame> {
  /** The regular frame whose audio was captured while malformed ones still go first. */
  private captured: AudioFrame | undefined;
  private finished = false;
  /** The pending `next()`: its timer and how to answer it (fields, not an object made per frame). */
  private waitTimer: TimerHandle | undefined;
  private waitResolve: ((result: IteratorResult<AudioFrame>) => void) | undefined;
  /** The frame timer's callback, made once rather than per frame. */
  private readonly onFrameDue = (): void => {
    const resolve = this.waitResolve;
    if (!resolve) return;
    this.waitTimer = undefined;
    this.waitResolve = undefined;
    if (this.input.stopped()) {
      resolve(this.finish());
      return;
    }
    this.captured = this.capture();
    resolve(this.deliver());
  };

  constructor(
    options: FakeAudioInputOptions,
    private readonly input: MicrophoneControl,
  ) {
    super(options);
  }

  next(): Promise<IteratorResult<AudioFrame>> {
    if (this.finished) return Promise.resolve(DONE);
    if (this.captured) return Promise.resolve(this.deliver());
    if (this.input.stopped() || this.t >= this.endAt) return Promise.resolve(this.finish());
    const { clock } = this.options;
    return new Promise((resolve) => {
      this.waitResolve = resolve;
      this.waitTimer = clock.setTimer(this.t + this.frameMs - clock.now(), this.onFrameDue);
    });
  }

  return(): Promise<IteratorResult<AudioFrame>> {
    const timer = this.waitTimer;
    const resolve = this.waitResolve;
    this.waitTimer = undefined;
    this.waitResolve = undefined;
    timer?.cancel();
    resolve?.(this.finish());
    return Promise.resolve(this.finish());
  }

  /** Malformed frames injected before this one go first; then the frame itself. */
  private deliver(): IteratorResult<AudioFrame> {
    if (this.input.takeBadFrame()) return { done: false, value: BAD_FRAME };
    const frame = this.captured!;
    const code = this.capturedCode;
    this.captured = undefined;
    this.capturedCode = undefined;
    this.input.delivered(code);
    return { done: false, value: frame };
  }

  private finish(): IteratorResult<AudioFrame> {
    this.finished = true;
    return DONE;
  }
}

/**
 * The same pass, pushed: each frame goes to the receiver in its timer's callback, and the next frame's
 * timer is armed after the receiver returns, as the iterator's is when its consumer asks for the next
 * frame, so timers due at the same instant keep their order.
 */
class MicrophonePusher extends MicrophoneTimeline {
  private timer: TimerHandle | undefined;
  private stopped = false;
  private readonly onFrameDue = (): void => {
    this.timer = undefined;
    if (this.stopped) return;
    if (this.input.stopped()) {
      this.end();
      return;
    }
    const frame = this.capture();
    const code = this.capturedCode;
    while (!this.stopped && this.input.takeBadFrame()) this.receiver.frame(BAD_FRAME);
    if (this.stopped) return;
    this.input.delivered(code);
    this.receiver.frame(frame);
    this.start();
  };

  constructor(
    options: FakeAudioInputOptions,
    private readonly input: MicrophoneControl,
    private readonly receiver: FrameReceiver,
  ) {
    super(options);
  }

  /** Waits for the next frame's audio, or ends the pass when the microphone has stopped. */
  start(): void {
    if (this.stopped) return;
    if (this.input.stopped() || this.t >= this.endAt) {
      this.end();
      return;
    }
    const { clock } = this.options;
    this.timer = clock.setTimer(this.t + this.frameMs - clock.now(), this.onFrameDue);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private end(): void {
    this.stop();
    this.receiver.end();
  }
}

/** What a capture that did not have to wait returns: one settled promise for every frame. */
const TAKEN: Promise<void> = Promise.resolve();

export type OutputRecord =
  | { type: 'output_frame'; durationMs: number; first: boolean }
  | { type: 'output_overrun'; aheadMs: number }
  | { type: 'output_paused'; positionMs: number }
  | { type: 'output_resumed'; positionMs: number }
  | { type: 'output_segment_end'; how: 'flush' | 'clear'; queuedMs: number }
  | { type: 'output_audio_end'; positionMs: number; interrupted: boolean }
  | { type: 'output_playback_finished'; positionMs: number; interrupted: boolean }
  /** A frame the sink took and will never acknowledge (`captureFrame` never resolves). */
  | { type: 'output_capture_stalled'; durationMs: number };

export interface FakeAudioOutputOptions {
  clock: Clock;
  /** Audio the sink accepts ahead of playback before `captureFrame` waits. Default 200 ms. */
  bufferMs?: number;
  /** Whether `pause()` holds playback. Default true. */
  canPause?: boolean;
  /** Report playback finished late by this much. Default 0. */
  finishLagMs?: number;
  /** Never report playback finished (a broken sink). */
  neverFinish?: boolean;
  sampleRate?: number;
  onRecord?(record: OutputRecord): void;
}

/**
 * An audio sink that plays at real speed on the clock, with a bounded buffer (back-pressure), pause and
 * resume, and a playback report that can come late or never. It records every frame it receives.
 */
export class FakeAudioOutput extends AudioOutputBase {
  readonly sampleRate: number | undefined;
  readonly canPause: boolean;
  /** Every captured frame, with the time it was received. */
  readonly frames: Array<{ atMs: number; durationMs: number }> = [];
  private queuedMs = 0;
  private basePos = 0;
  private baseAt = 0;
  private paused = false;
  /** Between the first frame of a segment and its flush or clear. */
  private open = false;
  /** An ended segment whose audio has not finished playing. */
  private draining = false;
  private drainTimer: TimerHandle | undefined;
  private pendingCaptures = 0;
  /** Writers waiting for room, usually one: an array, as a Set's only member added and deleted per frame costs more. */
  private wakeCaptures: Array<() => void> = [];
  private maxAhead = 0;
  private capturesStalledUntil = -1;
  /** The current segment has a frame stuck in a write. */
  private stalledSegment = false;

  constructor(private readonly options: FakeAudioOutputOptions) {
    super();
    this.sampleRate = options.sampleRate;
    this.canPause = options.canPause ?? true;
  }

  /** Most audio ever queued ahead of playback, in ms. */
  get maxQueuedMs(): number {
    return this.maxAhead;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** `captureFrame` calls made in the next `durationMs` never resolve (a transport stuck in a write). */
  stallCaptures(durationMs: number): void {
    this.capturesStalledUntil = this.options.clock.now() + Math.max(1, durationMs);
  }

  protected onCaptureFrame(frame: AudioFrame): Promise<void> {
    const clock = this.options.clock;
    const now = clock.now();
    if (now < this.capturesStalledUntil) {
      this.stalledSegment = true;
      this.record({
        type: 'output_capture_stalled',
        durationMs: (frame.samplesPerChannel * 1000) / frame.sampleRate,
      });
      return new Promise<void>(() => {});
    }
    if (this.draining) this.endAudio(false, true);
    const first = !this.open;
    if (first) {
      this.open = true;
      this.queuedMs = 0;
      this.basePos = 0;
      this.baseAt = now;
      this.notifyPlaybackStarted();
    }
    const position = this.position();
    if (position >= this.queuedMs) {
      // Underrun: playback resumes from where it stalled, now.
      this.basePos = this.queuedMs;
      this.baseAt = now;
    }
    const durationMs = (frame.samplesPerChannel * 1000) / frame.sampleRate;
    const bufferMs = this.options.bufferMs ?? 200;
    if (this.pendingCaptures > 0) this.record({ type: 'output_overrun', aheadMs: this.queuedMs - position });
    this.queuedMs += durationMs;
    this.maxAhead = Math.max(this.maxAhead, this.queuedMs - this.position());
    this.frames.push({ atMs: now, durationMs });
    this.record({ type: 'output_frame', durationMs, first });
    // Room in the buffer: taken at once, without the wait's promise (the usual case, once per frame).
    if (this.queuedMs - this.position() <= bufferMs) return TAKEN;
    return this.waitForRoom(bufferMs);
  }

  /** Holds the writer until the audio ahead of playback fits the buffer, or the segment ends. */
  private async waitForRoom(bufferMs: number): Promise<void> {
    const clock = this.options.clock;
    this.pendingCaptures++;
    try {
      const segmentQueued = this.queuedMs;
      while (this.open && this.queuedMs === segmentQueued) {
        const ahead = this.queuedMs - this.position();
        if (ahead <= bufferMs) break;
        await new Promise<void>((resolve) => {
          let timer: TimerHandle | undefined;
          const wake = (): void => {
            const waiting = this.wakeCaptures;
            const i = waiting.indexOf(wake);
            if (i >= 0) waiting.splice(i, 1);
            timer?.cancel();
            resolve();
          };
          this.wakeCaptures.push(wake);
          // While paused nothing drains: only resume or clear can make room.
          if (!this.paused) timer = clock.setTimer(ahead - bufferMs, wake);
        });
      }
    } finally {
      this.pendingCaptures--;
    }
  }

  protected onFlush(): void {
    this.open = false;
    this.stalledSegment = false;
    this.record({ type: 'output_segment_end', how: 'flush', queuedMs: this.queuedMs });
    this.draining = true;
    this.wake();
    this.scheduleDrain();
  }

  protected onClearBuffer(): void {
    this.basePos = this.position();
    this.baseAt = this.options.clock.now();
    // Clearing always ends a pause, even with nothing left to cut (the contract of AudioOutput).
    this.paused = false;
    if (!this.open && !this.draining) {
      // A segment whose only frame is stuck in a write still ends: the sink reports it cut at 0 ms.
      if (this.stalledSegment && !this.options.neverFinish) {
        this.stalledSegment = false;
        this.record({ type: 'output_playback_finished', positionMs: 0, interrupted: true });
        this.notifyPlaybackFinished({ playbackPositionMs: 0, interrupted: true });
      }
      return;
    }
    this.open = false;
    this.stalledSegment = false;
    this.record({ type: 'output_segment_end', how: 'clear', queuedMs: this.queuedMs });
    this.draining = true;
    this.endAudio(true, false);
  }

  pause(): void {
    if (!this.canPause || this.paused) return;
    this.basePos = this.position();
    this.paused = true;
    this.drainTimer?.cancel();
    this.drainTimer = undefined;
    this.record({ type: 'output_paused', positionMs: this.basePos });
    this.wake();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.baseAt = this.options.clock.now();
    this.record({ type: 'output_resumed', positionMs: this.basePos });
    this.wake();
    this.scheduleDrain();
  }

  private position(): number {
    if (this.paused) return this.basePos;
    return Math.min(this.queuedMs, this.basePos + (this.options.clock.now() - this.baseAt));
  }

  private wake(): void {
    for (const wake of this.wakeCaptures.slice()) wake();
  }

  private scheduleDrain(): void {
    if (!this.draining || this.paused) return;
    this.drainTimer?.cancel();
    const remaining = Math.max(0, this.queuedMs - this.position());
    this.drainTimer = this.options.clock.setTimer(remaining, () => {
      this.drainTimer = undefined;
      this.endAudio(false, false);
    });
  }

  /** The segment's audio stopped (drained or cleared); report it as the sink is configured to. */
  private endAudio(cleared: boolean, overlapped: boolean): void {
    if (!this.draining) return;
    this.draining = false;
    this.drainTimer?.cancel();
    this.drainTimer = undefined;
    const positionMs = cleared || overlapped ? this.position() : this.queuedMs;
    this.basePos = positionMs;
    this.queuedMs = positionMs;
    this.wake();
    this.record({ type: 'output_audio_end', positionMs, interrupted: cleared || overlapped });
    if (this.options.neverFinish) return;
    const event = { playbackPositionMs: positionMs, interrupted: cleared };
    const report = (): void => {
      this.record({ type: 'output_playback_finished', positionMs, interrupted: cleared });
      this.notifyPlaybackFinished(event);
    };
    const lag = this.options.finishLagMs ?? 0;
    if (lag > 0) this.options.clock.setTimer(lag, report);
    else report();
  }

  private record(record: OutputRecord): void {
    this.options.onRecord?.(record);
  }
}
