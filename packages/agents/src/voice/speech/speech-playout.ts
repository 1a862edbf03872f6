import type { AudioFrame } from '../../audio/audio-frame.js';
import { AudioResampler } from '../../audio/resampler.js';
import { AudioOutputTimeoutError, isAbortError } from '../../errors.js';
import { releasedReason } from '../../provider-utils/abort.js';
import { withIdleTimeout } from '../../provider-utils/idle-timeout.js';
import type { TTS } from '../../providers/tts.js';
import type { Clock } from '../../time/clock.js';
import { untilAborted, waitAtMost } from '../../utils/abortable.js';
import type { AudioOutput, TextOutput } from '../../providers/audio-io.js';
import type { ActivityState } from '../session/activity-state.js';
import { tagErrorSource } from '../session/error-source.js';
import type { ErrorSource } from '../session/session-events.js';
import type { LatencyMetrics } from '../session/latency-metrics.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { InterruptionPolicy } from '../turn/interruption-policy.js';
import { AudioDue } from './audio-due.js';
import { SynthesizedFrames } from './synthesized-frames.js';
import type { PlayoutGate } from './playout-gate.js';
import type { SpeechHandle } from './speech-handle.js';
import { type SpeakingRate, TranscriptSync } from './transcript-sync.js';
import type { TtsStreamOpener } from './tts-stream.js';

export interface PlayoutDeps {
  clock: Clock;
  audioOutput: AudioOutput | undefined;
  textOutput: TextOutput | undefined;
  gate: PlayoutGate;
  /** How long an interrupted segment may take to report that playback stopped. */
  interruptedPlayoutTimeoutMs: number;
  /**
   * Slack on top of the audio's own duration (from its first frame, pauses excluded) before a sink that
   * does not take a frame or does not report the end of playout is given up on.
   */
  playoutGraceMs: number;
  /** Last chance to hold a frame back: the user may be speaking. */
  policy: Pick<InterruptionPolicy, 'onFrameReady'>;
  /** The agent speaks from the first frame on. */
  activity: Pick<ActivityState, 'playbackStarted' | 'playbackStopped'>;
  metrics: Pick<LatencyMetrics, 'firstFrameSent' | 'ttsFirstByte'>;
  /** Every frame sent is traced; a sink that never confirms playout is reported. */
  reporter: Pick<SessionReporter, 'trace' | 'error'>;
  /** Learned across the session's speeches; maps played audio to heard text. */
  speakingRate: SpeakingRate;
  /** Opens this session's syntheses (batch synthesizers get a sentence adapter of the session's own). */
  tts: Pick<TtsStreamOpener, 'open'>;
  /** Audio given to `say()` stands in for a synthesis, with the same deadlines. */
  givenAudioTimeouts: { firstFrameMs: number; frameMs: number };
}

export interface PlayoutSource {
  /** Text as it is generated (LLM deltas) or all at once (say). */
  text: AsyncIterable<string>;
  /** Pre-rendered audio to play instead of synthesizing the text. */
  audio?: AsyncIterable<AudioFrame> | undefined;
  tts: TTS | undefined;
}

export interface PlayoutResult {
  /** Everything the step meant to say. */
  fullText: string;
  /** What the user heard: all of it, or the part played before an interruption. */
  playedText: string;
  playedMs: number;
  interrupted: boolean;
  /** Whether any frame of the step reached the audio output. */
  sentAnyAudio: boolean;
}

/**
 * Plays one step of a speech: text -> TTS -> output, streamed, held while the gate is paused, and cut
 * at once when the speech is interrupted. Every wait races the speech's interrupt signal or a deadline,
 * so a stalled provider or a sink that never reports playback cannot hold the step forever.
 */
const partialPlayouts = new WeakMap<SpeechHandle, PlayoutResult>();

/**
 * What the user heard of a step that failed after some of its audio played (as an interrupted result),
 * once; undefined when the failing step had played nothing.
 */
export function takePartialPlayout(handle: SpeechHandle): PlayoutResult | undefined {
  const result = partialPlayouts.get(handle);
  partialPlayouts.delete(handle);
  return result;
}

