import type { AudioFrame } from '../audio/audio-frame.js';
import type { FramePushingInput } from '../providers/audio-io.js';

/**
 * `readUntilAborted` for an input that pushes its frames: `onFrame` runs in the call that delivered each
 * one. Resolves when the input ends or `signal` aborts (the subscription is then stopped), rejects when
 * the input fails or `onFrame` throws.
 */
export function readPushedFrames(
  input: FramePushingInput,
  signal: AbortSignal,
  onFrame: (frame: AudioFrame) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    let ended = false;
    let unsubscribe: (() => void) | undefined;
    // An input may end or fail inside subscribeFrames itself, before it has returned its unsubscribe.
    const finish = (error?: unknown, failed = false): void => {
      if (ended) return;
      ended = true;
      signal.removeEventListener('abort', onAbort);
      unsubscribe?.();
      if (failed) reject(error);
      else resolve();
    };
    const onAbort = (): void => finish();
    signal.addEventListener('abort', onAbort, { once: true });
    const stop = input.subscribeFrames({
      frame: (frame) => {
        if (ended) return;
        try {
          onFrame(frame);
        } catch (error) {
          finish(error, true);
        }
      },
      end: () => finish(),
      fail: (error) => finish(error, true),
    });
    if (ended) stop();
    else unsubscribe = stop;
  });
}
