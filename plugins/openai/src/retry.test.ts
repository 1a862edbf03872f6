import { APIConnectionError, APIStatusError } from '@voxwire/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { resolvePolicy, retryDelayMs } from './retry.js';

function rateLimited(headers: Record<string, string>): APIStatusError {
  const cause = OpenAI.APIError.generate(429, { message: 'slow down' }, undefined, new Headers(headers));
  return new APIStatusError('429', { statusCode: 429, cause });
}

describe('retryDelayMs', () => {
  const policy = resolvePolicy({ initialDelayMs: 10, maxDelayMs: 1_000, multiplier: 2, jitter: 0 });

  it('follows the exponential backoff without a server hint', () => {
    expect([1, 2, 3].map((n) => retryDelayMs(policy, n, new APIConnectionError()))).toEqual([10, 20, 40]);
  });

  it('waits as long as the server asks, within maxDelayMs', () => {
    expect(retryDelayMs(policy, 1, rateLimited({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryDelayMs(policy, 1, rateLimited({ 'retry-after': '0.5' }))).toBe(500);
    expect(retryDelayMs(policy, 1, rateLimited({ 'retry-after': '30' }))).toBe(1_000);
    expect(retryDelayMs(policy, 3, rateLimited({ 'retry-after-ms': '1' }))).toBe(40);
  });

  it('keeps defaults for fields left undefined', () => {
    expect(resolvePolicy({ maxRetries: undefined }, { maxRetries: 0 }).maxRetries).toBe(0);
    expect(() => resolvePolicy({ jitter: 2 })).toThrow(RangeError);
  });
});
