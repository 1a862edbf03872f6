export { type LinkedController, linkedController, raceAbort } from './abort.js';
export { type IdleTimeoutOptions, withIdleTimeout } from './idle-timeout.js';
export {
  DEFAULT_RETRY_POLICY,
  delayBeforeRetryMs,
  isRetryableError,
  type RetryOptions,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
  type WithRetryOptions,
  withRetry,
} from './retry.js';
export {
  type HeadersLike,
  type ParseRetryAfterOptions,
  parseHttpDateMs,
  parseRetryAfterMs,
  retryAfterFromError,
} from './retry-after.js';
export { retryBeforeFirstItem } from './retry-stream.js';
export { timeoutAfter, type WithTimeoutOptions, withTimeout } from './timeout.js';
