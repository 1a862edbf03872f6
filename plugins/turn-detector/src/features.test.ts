import { describe, expect, it } from 'vitest';
import {
  conversationFeatures,
  extractFeatures,
  hashFeature,
  lastExchange,
  namedFeatures,
  words,
} from './features.js';

describe('features', () => {
  it('reads words the way recognizers differ least: lower case, no punctuation, inner apostrophes kept', () => {
    expect(words("I'd like to ORDER, um… a latte—please!")).toEqual([
      "i'd",
      'like',
      'to',
      'order',
      'um',
      'a',
      'latte',
      'please',
    ]);
    expect(words('It’s 415-555-0134.')).toEqual(["it's", '415', '555', '0134']);
    expect(words("  'quoted'  ")).toEqual(['quoted']);
  });

  it('folds digits to their length and counts the digits being dictated at the end', () => {
    const named = namedFeatures('it is 415 555', "What's your number?");
    expect(named.has('w1:<d3>')).toBe(true);
    expect(named.has('b1:<d3> <d3>')).toBe(true);
    expect(named.has('dc:6')).toBe(true);
    expect(namedFeatures('four one five', undefined).has('dc:3')).toBe(true);
    expect(namedFeatures('415 please', undefined).has('dc:0')).toBe(true);
  });

  it('keeps only a final question mark, and marks a missing agent turn', () => {
    expect(namedFeatures('is it open?', undefined).has('uq')).toBe(true);
    expect(namedFeatures('is it open', undefined).has('uq')).toBe(false);
    expect(namedFeatures('yes', undefined).has('a:none')).toBe(true);
    expect(namedFeatures('yes', 'Shall I book it?').has('aq:q')).toBe(true);
  });

  it('judges the pending user turn, joined across consecutive user messages, after the last agent turn', () => {
    expect(
      lastExchange([
        { role: 'user', text: 'hi' },
        { role: 'assistant', text: 'Hello, what can I get you?' },
        { role: 'user', text: 'a latte' },
        { role: 'user', text: 'and a muffin' },
      ]),
    ).toEqual({ user: 'a latte and a muffin', assistant: 'Hello, what can I get you?' });
    expect(lastExchange([])).toEqual({ user: '', assistant: undefined });
  });

  it('hashes each distinct row once, sorted, within the table, and the same way every time', () => {
    expect(hashFeature('w1:please')).toBe(hashFeature('w1:please'));
    expect(hashFeature('')).toBe(0x811c9dc5);
    const features = extractFeatures('a large latte please', 'What can I get you?', 128);
    const rows = [...features.indices];
    expect(rows).toEqual([...new Set(rows)].sort((a, b) => a - b));
    expect(rows.every((row) => row >= 0 && row < 128)).toBe(true);
    expect(features.weights).toHaveLength(rows.length);
    // Few rows for many features: colliding features add their weights.
    const total = [...namedFeatures('a large latte please', 'What can I get you?').values()].reduce(
      (a, b) => a + b,
      0,
    );
    expect([...features.weights].reduce((a, b) => a + b, 0)).toBeCloseTo(total, 4);
    expect(
      conversationFeatures(
        [
          { role: 'assistant', text: 'What can I get you?' },
          { role: 'user', text: 'a large latte please' },
        ],
        128,
      ),
    ).toEqual(features);
  });
});
