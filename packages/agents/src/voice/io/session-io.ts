import type { AudioInput, AudioOutput } from '../../providers/audio-io.js';

/** What the session's I/O controls drive once the session has started (the runtime; not exported). */
export interface AudioInputControl {
  setAudioSource(source: AudioInput | undefined): void;
  setAudioInputEnabled(enabled: boolean): void;
}

/** The output side of the same. */
export interface AudioOutputControl {
  readonly audioOutput: AudioOutput | undefined;
  setAudioOutputEnabled(enabled: boolean): void;
}

/**
 * `session.input`: the user's audio. Listening can be turned off and on (push-to-talk, a mute button)
 * and the source swapped without restarting the session. Settings made before `start()` apply from the
 * start; `start({ input: { audio } })` sets the source.
 */
export class SessionInput {
  private source: AudioInput | undefined;
  private enabled = true;
  private control: AudioInputControl | undefined;

  /** @internal */
  constructor(private readonly assertOpen: (method: string) => void) {}

  /** The source the session listens to, if any. Assign another to swap it (or `undefined` to detach). */
  get audio(): AudioInput | undefined {
    return this.source;
  }

  set audio(source: AudioInput | undefined) {
    this.assertOpen('input.audio');
    this.source = source;
    this.control?.setAudioSource(source);
  }

  /** Whether the session listens to the source (true unless turned off). */
  get audioEnabled(): boolean {
    return this.enabled;
  }

  /**
   * Turns listening off or on. Off: frames are read and dropped, the user is `listening` at once (even
   * mid-word) and no endpointing runs on audio nobody hears; what was heard stays pending, so
   * `commitUserTurn()` answers it (push-to-talk) and `clearUserTurn()` drops it. On: listening resumes
   * with the next frame.
   */
  setAudioEnabled(enabled: boolean): void {
    this.assertOpen('input.setAudioEnabled');
    this.enabled = enabled;
    this.control?.setAudioInputEnabled(enabled);
  }

  /** @internal */
  attach(control: AudioInputControl, source: AudioInput | undefined): void {
    this.control = control;
    this.source = source;
  }
}

/**
 * `session.output`: where the agent's audio goes. Muted, the agent answers in text only: speech steps
 * that start while muted send no audio, their transcript still reaches the text output and the history,
 * and the agent state goes `thinking` -> `listening` without `speaking`. A step already playing when the
 * output is muted plays to its end (interrupt it to stop it now).
 */
export class SessionOutput {
  private enabled = true;
  private control: AudioOutputControl | undefined;

  /** @internal */
  constructor(private readonly assertOpen: (method: string) => void) {}

  /** The audio sink given to `start()`, if any. */
  get audio(): AudioOutput | undefined {
    return this.control?.audioOutput;
  }

  get audioEnabled(): boolean {
    return this.enabled;
  }

  setAudioEnabled(enabled: boolean): void {
    this.assertOpen('output.setAudioEnabled');
    this.enabled = enabled;
    this.control?.setAudioOutputEnabled(enabled);
  }

  /** @internal */
  attach(control: AudioOutputControl): void {
    this.control = control;
  }
}
