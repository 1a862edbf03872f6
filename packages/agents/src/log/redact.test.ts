import { describe, expect, it } from 'vitest';
import { isSecretKey, REDACTED, redactLogText, redactLogValue } from './redact.js';

describe('isSecretKey', () => {
  it('matches credential names in any casing or separator style', () => {
    for (const key of [
      'apiKey',
      'api_key',
      'API-KEY',
      'OPENAI_API_KEY',
      'x-api-key',
      'authorization',
      'Proxy-Authorization',
      'token',
      'accessToken',
      'refresh_token',
      'password',
      'secret',
      'clientSecret',
      'set-cookie',
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
  });

  it('leaves counters and ordinary fields alone', () => {
    for (const key of [
      'tokens',
      'promptTokens',
      'completion_tokens',
      'tokenCount',
      'model',
      'key',
      'author',
    ]) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });
});

describe('redactLogText', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

  it('redacts auth header values, query secrets and sk- keys', () => {
    expect(redactLogText(`Authorization: Bearer ${jwt}`)).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactLogText('token 0123456789abcdef0123')).toBe(`token ${REDACTED}`);
    expect(redactLogText('GET /v1/listen?model=nova&token=abc123&x=1')).toBe(
      `GET /v1/listen?model=nova&token=${REDACTED}&x=1`,
    );
    expect(redactLogText('https://h/p?access_token=zzz#frag')).toBe(
      `https://h/p?access_token=${REDACTED}#frag`,
    );
    expect(redactLogText('key sk-abcdefghijklmnop1234 leaked')).toBe(`key ${REDACTED} leaked`);
  });

  it('keeps prose that only mentions tokens or bearers', () => {
    for (const text of [
      'the token limit was reached',
      'Token budget exceeded after 3 turns',
      'bearer of bad news',
      'a token of appreciation',
    ]) {
      expect(redactLogText(text)).toBe(text);
    }
  });
});

describe('redactLogValue', () => {
  it('describes binary data of every kind', () => {
    expect(
      redactLogValue({
        i16: new Int16Array(320),
        f32: new Float32Array(512),
        u8: new Uint8Array(10),
        buf: Buffer.alloc(4),
        ab: new ArrayBuffer(8),
        dv: new DataView(new ArrayBuffer(3)),
      }),
    ).toEqual({
      i16: '[Int16Array 320 samples]',
      f32: '[Float32Array 512 samples]',
      u8: '[Uint8Array 10 bytes]',
      buf: '[Buffer 4 bytes]',
      ab: '[ArrayBuffer 8 bytes]',
      dv: '[DataView 3 bytes]',
    });
  });

  it('turns maps, sets, toJSON objects and odd primitives into plain data', () => {
    const when = new Date(0);
    expect(
      redactLogValue({
        map: new Map<string, unknown>([
          ['apiKey', 'k'],
          ['n', 1],
        ]),
        set: new Set(['a']),
        when,
        url: new URL('https://x.test/?api_key=abc'),
        fn: function named() {},
        sym: Symbol('s'),
        nothing: undefined,
        empty: null,
      }),
    ).toEqual({
      map: { apiKey: REDACTED, n: 1 },
      set: ['a'],
      when: '1970-01-01T00:00:00.000Z',
      url: `https://x.test/?api_key=${REDACTED}`,
      fn: '[Function named]',
      sym: 'Symbol(s)',
      nothing: undefined,
      empty: null,
    });
  });

  it('prints an object shared by two fields twice, and only a real cycle as [Circular]', () => {
    const shared = { v: 1 };
    const loop: unknown[] = [];
    loop.push(loop);
    expect(redactLogValue({ a: shared, b: shared, loop })).toEqual({
      a: { v: 1 },
      b: { v: 1 },
      loop: ['[Circular]'],
    });
  });

  it('keeps empty secret fields visible as empty, so "no key configured" still shows', () => {
    expect(redactLogValue({ apiKey: undefined, token: null, secret: '' })).toEqual({
      apiKey: undefined,
      token: null,
      secret: REDACTED,
    });
  });

  it('flattens aggregate errors and keeps the class name over an SDK error type field', () => {
    const inner = Object.assign(new Error('quota'), { type: 'insufficient_quota', apiKey: 'k' });
    const out = redactLogValue(new AggregateError([inner], 'all failed')) as Record<string, unknown>;
    expect(out).toMatchObject({
      type: 'AggregateError',
      message: 'all failed',
      errors: [{ type: 'Error', message: 'quota', apiKey: REDACTED }],
    });
  });
});
