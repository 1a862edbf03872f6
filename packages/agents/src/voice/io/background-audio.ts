import type { AudioFrameLike } from '../../audio/audio-frame.js';
import type { AudioOutput } from '../../providers/audio-io.js';
import type { Clock, TimerHandle } from '../../time/clock.js';
import type { AgentSession } from '../session/agent-session.js';
import type { AgentState } from '../session/session-events.js';
import { type BackgroundMixer, BackgroundMixingOutput } from './background-mixing-output.js';
import { LoopingClip } from './looping-clip.js';
import { synthesizedHum, synthesizedTicks } from './synthesized-clips.js';

/** A sound for the background: a clip (mono or not, any rate; it loops) and its volume. */
export interface BackgroundSound {
  /** Default: the built-in synthesized clip (a soft hum for ambient, soft ticks for thinking). */
  clip?: AudioFrameLike;
  /** 0..1, applied to the clip's own level. Default 0.5 for ambient, 0.7 for thinking. */
  volume?: number;
}

export interface BackgroundAudioOptions {
  /** A loop under the whole conversation. `true` = the built-in hum. Default: none. */
  ambient?: BackgroundSound | boolean;
  /** A loop while the agent is `thinking` (LLM and tools). `true` = the built-in ticks. Default: none. */
  thinking?: BackgroundSound | boolean;
  /** How long the agent must be thinking before the thinking sound starts (quick replies stay quiet). Default 0. */
  thinkingDelayMs?: number;
  /** Fade-in of the thinking sound. Default 150. */
  thinkingFadeInMs?: number;
  /** Fade-out of the thinking sound when speech starts or thinking ends. Default 300. */
  thinkingFadeOutMs?: number;
  /** Fade-in of the ambient loop when the output starts. Default 500. */
  ambientFadeInMs?: number;
  /** Length of each background frame sent into silence (one per clock tick). Default 20. */
  frameMs?: number;
  /** Rate of the background frames when the sink announces none. Default 24000. */
  sampleRate?: number;
}

export type BackgroundSoundName = 'ambient' | 'thinking';

/** The session as the background follows it: its clock, its agent state, its end. */
export type BackgroundAudioSession = Pick<AgentSession, 'clock' | 'agentState' | 'on' | 'off'>;

/**
 * Ambient and "thinking" sound mixed into the session's audio output (optional; nothing plays unless a
 * sound is configured). The ambient loop plays in the silences and under the agent's speech; the
 * thinking loop fades in while the agent is `thinking` and fades out as its speech starts. Speech frames
 * are never delayed: they go straight to the sink with the background added in; background alone is
 * sent only while no speech holds the sink, a frame per tick of the session's clock.
 *
 * ```ts
 * const background = new BackgroundAudio(session, { ambient: { volume: 0.3 }, thinking: true });
 * await session.start({ agent, output: { audio: background.wrap(transportOutput) } });
 * ```
 * It stops when the session closes (or at `close()`).
 */
export class BackgroundAudio {
  private readonly clock: Clock;
  private readonly ambient: LoopingClip | undefined;
  private readonly thinking: LoopingClip | undefined;
  private readonly thinkingDelayMs: number;
  private readonly thinkingFadeInMs: number;
  private readonly thinkingFadeOutMs: number;
  private readonly ambientFadeInMs: number;
  private readonly frameMs: number;
  private readonly sampleRate: number;
  private output: BackgroundMixingOutput | undefined;
  private ticker: TimerHandle | undefined;
  private thinkingTimer: TimerHandle | undefined;
  private closedFlag = false;
  private readonly onState = (event: { newState: AgentState }): void => this.follow(event.newState);
  private readonly onClose = (): void => this.close();

  constructor(
    private readonly session: BackgroundAudioSession,
    options: BackgroundAudioOptions = {},
  ) {
    this.clock = session.clock;
    this.ambient = makeClip(options.ambient, synthesizedHum, 0.5);
    this.thinking = makeClip(options.thinking, synthesizedTicks, 0.7);
    this.thinkingDelayMs = checkMs('thinkingDelayMs', options.thinkingDelayMs ?? 0);
    this.thinkingFadeInMs = checkMs('thinkingFadeInMs', options.thinkingFadeInMs ?? 150);
    this.thinkingFadeOutMs = checkMs('thinkingFadeOutMs', options.thinkingFadeOutMs ?? 300);
    this.ambientFadeInMs = checkMs('ambientFadeInMs', options.ambientFadeInMs ?? 500);
    this.frameMs = checkMs('frameMs', options.frameMs ?? 20);
    if (this.frameMs < 5 || this.frameMs > 200)
      throw new RangeError(`frameMs must be 5..200, got ${this.frameMs}`);
    this.sampleRate = options.sampleRate ?? 24_000;
    if (!Number.isInteger(this.sampleRate) || this.sampleRate < 8000) {
      throw new RangeError(`sampleRate must be an integer of at least 8000, got ${this.sampleRate}`);
    }
    session.on('agent_state_changed', this.onState);
    session.on('close', this.onClose);
  }

