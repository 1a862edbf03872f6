import { describe, expect, it } from 'vitest';
import { isAbortError, VoxwireError } from '../../errors.js';
import { SpeechHandle, SpeechInterruptedReason, SpeechPriority } from './speech-handle.js';

const speech = (id: string): SpeechHandle =>
  new SpeechHandle({ id, allowInterruptions: true, source: 'say', priority: SpeechPriority.normal });

describe('SpeechHandle interrupt reason', () => {
  it('aborts the interrupt signal with an AbortError that names the reason', () => {
    const handle = speech('s1');
    expect(handle.requestInterrupt('user_speech', false)).toBe(true);
    const reason = handle.interruptSignal.reason;
    expect(reason).toBeInstanceOf(SpeechInterruptedReason);
    expect(reason).toBeInstanceOf(VoxwireError);
    expect(isAbortError(reason)).toBe(true);
    expect((reason as SpeechInterruptedReason).reason).toBe('user_speech');
    expect((reason as Error).message).toBe('speech interrupted (user_speech)');
  });

  it('shares one reason object per reason across speeches, and a distinct one per reason', () => {
    const [a, b, c] = [speech('a'), speech('b'), speech('c')];
    a.requestInterrupt('user_speech', false);
    b.requestInterrupt('user_speech', false);
    c.requestInterrupt('close', true);
    expect(a.interruptSignal.reason).toBe(b.interruptSignal.reason);
    expect(c.interruptSignal.reason).not.toBe(a.interruptSignal.reason);
    expect(SpeechInterruptedReason.of('close')).toBe(c.interruptSignal.reason);
    expect((c.interruptSignal.reason as SpeechInterruptedReason).reason).toBe('close');
  });
});
