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

describe('SentenceTokenizer with Chinese and Japanese', () => {
  it('ends sentences at CJK marks, which no space follows', () => {
    expect(exact.tokenize('今天天气很好。我们去公园散步吧！你觉得怎么样？好')).toEqual([
      '今天天气很好。',
      '我们去公园散步吧！',
      '你觉得怎么样？',
      '好',
    ]);
    expect(exact.tokenize('真的吗？！太好了！！！半角も｡よし')).toEqual([
      '真的吗？！',
      '太好了！！！',
      '半角も｡',
      'よし',
    ]);
  });

  it('keeps closing quotes and brackets with the sentence they close', () => {
    expect(exact.tokenize('他说：“我走了。”然后他离开了。')).toEqual(['他说：“我走了。”', '然后他离开了。']);
    expect(exact.tokenize('（这很重要。）下一句。【注意！】最后。')).toEqual([
      '（这很重要。）',
      '下一句。',
      '【注意！】',
      '最后。',
    ]);
    // In Japanese a quote followed by kana is quoted speech inside the sentence: "...", he said.
    expect(exact.tokenize('「行こう！」と彼は言った。『本当?』って聞いた。「はい。」\n次。')).toEqual([
      '「行こう！」と彼は言った。',
      '『本当?』って聞いた。',
      '「はい。」',
      '次。',
    ]);
  });

  it('tells the full-width full stop from a full-width decimal point', () => {
    expect(exact.tokenize('价格是３．５元．谢谢')).toEqual(['价格是３．５元．', '谢谢']);
  });

  it('splits mixed English and Chinese, Western marks glued to Chinese included', () => {
    const text =
      'I use TypeScript every day. 我也用TypeScript。It is great! 好的.然后呢? Mr.王说版本2.0很好。等等……你说什么？';
    const expected = [
      'I use TypeScript every day.',
      '我也用TypeScript。',
      'It is great!',
      '好的.',
      '然后呢?',
      // An abbreviation, a decimal and a glued ellipsis do not end a sentence.
      'Mr.王说版本2.0很好。',
      '等等……你说什么？',
    ];
    expect(exact.tokenize(text)).toEqual(expected);
    for (const size of [1, 2, 3, 7]) expect(streamed(exact, text, size)).toEqual(expected);
  });

  it('gives the same sentences whatever the size of the pushed deltas', () => {
    const texts = [
      '他说：“我走了。”然后他离开了。真的吗？！太好了！！！最后一句',
      '「行こう！」と彼は言った。『本当？』って聞いた。コーヒーを飲みます。',
    ];
    for (const tokenizer of [exact, new SentenceTokenizer()]) {
      for (const text of texts) {
        const whole = tokenizer.tokenize(text);
        for (const size of [1, 2, 3, 5, 11]) expect(streamed(tokenizer, text, size)).toEqual(whole);
      }
    }
  });

  it('hands a sentence out as soon as the character after its mark arrives', () => {
    const stream = exact.stream();
    expect(stream.push('你好。')).toEqual([]); // a closing quote may still follow
    expect(stream.push('我')).toEqual(['你好。']);
    expect(stream.push('很好！」')).toEqual([]);
    expect(stream.push('と')).toEqual([]); // quoted speech: the sentence goes on
    expect(stream.push('言った。次')).toEqual(['我很好！」と言った。']);
    expect(stream.flush()).toEqual(['次']);
  });

  it('cuts text without spaces into sentences of sensible length, a character counting as two', () => {
    const tokenizer = new SentenceTokenizer(); // 20: ten Chinese characters
    expect(tokenizer.tokenize('好的。非常感谢你的帮助。我明白了，马上开始处理这个问题。')).toEqual([
      '好的。非常感谢你的帮助。', // "好的。" (5) alone would be a tiny clip; with the next one, 22
      '我明白了，马上开始处理这个问题。',
    ]);
    // The first sentence (19) is just too short alone, so each pair of them becomes one request.
    const paragraph = '今天的会议到此结束。请大家回去以后认真准备下周的报告。'.repeat(20);
    const sentences = tokenizer.tokenize(paragraph);
    expect(sentences).toHaveLength(20);
    expect(sentences.join('')).toBe(paragraph);
    expect(Math.max(...sentences.map((s) => s.length))).toBe(27);
    expect(tokenizer.tokenize('はい。よくわかりました。では始めましょう。')).toEqual([
      'はい。よくわかりました。', // 5 + 15
      'では始めましょう。',
    ]);
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
    expect(countWords('等一下，我还有一个问题。')).toBe(10);
    expect(countWords('I like 咖啡 a lot')).toBe(6);
    // The prolonged sound mark lengthens a kana, it is not a word of its own.
    expect(splitWords('コーヒーを飲みます')).toEqual(['コー', 'ヒー', 'を', '飲', 'み', 'ま', 'す']);
    // Korean writes spaces between words: they are counted as usual.
    expect(countWords('안녕하세요 여러분')).toBe(2);
  });
});