  /**
   * The output to give the session: `sink` with the background mixed in. Call once, before `start()`.
   */
  wrap(sink: AudioOutput): AudioOutput {
    if (this.closedFlag) throw new Error('BackgroundAudio is closed');
    if (this.output) throw new Error('BackgroundAudio.wrap() can be called once');
    const { ambient, thinking } = this;
    const mixer: BackgroundMixer = {
      get audible() {
        return ambient?.audible === true || thinking?.audible === true;
      },
      render: (mix, channels, rate, frames) => this.render(mix, channels, rate, frames),
      onSpeechStarted: () => this.thinking?.fadeTo(0, this.thinkingFadeOutMs),
      // The fade-out ran under the speech; what is left of it would be a stray tick after the reply.
      onSpeechFinished: () => {
        if (this.thinking?.fadingOut) this.thinking.cut();
      },
    };
    this.output = new BackgroundMixingOutput(sink, mixer, this.sampleRate);
    this.ambient?.fadeTo(1, this.ambientFadeInMs);
    this.follow(this.session.agentState);
    if (this.ambient || this.thinking) {
      const output = this.output;
      this.ticker = this.clock.setRepeatingTimer(this.frameMs, () => output.fillGap(this.frameMs));
    }
    return this.output;
  }

  /** Current volume of a sound (0..1), or undefined when it is not configured. */
  volume(sound: BackgroundSoundName): number | undefined {
    return this.clip(sound)?.volume;
  }

  /** Changes a sound's volume (0..1) from the next sample on. */
  setVolume(sound: BackgroundSoundName, volume: number): void {
    const clip = this.clip(sound);
    if (!clip) throw new Error(`no ${sound} sound is configured`);
    clip.volume = volume;
  }

  /** Background frames sent into silences, and clock ticks skipped because the sink was still busy. */
  get stats(): { gapFramesSent: number; gapTicksSkipped: number } {
    const gaps = this.output?.gapStats ?? { sent: 0, skipped: 0 };
    return { gapFramesSent: gaps.sent, gapTicksSkipped: gaps.skipped };
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Stops the background now; the wrapped output keeps passing speech through. Idempotent. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.ticker?.cancel();
    this.ticker = undefined;
    this.thinkingTimer?.cancel();
    this.thinkingTimer = undefined;
    this.ambient?.fadeTo(0, 0);
    this.thinking?.fadeTo(0, 0);
    this.output?.close();
    this.session.off('agent_state_changed', this.onState);
    this.session.off('close', this.onClose);
  }

  private clip(sound: BackgroundSoundName): LoopingClip | undefined {
    return sound === 'ambient' ? this.ambient : this.thinking;
  }

  private render(mix: Float32Array, channels: number, rate: number, frames: number): boolean {
    let added = false;
    for (const clip of [this.ambient, this.thinking]) {
      if (clip?.audible) {
        clip.mixInto(mix, channels, rate, frames);
        added = true;
      }
    }
    return added;
  }

  private follow(state: AgentState): void {
    const thinking = this.thinking;
    if (!thinking || this.closedFlag || !this.output) return;
    this.thinkingTimer?.cancel();
    this.thinkingTimer = undefined;
    if (state !== 'thinking') {
      thinking.fadeTo(0, this.thinkingFadeOutMs);
      return;
    }
    const start = (): void => {
      this.thinkingTimer = undefined;
      if (!thinking.audible) thinking.rewind();
      thinking.fadeTo(1, this.thinkingFadeInMs);
    };
    if (this.thinkingDelayMs > 0) this.thinkingTimer = this.clock.setTimer(this.thinkingDelayMs, start);
    else start();
  }
}

function makeClip(
  sound: BackgroundSound | boolean | undefined,
  builtin: () => AudioFrameLike,
  defaultVolume: number,
): LoopingClip | undefined {
  if (sound === undefined || sound === false) return undefined;
  const config = sound === true ? {} : sound;
  return new LoopingClip(config.clip ?? builtin(), config.volume ?? defaultVolume);
}

function checkMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  return value;
}
