import { describe, expect, it } from 'vitest';
import { APIStatusError } from '../errors.js';
import { parseHttpDateMs, parseRetryAfterMs, retryAfterFromError } from './retry-after.js';

const SERVER_NOW = 'Sun, 06 Nov 1994 08:49:37 GMT';

describe('parseRetryAfterMs', () => {
  it('reads retry-after-ms first, then retry-after as seconds', () => {
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '12.2' }))).toBe(13);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '120' }))).toBe(120_000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': ' 0.5 ' }))).toBe(500);
    expect(parseRetryAfterMs(new Headers({ 'retry-after': '0' }))).toBe(0);
  });

  it('measures an HTTP-date against the response Date header, not the host clock', () => {
    const headers = new Headers({ date: SERVER_NOW, 'retry-after': 'Sun, 06 Nov 1994 08:50:07 GMT' });
    expect(parseRetryAfterMs(headers)).toBe(30_000);
    const past = new Headers({ date: SERVER_NOW, 'retry-after': 'Sun, 06 Nov 1994 08:00:00 GMT' });
    expect(parseRetryAfterMs(past)).toBe(0);
  });

  it('falls back to the given wall-clock time, and ignores a date it cannot place', () => {
    const retryAt = 'Wed, 21 Oct 2015 07:28:00 GMT';
    const now = Date.UTC(2015, 9, 21, 7, 27, 58);
    expect(parseRetryAfterMs({ 'retry-after': retryAt }, { nowEpochMs: now })).toBe(2_000);
    expect(parseRetryAfterMs({ 'retry-after': retryAt })).toBeUndefined();
  });

  it('reads plain header records whatever their case, and arrays', () => {
    expect(parseRetryAfterMs({ 'Retry-After': '3' })).toBe(3_000);
    expect(parseRetryAfterMs({ 'retry-after': ['4', '5'] })).toBe(4_000);
    expect(parseRetryAfterMs({ 'retry-after': 2 })).toBe(2_000);
  });

  it('returns undefined for missing or unreadable values', () => {
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
    expect(parseRetryAfterMs(new Headers())).toBeUndefined();
    for (const value of ['soon', '-1', '1e3', '', 'Sun, 32 Nov 1994 08:49:37 GMT']) {
      expect(parseRetryAfterMs(new Headers({ date: SERVER_NOW, 'retry-after': value })), value).toBe(
        undefined,
      );
    }
  });
});

describe('parseHttpDateMs', () => {
  it('reads the three forms HTTP allows, like the host would', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDateMs('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDateMs('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDateMs('Sun Nov  6 08:49:37 1994')).toBe(expected);
    expect(parseHttpDateMs('sun, 06 nov 1994 08:49:37 gmt')).toBe(expected);
  });

  it('agrees with Date.UTC across leap years, month ends and centuries', () => {
    const samples: Array<[number, number, number, number, number, number]> = [
      [1970, 0, 1, 0, 0, 0],
      [2000, 1, 29, 23, 59, 59],
      [2100, 1, 28, 12, 0, 0],
      [2024, 11, 31, 18, 30, 5],
      [2038, 0, 19, 3, 14, 8],
      [1999, 5, 30, 1, 2, 3],
    ];
    const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const two = (n: number): string => String(n).padStart(2, '0');
    for (const [y, mo, d, h, mi, s] of samples) {
      const utc = Date.UTC(y, mo, d, h, mi, s);
      const weekday = days[new Date(utc).getUTCDay()]!;
      const text = `${weekday}, ${two(d)} ${months[mo]} ${y} ${two(h)}:${two(mi)}:${two(s)} GMT`;
      expect(parseHttpDateMs(text), text).toBe(utc);
    }
  });

  it('rejects impossible dates and other formats', () => {
    for (const text of [
      'Tue, 29 Feb 2100 00:00:00 GMT',
      'Mon, 31 Apr 2024 00:00:00 GMT',
      'Mon, 01 Foo 2024 00:00:00 GMT',
      'Mon, 01 Apr 2024 24:00:00 GMT',
      'Mon, 01 Apr 2024 10:00:00 CET',
      '2024-04-01T10:00:00Z',
    ]) {
      expect(parseHttpDateMs(text), text).toBeUndefined();
    }
  });
});

describe('retryAfterFromError', () => {
  it('finds the headers on the error or down its cause chain', () => {
    const sdkError = Object.assign(new Error('429'), { headers: new Headers({ 'retry-after': '2' }) });
    const wrapped = new APIStatusError('rate limited', { statusCode: 429, cause: sdkError });
    expect(retryAfterFromError(wrapped)).toBe(2_000);
    const axiosLike = Object.assign(new Error('429'), { response: { headers: { 'retry-after-ms': '40' } } });
    expect(retryAfterFromError(axiosLike)).toBe(40);
  });

  it('prefers an explicit retryAfterMs and copes with anything else', () => {
    expect(retryAfterFromError(Object.assign(new Error('x'), { retryAfterMs: 70 }))).toBe(70);
    expect(retryAfterFromError(new Error('plain'))).toBeUndefined();
    expect(retryAfterFromError('a string')).toBeUndefined();
    expect(retryAfterFromError(undefined)).toBeUndefined();
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(retryAfterFromError(cyclic)).toBeUndefined();
  });
});
