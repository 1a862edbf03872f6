import { describe, expect, it } from 'vitest';
import { countWords, SentenceTokenizer, splitWords } from './sentence-tokenizer.js';

const exact = new SentenceTokenizer({ minSentenceLength: 0 });

/** Feeds the text in pieces of `size` characters, as an LLM stream would. */
function streamed(tokenizer: SentenceTokenizer, text: string, size: number): string[] {
  const stream = tokenizer.stream();
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...stream.push(text.slice(i, i + size)));
  return [...out, ...stream.flush()];
}

describe('SentenceTokenizer', () => {
  it('splits on sentence ends followed by space', () => {
    expect(exact.tokenize('Hello there. How are you? I am fine!')).toEqual([
      'Hello there.',
      'How are you?',
      'I am fine!',
    ]);
  });

  it('gives the same sentences whatever the size of the pushed deltas', () => {
    const text =
      'Dr. Smith paid $3.50 for it... Really?! Yes. He said "stop." Then he left.\nNext line here. e.g. this stays.';
    const whole = exact.tokenize(text);
    for (const size of [1, 2, 3, 7, 50]) expect(streamed(exact, text, size)).toEqual(whole);
    expect(whole).toEqual([
      'Dr. Smith paid $3.50 for it...',
      'Really?!',
      'Yes.',
      'He said "stop."',
      'Then he left.',
      // A lowercase word after a dot continues the sentence: merging costs latency, a wrong split prosody.
      'Next line here. e.g. this stays.',
    ]);
  });

  it('keeps abbreviations, initials and dotted acronyms inside the sentence', () => {
    expect(exact.tokenize('Mr. and Mrs. Jones met Prof. Lee. They talked.')).toEqual([
      'Mr. and Mrs. Jones met Prof. Lee.',
      'They talked.',
    ]);
    expect(exact.tokenize('J. R. R. Tolkien wrote it. The U.S. Army read it.')).toEqual([
      'J. R. R. Tolkien wrote it.',
      'The U.S. Army read it.',
    ]);
    const custom = new SentenceTokenizer({ minSentenceLength: 0, abbreviations: ['Approx.', 'Wk'] });
    expect(custom.tokenize('See Wk. Two for it. Done.')).toEqual(['See Wk. Two for it.', 'Done.']);
  });

  it('does not split decimals, even when the digits arrive in separate deltas', () => {
    const stream = exact.stream();
    expect(stream.push('It costs 3.')).toEqual([]);
    expect(stream.push('5 dollars. Next')).toEqual(['It costs 3.5 dollars.']);
    expect(stream.flush()).toEqual(['Next']);
  });

  it('treats ellipses as an end only before a new sentence', () => {
    expect(exact.tokenize('Well... maybe not. Wait… What happened?')).toEqual([
      'Well... maybe not.',
      'Wait…',
      'What happened?',
    ]);
  });

  it('waits for the next character before deciding about a dot', () => {
    const stream = exact.stream();
    expect(stream.push('Hello world.')).toEqual([]);
    expect(stream.push(' ')).toEqual([]);
    expect(stream.push('And')).toEqual(['Hello world.']);
    expect(stream.push('?')).toEqual([]);
    expect(stream.push(' ')).toEqual(['And?']);
  });

  it('splits at newlines, with or without punctuation', () => {
    expect(exact.tokenize('Shopping list\n- apples\n\n- pears')).toEqual([
      'Shopping list',
      '- apples',
      '- pears',
    ]);
    const stream = exact.stream();
    expect(stream.push('Done.\n')).toEqual(['Done.']);
  });

  it('joins sentences shorter than the minimum to the next one', () => {
    const tokenizer = new SentenceTokenizer(); // 20 characters
    expect(tokenizer.tokenize('Hi! How are you doing today? Good. See you.')).toEqual([
      'Hi! How are you doing today?',
      'Good. See you.',
    ]);
    expect(streamed(tokenizer, 'Hi! How are you doing today? Good. See you.', 1)).toEqual([
      'Hi! How are you doing today?',
      'Good. See you.',
    ]);
  });

  it('flushes the remainder and starts afresh', () => {
    const stream = exact.stream();
    expect(stream.push('No end in sight')).toEqual([]);
    expect(stream.flush()).toEqual(['No end in sight']);
    expect(stream.flush()).toEqual([]);
    expect(stream.push('   ')).toEqual([]);
    expect(stream.flush()).toEqual([]);
    expect(stream.push('Fresh start. Yes')).toEqual(['Fresh start.']);
  });

  it('rejects a negative minimum', () => {
    expect(() => new SentenceTokenizer({ minSentenceLength: -1 })).toThrow(RangeError);
  });
});

describe('countWords', () => {
  it('counts words, not punctuation', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  ...  !? ')).toBe(0);
    expect(countWords('Hello, world!')).toBe(2);
    expect(countWords("don't stop-now, it's 3.5 km")).toBe(5);
    expect(countWords('uh')).toBe(1);
    expect(countWords('Ça va très bien')).toBe(4);
  });

  it('counts each Chinese or Japanese character as a word', () => {
    expect(countWords('你好世界')).toBe(4);
    expect(countWords('ok 好的')).toBe(3);
    expect(splitWords('Hi, 你好 there!')).toEqual(['Hi', '你', '好', 'there']);
  });
});
