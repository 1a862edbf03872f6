import { describe, expect, it } from 'vitest';
import type { TextOutput } from '../../providers/audio-io.js';
import { SpeakingRate, TranscriptSync } from './transcript-sync.js';

function captions(): TextOutput & { text: string } {
  const out = {
    text: '',
    captureText(piece: string) {
      out.text += piece;
    },
    flush() {},
  };
  return out;
}

describe('TranscriptSync', () => {
  it('without word timings, never claims more than the speaking rate allows while text runs ahead', () => {
    const out = captions();
    const sync = new TranscriptSync(out, new SpeakingRate());
    sync.pushText('Your table for two is booked for seven tonight.');
    sync.pushAudio(3000);
    // 15 characters a second by default: 1 s of audio holds about "Your table for".
    expect(sync.textAt(1000)).toBe('Your table for');
    sync.revealUntil(1000);
    expect(out.text).toBe('Your table for');
  });

  it('follows the synthesizer word timings: a word counts once half of it played', () => {
    const out = captions();
    const sync = new TranscriptSync(out, new SpeakingRate());
    sync.pushText('Your table for two is booked.');
    sync.pushAudio(2000);
    sync.pushWords([
      { word: 'Your', startMs: 0, endMs: 200 },
      { word: 'table', startMs: 200, endMs: 600 },
      { word: 'for', startMs: 600, endMs: 700 },
      { word: 'two', startMs: 700, endMs: 1100 },
    ]);
    expect(sync.textAt(100)).toBe('Your');
    expect(sync.textAt(399)).toBe('Your');
    expect(sync.textAt(400)).toBe('Your table');
    // Past the last timed word nothing more is claimed, whatever the rate estimate would say.
    expect(sync.textAt(1900)).toBe('Your table for two');
    sync.pushWords([
      { word: 'is', startMs: 1100, endMs: 1250 },
      { word: 'booked.', startMs: 1250, endMs: 1800 },
    ]);
    expect(sync.textAt(1900)).toBe('Your table for two is booked.');
    sync.revealUntil(650);
    expect(out.text).toBe('Your table for');
  });

  it('skips a timed word the text does not hold as written, and keeps placing the ones after it', () => {
    const sync = new TranscriptSync(undefined, new SpeakingRate());
    sync.pushText('Table 2 is ready, sir.');
    sync.pushAudio(2000);
    sync.pushWords([
      { word: 'table', startMs: 0, endMs: 300 },
      { word: 'two', startMs: 300, endMs: 600 },
      { word: 'is', startMs: 600, endMs: 700 },
      { word: 'ready,', startMs: 700, endMs: 1100 },
    ]);
    expect(sync.textAt(500)).toBe('Table');
    expect(sync.textAt(650)).toBe('Table 2 is');
    expect(sync.textAt(1000)).toBe('Table 2 is ready,');
  });

  it('keeps times moving forward, and everything once text and audio are complete and played', () => {
    const sync = new TranscriptSync(undefined, new SpeakingRate());
    sync.pushText('one two three');
    sync.pushAudio(900);
    sync.pushWords([
      { word: 'one', startMs: 0, endMs: 300 },
      { word: 'two', startMs: 100, endMs: 100 },
    ]);
    expect(sync.textAt(140)).toBe('');
    expect(sync.textAt(150)).toBe('one two');
    sync.markTextComplete();
    sync.markAudioComplete();
    expect(sync.textAt(900)).toBe('one two three');
  });
});
