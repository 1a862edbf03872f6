import { describe, expect, it } from 'vitest';
import {
  AllProvidersFailedError,
  APIConnectionError,
  APIError,
  APIStatusError,
  APITimeoutError,
  ChannelClosedError,
  isAbortError,
  isRetryableStatus,
  SessionClosedError,
  SpeechInterruptedError,
  ToolError,
  VoxwireError,
} from './errors.js';

describe('typed errors', () => {
  it('carry their class name and the VoxwireError base', () => {
    const errors = [
      new ToolError('bad'),
      new SessionClosedError(),
      new SpeechInterruptedError(),
      new ChannelClosedError('stt-in'),
      new APIConnectionError(),
      new APITimeoutError(),
      new APIStatusError('nope', { statusCode: 500 }),
      new AllProvidersFailedError('all', []),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(VoxwireError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(error.constructor.name);
      expect(error.stack?.split('\n')[0]).toContain(error.constructor.name);
    }
    expect(new ChannelClosedError('stt-in').message).toContain('"stt-in"');
  });

  it('mark connection problems, timeouts and transient statuses as retryable', () => {
    expect(new APIConnectionError().retryable).toBe(true);
    expect(new APIConnectionError('x', { retryable: false }).retryable).toBe(false);
    expect(new APITimeoutError()).toBeInstanceOf(APIConnectionError);
    expect(new APITimeoutError().retryable).toBe(true);
    for (const status of [408, 409, 429, 500, 503]) {
      expect(new APIStatusError('x', { statusCode: status }).retryable, String(status)).toBe(true);
      expect(isRetryableStatus(status)).toBe(true);
    }
    for (const status of [400, 401, 403, 404, 422]) {
      expect(new APIStatusError('x', { statusCode: status }).retryable, String(status)).toBe(false);
    }
    expect(new APIStatusError('x', { statusCode: 400, retryable: true }).retryable).toBe(true);
  });

  it('keep status details, body and cause', () => {
    const cause = new Error('socket');
    const error = new APIStatusError('rate limited', {
      statusCode: 429,
      requestId: 'req_1',
      body: { error: 'slow down' },
      cause,
    });
    expect(error).toMatchObject({ statusCode: 429, requestId: 'req_1', body: { error: 'slow down' } });
    expect(error.cause).toBe(cause);
  });

  it('AllProvidersFailedError keeps every error, is final, and points at the last one', () => {
    const first = new APIConnectionError('a');
    const last = new APITimeoutError('b');
    const error = new AllProvidersFailedError('all failed', [first, last]);
    expect(error).toBeInstanceOf(APIError);
    expect(error.retryable).toBe(false);
    expect(error.errors).toEqual([first, last]);
    expect(error.cause).toBe(last);
  });

  it('isAbortError recognises aborts from signals and fetch', () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(controller.signal.reason)).toBe(true);
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isAbortError(Object.assign(new Error('x'), { name: 'AbortError' }))).toBe(true);
    expect(isAbortError(new Error('x'))).toBe(false);
    expect(isAbortError(new DOMException('x', 'TimeoutError'))).toBe(false);
    expect(isAbortError(undefined)).toBe(false);
    expect(isAbortError('AbortError')).toBe(false);
  });
});
