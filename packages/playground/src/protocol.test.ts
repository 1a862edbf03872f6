import { describe, expect, it } from 'vitest';
import { parseClientMessage } from './protocol.js';

describe('page messages', () => {
  it('reads a typed line, and refuses one that is not text', () => {
    expect(parseClientMessage(JSON.stringify({ type: 'user_text', text: 'hello' }))).toEqual({
      type: 'user_text',
      text: 'hello',
    });
    expect(parseClientMessage(JSON.stringify({ type: 'user_text', text: '' }))).toEqual({
      type: 'user_text',
      text: '',
    });
    for (const bad of [
      { type: 'user_text' },
      { type: 'user_text', text: 42 },
      { type: 'user_text', text: null },
      { type: 'user_text', text: ['hi'] },
      { type: 'user_texts', text: 'hi' },
    ]) {
      expect(parseClientMessage(JSON.stringify(bad))).toBeUndefined();
    }
    expect(parseClientMessage('{"type":"user_text","text":"unterminated')).toBeUndefined();
    expect(parseClientMessage('"user_text"')).toBeUndefined();
    expect(parseClientMessage('null')).toBeUndefined();
  });
});
