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

/**
 * Reads a WAV file to play as the microphone, mixed down to mono. Whatever is wrong with the file
 * becomes one sentence (a CliError); a data chunk cut short still plays, with a warning.
 */
export function readRecording(path: string, onWarning: (text: string) => void = () => {}): AudioFrame {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (bytes.byteLength === 0) {
    throw new CliError(`${path} is empty (0 bytes): record or export it again.`);
  }
  let frame: AudioFrame;
  try {
    frame = toMono(decodeWav(bytes));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof WavFormatError && /input ends inside/u.test(message)) {
      throw new CliError(`${path} is truncated (${message}): record or export it again.`, { cause: error });
    }
    if (error instanceof WavFormatError && /^malformed WAV/u.test(message)) {
      // A header that cannot be right (0 Hz, 0 channels): the file was written badly.
      throw new CliError(
        `${path} is damaged (${message}): export it again, or rewrite it with sox ${path} -r 16000 -b 16 -c 1 input.wav.`,
        { cause: error },
      );
    }
    // Another format or an encoding the codec does not read: a conversion away.
    throw new CliError(`${path}: ${message}. Convert it, e.g. sox ${path} -b 16 -c 1 input.wav`, {
      cause: error,
    });
  }
  if (frame.samplesPerChannel === 0) {
    throw new CliError(`${path} holds no audio (its data chunk is empty): record or export it again.`);
  }
  const short = dataShortfall(bytes);
  if (short) {
    onWarning(
      `${path} is truncated: its data chunk declares ${short.declaredBytes} bytes but the file holds ${short.availableBytes}; playing the ${(frame.durationMs / 1000).toFixed(2)} s it has.`,
    );
  }
  return frame;
}

/**
 * The declared and present sizes of a data chunk cut short. Sizes from writers that stream to a pipe
 * (0, 0xFFFFFFFF, espeak-ng's 0x7FFFF000 and up) mean "to the end" and are not a truncation.
 */
function dataShortfall(bytes: Uint8Array): { declaredBytes: number; availableBytes: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12;
  while (offset + 8 <= bytes.byteLength) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    if (id === 'data') {
      const availableBytes = bytes.byteLength - offset - 8;
      if (size === 0 || size >= 0x7fff_f000 || size <= availableBytes) return undefined;
      return { declaredBytes: size, availableBytes };
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
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
