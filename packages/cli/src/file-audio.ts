import { readFileSync, writeFileSync } from 'node:fs';
import type { AudioFrame, Clock } from '@voxwire/agents';
import {
  concatenateFrames,
  decodeWav,
  encodeWav,
  NullAudioOutput,
  type PlaybackEvent,
  silenceLike,
  splitFrame,
  toMono,
  WavFormatError,
} from '@voxwire/agents/provider-utils';
import { CliError } from './errors.js';

/** Rate of the recorded agent voice: the session resamples every reply to it. */
export const RECORDING_RATE = 24000;
const FRAME_MS = 20;
/** Silence after the file's end, so that speech running to the very end still gets its end of turn. */
const TAIL_MS = 1500;

/** Reads a WAV file to play as the microphone, mixed down to mono. */
export function readRecording(path: string): AudioFrame {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return toMono(decodeWav(bytes));
  } catch (error) {
    if (!(error instanceof WavFormatError)) throw error;
    throw new CliError(`${path}: ${error.message}. Convert it, e.g. sox ${path} -b 16 -c 1 input.wav`, {
      cause: error,
    });
  }
}

/** Writes mono samples at `RECORDING_RATE` as a 16-bit PCM WAV file. */
export function writeRecording(path: string, samples: Int16Array): void {
  writeFileSync(path, encodeWav(samples, { sampleRate: RECORDING_RATE }));
}

/** Plays a recording into the session at real speed, as a microphone would. */
export async function* paceRecording(
  recording: AudioFrame,
  clock: Clock,
  startMs: number,
  signal: AbortSignal,
): AsyncGenerator<AudioFrame> {
  const frames = splitFrame(recording, FRAME_MS);
  const tail = splitFrame(silenceLike(splitFrame(recording, TAIL_MS)[0] ?? recording), FRAME_MS);
  let positionMs = 0;
  for (const frame of [...frames, ...tail]) {
    const due = startMs + positionMs - clock.now();
    if (due > 0) await clock.sleep(due, signal).catch(() => {});
    if (signal.aborted) return;
    yield frame;
    positionMs += frame.durationMs;
  }
}

interface RecordedSegment {
  startMs: number;
  frames: AudioFrame[];
  heardMs: number | undefined;
}

/**
 * An audio output that "plays" at real speed on the clock (like a speaker nobody hears) and records
 * what was heard of each reply at its place on the conversation's timeline: an interrupted reply is
 * cut where the interruption stopped it.
 */
export class RecordingAudioOutput extends NullAudioOutput {
  override readonly sampleRate: number | undefined = RECORDING_RATE;
  private readonly segments: RecordedSegment[] = [];
  private current: RecordedSegment | undefined;

  constructor(
    private readonly recordingClock: Clock,
    private readonly startMs: number,
  ) {
    super(recordingClock);
    this.onPlayback((event) => this.onEvent(event));
  }

  protected override onCaptureFrame(frame: AudioFrame): Promise<void> {
    const done = super.onCaptureFrame(frame);
    this.current?.frames.push(frame);
    return done;
  }

  /** The agent's voice over the whole conversation, silence between replies, mono at `RECORDING_RATE`. */
  render(totalMs: number): Int16Array {
    const end = Math.max(totalMs, ...this.segments.map((s) => s.startMs + this.heardOf(s)));
    const out = new Int16Array(Math.ceil((end * RECORDING_RATE) / 1000));
    for (const segment of this.segments) {
      if (segment.frames.length === 0) continue;
      const audio = concatenateFrames(segment.frames);
      const keep = Math.min(
        audio.samplesPerChannel,
        Math.round((this.heardOf(segment) * RECORDING_RATE) / 1000),
      );
      const offset = Math.round((segment.startMs * RECORDING_RATE) / 1000);
      out.set(audio.data.subarray(0, Math.min(keep, out.length - offset)), offset);
    }
    return out;
  }

  private heardOf(segment: RecordedSegment): number {
    return segment.heardMs ?? segment.frames.reduce((total, f) => total + f.durationMs, 0);
  }

  private onEvent(event: PlaybackEvent): void {
    if (event.type === 'playback_started') {
      this.current = { startMs: this.recordingClock.now() - this.startMs, frames: [], heardMs: undefined };
      this.segments.push(this.current);
    } else if (this.current) {
      this.current.heardMs = event.playbackPositionMs;
      this.current = undefined;
    }
  }
}
