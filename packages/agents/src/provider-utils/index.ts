export { type LinkedController, linkedController, raceAbort } from './abort.js';
export { type IdleTimeoutOptions, withIdleTimeout } from './idle-timeout.js';
export {
  type ConnectInfo,
  ReconnectingSocket,
  type ReconnectingSocketOptions,
  type ReconnectingSocketState,
  type ReplayOptions,
  type SendOptions,
  type SocketConnection,
} from './reconnecting-socket.js';
export { ReplayBuffer, type ReplayBufferOptions, type ReplayMode } from './replay-buffer.js';
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
export {
  type OpenWebSocketOptions,
  openWebSocket,
  type WebSocketData,
  type WebSocketLike,
  type WebSocketMessage,
} from './websocket.js';
// The types the helpers report through, for plugins that pass them on.
export type { ProviderCallOptions, ProviderProblem } from '../providers/common.js';
