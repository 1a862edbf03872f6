import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../audio/audio-frame.js';
import type { FramePushingInput, FrameReceiver } from '../providers/audio-io.js';
import { readPushedFrames } from './read-pushed-frames.js';

/** An input whose test drives the receiver by hand, and which counts its subscriptions. */
function pushingInput(onSubscribe?: (receiver: FrameReceiver) => void) {
  const state = { receiver: undefined as FrameReceiver | undefined, subscribed: 0, unsubscribed: 0 };
  const input: FramePushingInput = {
    subscribeFrames(receiver) {
      state.subscribed++;
      state.receiver = receiver;
      onSubscribe?.(receiver);
      return () => {
        state.unsubscribed++;
      };
    },
    [Symbol.asyncIterator]: () => {
      throw new Error('a pushing input is not iterated');
    },
  };
  return { input, state };
}

const frame = (n: number) => new AudioFrame(new Int16Array(320).fill(n), 16_000, 1, 320);

describe('readPushedFrames', () => {
  it('hands every frame over in the call that pushed it, and resolves when the input ends', async () => {
    const { input, state } = pushingInput();
    const seen: number[] = [];
    const reading = readPushedFrames(input, new AbortController().signal, (f) => {
      seen.push(f.data[0]!);
    });
    state.receiver!.frame(frame(1));
    expect(seen).toEqual([1]);
    state.receiver!.frame(frame(2));
    state.receiver!.end();
    await reading;
    expect(seen).toEqual([1, 2]);
    // Nothing after the end is heard.
    state.receiver!.frame(frame(3));
    expect(seen).toEqual([1, 2]);
    expect(state.unsubscribed).toBe(1);
  });

  it('stops the subscription on abort and resolves; an aborted signal never subscribes', async () => {
    const { input, state } = pushingInput();
    const stop = new AbortController();
    const seen: number[] = [];
    const reading = readPushedFrames(input, stop.signal, (f) => {
      seen.push(f.data[0]!);
    });
    state.receiver!.frame(frame(1));
    stop.abort();
    await reading;
    state.receiver!.frame(frame(2));
    expect(seen).toEqual([1]);
    expect(state.unsubscribed).toBe(1);

    const late = pushingInput();
    await readPushedFrames(late.input, stop.signal, () => {});
    expect(late.state.subscribed).toBe(0);
  });

  it('rejects with the failure of the input, and with what the frame handler throws', async () => {
    const failing = pushingInput();
    const reading = readPushedFrames(failing.input, new AbortController().signal, () => {});
    failing.state.receiver!.fail(new Error('transport lost'));
    await expect(reading).rejects.toThrow('transport lost');
    expect(failing.state.unsubscribed).toBe(1);

    const throwing = pushingInput();
    const handled = readPushedFrames(throwing.input, new AbortController().signal, () => {
      throw new Error('handler broke');
    });
    throwing.state.receiver!.frame(frame(1));
    await expect(handled).rejects.toThrow('handler broke');
    expect(throwing.state.unsubscribed).toBe(1);
  });

  it('stops an input that ends inside subscribeFrames, before it returned its unsubscribe', async () => {
    const { input, state } = pushingInput((receiver) => {
      receiver.frame(frame(7));
      receiver.end();
    });
    const seen: number[] = [];
    await readPushedFrames(input, new AbortController().signal, (f) => {
      seen.push(f.data[0]!);
    });
    expect(seen).toEqual([7]);
    expect(state.unsubscribed).toBe(1);
  });
});
