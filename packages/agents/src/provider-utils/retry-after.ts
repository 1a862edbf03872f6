/**
 * Response headers as the common HTTP clients hand them over: a fetch `Headers` (anything with `get`),
 * or a plain record such as Node's `IncomingHttpHeaders` (the WebSocket handshake response of `ws`).
 */
export type HeadersLike =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | number | undefined>>;

export interface ParseRetryAfterOptions {
  /**
   * Wall-clock time (ms since 1970) to measure an HTTP-date against when the response carries no `Date`
   * header. The core reads no wall clock itself; a plugin that wants this fallback passes the current epoch time.
   */
  nowEpochMs?: number;
}

/**
 * How long a server asked to wait before the next attempt, in whole ms (rounded up), or `undefined`
 * when it did not say or said something unreadable. Reads, in this order:
 * - `retry-after-ms`: milliseconds (OpenAI, Azure);
 * - `retry-after` as delay-seconds: `120`, or `0.5` as some servers send;
 * - `retry-after` as an HTTP-date: measured against the response's own `Date` header, so that neither
 *   the host's clock nor clock skew matters; without one, against `options.nowEpochMs`. A date in the
 *   past means 0.
 */
export function parseRetryAfterMs(
  headers: HeadersLike | undefined,
  options: ParseRetryAfterOptions = {},
): number | undefined {
  if (!headers) return undefined;
  const ms = parseDelay(header(headers, 'retry-after-ms'), 1);
  if (ms !== undefined) return ms;
  const value = header(headers, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = parseDelay(value, 1000);
  if (seconds !== undefined) return seconds;
  const at = parseHttpDateMs(value);
  if (at === undefined) return undefined;
  const serverNow = parseHttpDateMs(header(headers, 'date') ?? '');
  const now = serverNow ?? options.nowEpochMs;
  if (now === undefined) return undefined;
  return Math.max(0, Math.ceil(at - now));
}

/**
 * What a failed call says about waiting: a numeric `retryAfterMs` on the error, or the `retry-after`
 * headers of the HTTP response it carries (`error.headers` or `error.response.headers`, as SDKs built
 * on fetch expose them), looked for on the error and then down its `cause` chain.
 */
export function retryAfterFromError(error: unknown): number | undefined {
  let current: unknown = error;
  // A few levels cover plugin error → SDK error → fetch error; a cycle must not loop forever.
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const record = current as { retryAfterMs?: unknown; headers?: unknown; response?: unknown };
    if (typeof record.retryAfterMs === 'number' && record.retryAfterMs >= 0) return record.retryAfterMs;
    const response = record.response as { headers?: unknown } | undefined;
    for (const headers of [record.headers, response?.headers]) {
      if (isHeadersLike(headers)) {
        const delay = parseRetryAfterMs(headers);
        if (delay !== undefined) return delay;
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** `Sun, 06 Nov 1994 08:49:37 GMT`, the preferred form. */
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
/** `Sunday, 06-Nov-94 08:49:37 GMT`, obsolete but still to be accepted (RFC 9110, 5.6.7). */
const RFC_850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
/** `Sun Nov  6 08:49:37 1994`, C's asctime(). */
const ASCTIME = /^[a-z]{3} ([a-z]{3}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

interface DateParts {
  year: number;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

function matchDate(value: string): DateParts | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m) return { day: m[1]!, month: m[2]!, year: Number(m[3]), hour: m[4]!, minute: m[5]!, second: m[6]! };
  m = RFC_850.exec(value);
  if (m) {
    const yy = Number(m[3]);
    // Two-digit years: the usual pivot, since without a wall clock "the most recent such year" is unknown.
    const year = yy >= 70 ? 1900 + yy : 2000 + yy;
    return { day: m[1]!, month: m[2]!, year, hour: m[4]!, minute: m[5]!, second: m[6]! };
  }
  m = ASCTIME.exec(value);
  if (m) return { month: m[1]!, day: m[2]!, hour: m[3]!, minute: m[4]!, second: m[5]!, year: Number(m[6]) };
  return undefined;
}

/**
 * An HTTP-date (any of the three forms HTTP allows) as ms since 1970, or `undefined`. Computed by hand:
 * the core keeps the host's `Date` out, and these three forms are all it needs to read.
 */
export function parseHttpDateMs(text: string): number | undefined {
  // Lenient on case and on runs of spaces (asctime pads single-digit days with one).
  const parts = matchDate(text.trim().toLowerCase().replace(/\s+/g, ' '));
  if (!parts) return undefined;
  const month = MONTHS.indexOf(parts.month) + 1;
  const day = Number(parts.day);
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  const second = Number(parts.second);
  if (month === 0 || day < 1 || day > daysInMonth(parts.year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const days = daysSinceEpoch(parts.year, month, day);
  // A leap second (:60) is read as the last ordinary second of its minute.
  return ((days * 24 + hour) * 60 + minute) * 60_000 + Math.min(second, 59) * 1000;
}

function parseDelay(value: string | undefined, unitMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Math.ceil(Number(text) * unitMs);
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    const value = (headers as { get(name: string): string | null | undefined }).get(name);
    return value ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | number | undefined>>;
  // Records are not case-insensitive by themselves; Node lower-cases, hand-made ones may not.
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  if (Array.isArray(value)) return value[0];
  return value === undefined ? undefined : String(value);
}

function isHeadersLike(value: unknown): value is HeadersLike {
  return typeof value === 'object' && value !== null;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days from 1970-01-01 to the given proleptic Gregorian date. */
function daysSinceEpoch(year: number, month: number, day: number): number {
  let days = day - 1;
  for (let m = 1; m < month; m++) days += daysInMonth(year, m);
  // Whole years: 365 each plus the leap days between 1970 and `year`.
  const leapsBefore = (y: number): number => Math.floor(y / 4) - Math.floor(y / 100) + Math.floor(y / 400);
  days += (year - 1970) * 365 + leapsBefore(year - 1) - leapsBefore(1969);
  return days;
}
