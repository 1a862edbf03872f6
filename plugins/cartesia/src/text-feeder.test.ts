import { SentenceTokenizer } from '@voxwire/agents/provider-utils';
import { describe, expect, it } from 'vitest';
import { type FeedStep, TextFeeder } from './text-feeder.js';

/** Feeds deltas and renders what would go out: text verbatim, `|` for each flush. */
function feed(
  deltas: string[],
  feeder = new TextFeeder(new SentenceTokenizer({ minSentenceLength: 5 })),
): string[] {
  const out: string[] = [];
  const render = (steps: FeedStep[]): string => steps.map((s) => (s.type === 'text' ? s.text : '|')).join('');
  for (const delta of deltas) out.push(render(feeder.push(delta)));
  out.push(render(feeder.end()));
  return out;
}

describe('TextFeeder', () => {
  it('sends text as it arrives and flushes exactly at each sentence end', () => {
    const out = feed(['Hello', ' there', '.', ' How', ' are', ' you?', ' Fine']);
    // The mark is held until the next word shows it ends the sentence; the flush falls right after it.
    expect(out).toEqual(['Hello', ' there', '', '.| How', ' are', ' you', '?| Fine', '']);
    expect(out.join('')).toBe('Hello there.| How are you?| Fine');
  });

  it('does not flush at abbreviations and decimals, and never cuts them', () => {
    const out = feed(['Dr', '.', ' Smith paid 3', '.', '5 dollars', '.', ' Then']);
    expect(out.join('')).toBe('Dr. Smith paid 3.5 dollars.| Then');
    expect(out.join('').split('|')).toHaveLength(2);
  });

  it('keeps closing quotes with their sentence and joins short sentences to the next', () => {
    const feeder = new TextFeeder(new SentenceTokenizer({ minSentenceLength: 10 }));
    const out = feed(['Hi! ', 'He said "stop." ', 'Then he left. ', 'And'], feeder);
    expect(out.join('')).toBe('Hi! He said "stop."| Then he left.| And');
  });

  it('flushes everything held on flush(), and keeps the text verbatim', () => {
    const feeder = new TextFeeder();
    expect(feeder.push('Wait.')).toEqual([{ type: 'text', text: 'Wait' }]);
    expect(feeder.flush()).toEqual([{ type: 'text', text: '.' }, { type: 'flush' }]);
    // Nothing new since: no empty flush.
    expect(feeder.flush()).toEqual([]);
    expect(feeder.pushed).toBe('Wait.');
  });

  it('ends Chinese sentences at their own marks', () => {
    const out = feed(
      ['你好，今天天气很好。', '我们走吧'],
      new TextFeeder(new SentenceTokenizer({ minSentenceLength: 4 })),
    );
    expect(out.join('')).toBe('你好，今天天气很好。|我们走吧');
  });
});