export async function playSpeechStep(
  deps: PlayoutDeps,
  handle: SpeechHandle,
  source: PlayoutSource,
): Promise<PlayoutResult> {
  const signal = handle.interruptSignal;
  const sync = new TranscriptSync(deps.textOutput, deps.speakingRate);
  const output = deps.audioOutput;
  let sentMs = 0;
  let sentFrames = 0;
  let streamError: unknown;
  let resampler: AudioResampler | undefined;
  // Frames go out at the sink's rate; the resampler keeps its filter state across the step's frames.
  const conform = (frame: AudioFrame): AudioFrame | undefined => {
    const rate = output?.sampleRate;
    if (rate === undefined || frame.sampleRate === rate) return frame;
    if (!resampler || resampler.inputRate !== frame.sampleRate) {
      resampler = new AudioResampler(frame.sampleRate, rate, { channels: frame.channels });
    }
    return resampler.push(frame)[0];
  };

  // The given audio stands in for the synthesis: its failure is reported as the TTS's.
  const given = source.audio;
  // Both end as soon as the speech is interrupted, even while they wait for audio.
  const frames: AsyncIterable<AudioFrame> | undefined = given
    ? untilAborted(
        tagged(
          withIdleTimeout(() => given, {
            clock: deps.clock,
            firstItemTimeoutMs: deps.givenAudioTimeouts.firstFrameMs,
            idleTimeoutMs: deps.givenAudioTimeouts.frameMs,
            signal,
            label: 'say() audio',
          }),
          'tts',
        ),
        signal,
      )
    : source.tts && output
      ? new SynthesizedFrames(deps, handle, source, sync)
      : undefined;
  if (!frames) {
    // Text-only session: the transcript is the whole of the speech.
    for await (const text of untilAborted(source.text, signal)) sync.pushText(text);
    if (!source.audio) sync.markTextComplete();
    sync.revealAll();
    return {
      fullText: sync.fullText,
      playedText: sync.fullText,
      playedMs: 0,
      interrupted: handle.interrupted,
      sentAnyAudio: false,
    };
  }
  if (source.audio) void collectText(source.text, sync, signal);

  const due = new AudioDue(deps.clock, deps.gate);
  // Captions follow what is heard, not what was sent: they advance with playback time (frozen while
  // paused) and never run ahead of the audio sent. Without a text output nobody reads them, and the
  // tick would only wake the process ten times a second during playout (what was heard when the
  // speech ends or is cut is computed from the playout, not from the tick).
  let heardMs = 0;
  const captionTick = 100;
  const captions = deps.textOutput
    ? deps.clock.setRepeatingTimer(captionTick, () => {
        if (sentFrames === 0 || deps.gate.paused) return;
        heardMs = Math.min(sentMs, heardMs + captionTick);
        sync.revealUntil(heardMs);
      })
    : undefined;
  try {
    for await (const produced of frames) {
      if (signal.aborted) break;
      if (produced.samplesPerChannel === 0) continue;
      const frame = conform(produced);
      if (!frame) continue;
      deps.policy.onFrameReady(handle);
      // An open gate lets the frame go in the same turn: awaiting it would cost every frame a promise.
      if (deps.gate.paused) await deps.gate.waitOpen(signal);
      // An interrupt that also releases the pause wakes this wait in the same instant it aborts the
      // speech: the frame must not reach the sink after the interrupt cleared it.
      if (signal.aborted || !output) break;
      due.frameSent(frame.durationMs);
      let accepted: { value: unknown } | undefined;
      try {
        // A sink with a full buffer takes the frame once the audio ahead of it has played: one that
        // still has not by then (and a grace) is broken, and the step ends.
        accepted = await due.waitFor(output.captureFrame(frame), deps.playoutGraceMs, signal);
      } catch (error) {
        throw tagErrorSource(error, 'audio_output');
      }
      if (!accepted) {
        // The stuck frame opened a segment in the sink; nothing else will end it when it was the first.
        if (sentFrames === 0) output.clearBuffer();
        throw tagErrorSource(
          new AudioOutputTimeoutError(
            `audio output did not take a frame of ${handle.id} within ${deps.playoutGraceMs} ms of when its audio was due`,
          ),
          'audio_output',
        );
      }
      if (sentFrames === 0) {
        deps.activity.playbackStarted(handle);
        deps.metrics.firstFrameSent(handle);
      }
      sentFrames++;
      sentMs += frame.durationMs;
      if (source.audio) sync.pushAudio(frame.durationMs);
      deps.reporter.trace({
        type: 'speech_frame',
        speechId: handle.id,
        durationMs: frame.durationMs,
        allowInterruptions: handle.allowInterruptions,
      });
    }
    if (source.audio && !signal.aborted) sync.markAudioComplete();
  } catch (error) {
    if (!signal.aborted && !isAbortError(error)) streamError = error;
  }
  try {
    return await finishPlayout();
  } finally {
    captions?.cancel();
    due.dispose();
  }

  async function finishPlayout(): Promise<PlayoutResult> {
    if (!output || sentFrames === 0) {
      if (streamError) throw streamError;
      const interrupted = handle.interrupted;
      if (!interrupted) sync.revealAll();
      return {
        fullText: sync.fullText,
        playedText: interrupted ? '' : sync.fullText,
        playedMs: 0,
        interrupted,
        sentAnyAudio: false,
      };
    }

    if (!signal.aborted && !streamError) {
      output.flush();
      // Also ends the sink's own wait when the report never comes, so nothing accrues per speech. A wait
      // that got its report has let go of the signal: aborting it then would only dispatch an event.
      const giveUp = new AbortController();
      let reported = false;
      try {
        const finished = await due.waitFor(
          output.waitForPlayout({ signal: giveUp.signal }),
          deps.playoutGraceMs,
          signal,
        );
        reported = finished !== undefined;
        if (finished === undefined) {
          deps.reporter.error(
            'audio_output',
            new AudioOutputTimeoutError(
              `audio output did not report the end of playout of ${handle.id} within ${deps.playoutGraceMs} ms of when its audio was due`,
            ),
            true,
          );
        }
        sync.revealAll();
        return {
          fullText: sync.fullText,
          playedText: sync.fullText,
          playedMs: finished?.value.playbackPositionMs ?? sentMs,
          interrupted: false,
          sentAnyAudio: true,
        };
      } catch {
        // Interrupted while the tail was playing: fall through and cut it.
      } finally {
        if (!reported) giveUp.abort(releasedReason());
      }
    }

    output.clearBuffer();
    // A user who starts talking during the wait below must not pause a sink that holds nothing of this
    // step any more: nothing would resume it for the speeches after this one.
    deps.activity.playbackStopped(handle);
    const giveUp = new AbortController();
    const stopped = await waitAtMost(
      deps.clock,
      output.waitForPlayout({ signal: giveUp.signal }),
      deps.interruptedPlayoutTimeoutMs,
    ).catch(() => undefined);
    if (!stopped) giveUp.abort(releasedReason());
    const playedMs = Math.min(sentMs, stopped?.playbackPositionMs ?? sentMs);
    sync.revealUntil(playedMs);
    deps.textOutput?.flush();
    const result: PlayoutResult = {
      fullText: sync.fullText,
      playedText: sync.textAt(playedMs),
      playedMs,
      interrupted: true,
      sentAnyAudio: true,
    };
    if (streamError && !handle.interrupted) {
      // The user heard part of the step: the caller records it even though the step failed.
      partialPlayouts.set(handle, result);
      throw streamError;
    }
    return result;
  }
}

async function* tagged<T>(source: AsyncIterable<T>, as: ErrorSource): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    throw tagErrorSource(error, as);
  }
}

async function collectText(
  text: AsyncIterable<string>,
  sync: TranscriptSync,
  signal: AbortSignal,
): Promise<void> {
  try {
    for await (const piece of untilAborted(text, signal)) sync.pushText(piece);
  } catch {
    // The audio is what plays; a failing caption source only leaves the transcript shorter.
  } finally {
    sync.markTextComplete();
  }
}
