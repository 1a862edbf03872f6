export * from './audio/audio-frame.js';
export * from './audio/frame-utils.js';
export * from './audio/resampler.js';
export * from './audio/wav.js';
export * from './errors.js';
export * from './llm/chat-context.js';
export { toConversationTurns, toLLMMessages } from './llm/llm-messages.js';
export * from './voice/tools/tool.js';
export * from './providers/llm.js';
export * from './providers/stt.js';
export * from './providers/tts.js';
export * from './providers/turn-detector.js';
export * from './providers/vad.js';
export * from './stream/broadcast.js';
export * from './stream/channel.js';
export * from './time/clock.js';
export * from './time/virtual-clock.js';
export * from './utils/ids.js';
export * from './utils/typed-emitter.js';
export * from './voice/agent/agent.js';
export * from './voice/session/agent-session.js';
export * from './voice/agent/agent-task.js';
export * from './providers/audio-io.js';
export * from './providers/common.js';
export * from './voice/io/audio-output-base.js';
export * from './voice/io/null-audio-output.js';
export * from './voice/session/options.js';
export { RunContext } from './voice/tools/run-context.js';
export * from './voice/session/session-events.js';
export * from './voice/speech/speech-handle.js';
export { MissingProviderError } from './voice/speech/reply-pipeline.js';
export { MissingVADError } from './voice/input/stt-stream.js';
export type * from './voice/session/trace.js';
export type { CommittedTurn, UserState } from './voice/turn/user-turn-tracker.js';
export * from './log/logger.js';
export { isSecretKey, REDACTED, redactLogText, redactLogValue } from './log/redact.js';
export {
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
  type WithRetryOptions,
  withRetry,
} from './provider-utils/retry.js';
export {
  SentenceStream,
  SentenceTokenizer,
  type SentenceTokenizerOptions,
  splitWords,
  countWords,
} from './adapters/sentence-tokenizer.js';
export * from './adapters/stt-stream-adapter.js';
export * from './adapters/tts-stream-adapter.js';
export type {
  AvailabilityChangedEvent,
  FallbackAdapterEvents,
  FallbackAdapterOptions,
  ProviderAvailability,
} from './adapters/fallback-core.js';
export * from './adapters/fallback-llm.js';
export * from './adapters/fallback-stt.js';
export * from './adapters/fallback-tts.js';
export * from './job/index.js';
