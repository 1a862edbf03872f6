import { describe, expect, it } from 'vitest';
import type { InterruptionEvidence } from '../../providers/interruption-detector.js';
import { LocalInterruptionDetector } from './local-interruption-detector.js';

function heard(transcript: string, extra: Partial<InterruptionEvidence> = {}): InterruptionEvidence {
  const words = transcript.split(/\s+/u).filter((w) => w !== '').length;
  return { transcript, words, speechMs: 600, userSpeaking: true, language: undefined, ...extra };
}

describe('LocalInterruptionDetector', () => {
  const detector = new LocalInterruptionDetector();

  it('hears acknowledgements as backchannels, alone or in short runs, whatever the punctuation', () => {
    for (const text of [
      'mm-hmm',
      'Yeah.',
      'right',
      'Okay',
      'uh-huh',
      'uh huh',
      'yeah, right',
      'I see',
      'Got it!',
    ])
      expect(detector.classify(heard(text)), text).toBe('backchannel');
  });

  it('hears anything else, a question, or a long run as a barge-in', () => {
    for (const text of [
      'wait',
      'stop',
      'no',
      'yeah but',
      'what about tomorrow',
      'okay?',
      'yeah yeah yeah yeah',
    ])
      expect(detector.classify(heard(text)), text).toBe('interrupt');
  });

  it('the first word of a phrase waits for the next while the user speaks', () => {
    expect(detector.classify(heard('I'))).toBe('undecided');
    expect(detector.classify(heard('got', { userSpeaking: false }))).toBe('interrupt');
    expect(detector.classify(heard('I think'))).toBe('interrupt');
  });

  it('wordless sound is a noise until it lasts wordlessInterruptMs', () => {
    expect(detector.classify(heard('', { speechMs: 1500 }))).toBe('undecided');
    expect(detector.classify(heard('', { speechMs: 2000 }))).toBe('interrupt');
    expect(
      new LocalInterruptionDetector({ wordlessInterruptMs: 800 }).classify(heard('', { speechMs: 900 })),
    ).toBe('interrupt');
  });

  it('follows the language of the transcript, with English as the fallback', () => {
    expect(detector.classify(heard('vale', { language: 'es-ES' }))).toBe('backchannel');
    expect(detector.classify(heard("d'accord", { language: 'fr' }))).toBe('backchannel');
    expect(detector.classify(heard('genau', { language: 'de-DE' }))).toBe('backchannel');
    expect(detector.classify(heard('vale', { language: 'en' }))).toBe('interrupt');
    expect(detector.classify(heard('okay', { language: 'ja' }))).toBe('backchannel');
    const custom = new LocalInterruptionDetector({ backchannels: { en: ['roger'] } });
    expect(custom.classify(heard('roger'))).toBe('backchannel');
    expect(custom.classify(heard('yeah'))).toBe('interrupt');
  });
});
