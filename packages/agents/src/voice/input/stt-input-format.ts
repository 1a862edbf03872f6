import type { AudioFrame } from '../../audio/audio-frame.js';
import { toMono } from '../../audio/frame-utils.js';
import { AudioResampler } from '../../audio/resampler.js';

/**
 * Converts the user's frames to what a recognizer declared it accepts: mono, at one of its input
 * sample rates. A rate the recognizer lists is kept as it is; any other goes to its preferred (first)
 * rate. A change of the input's rate mid-stream restarts the conversion, never the recognizer.
 */
export class SttInputFormat {
  private resampler: AudioResampler | undefined;
  private inputRate: number | undefined;

  constructor(
    private readonly accepted: readonly number[],
    /** The rate the recognizer's stream was opened with. */
    readonly outputRate: number,
  ) {}

  /** The rate to open a recognizer stream with, given the first frame's rate. */
  static chooseRate(accepted: readonly number[], inputRate: number): number {
    if (accepted.length === 0) return inputRate;
    return accepted.includes(inputRate) ? inputRate : accepted[0]!;
  }

  /** Whether `frame` goes to the recognizer as it is: the usual case, checked without an allocation. */
  passesThrough(frame: AudioFrame): boolean {
    return frame.channels === 1 && frame.sampleRate === this.inputRate && this.resampler === undefined;
  }

  convert(frame: AudioFrame): AudioFrame[] {
    const mono = frame.channels === 1 ? frame : toMono(frame);
    const out: AudioFrame[] = [];
    if (mono.sampleRate !== this.inputRate) {
      // The old rate's last samples are still in the filter: they belong before the new ones.
      out.push(...this.flush());
      this.inputRate = mono.sampleRate;
      this.resampler =
        mono.sampleRate === this.outputRate || !this.accepted.length
          ? undefined
          : new AudioResampler(mono.sampleRate, this.outputRate);
    }
    if (this.resampler) out.push(...this.resampler.push(mono));
    else out.push(mono);
    return out;
  }

  /** Releases the samples the resampler holds back (the input ended). */
  flush(): AudioFrame[] {
    return this.resampler?.flush() ?? [];
  }
}
