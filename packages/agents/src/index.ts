/**
 * `@voxwire/agents`: what an agent author imports. Sessions, agents, tools, speech handles, the chat
 * context, the clock, the typed errors and the fallback adapters.
 *
 * Provider and transport authors import the specification (spec v1) and the helpers around it from
 * `@voxwire/agents/provider-utils`.
 */
export type {
  AvailabilityChangedEvent,
  FallbackAdapterEvents,
  FallbackAdapterOptions,
  ProviderAvailability,
} from './adapters/fallback-core.js';
export { LLMFallbackAdapter, type LLMFallbackAdapterOptions } from './adapters/fallback-llm.js';
export { STTFallbackAdapter, type STTFallbackAdapterOptions } from './adapters/fallback-stt.js';
export { TTSFallbackAdapter, type TTSFallbackAdapterOptions } from './adapters/fallback-tts.js';
export { AudioFrame, type AudioFrameLike } from './audio/audio-frame.js';
export {
  AllProvidersFailedError,
  APIConnectionError,
  APIError,
  APIStatusError,
  APITimeoutError,
  AudioOutputTimeoutError,
  InvalidAudioError,
  ProviderProblemError,
  SessionClosedError,
  SessionNotStartedError,
  SpeechInterruptedError,
  ToolError,
  ToolTimeoutError,
  VoxwireError,
} from './errors.js';
export {
  agentDefinitionFromModule,
  defineAgent,
  isAgentDefinition,
  type AgentDefinition,
  type AgentDefinitionInit,
} from './job/agent-definition.js';
export {
  Job,
  prewarmAgent,
  type JobContext,
  type JobNotice,
  type JobOptions,
  type JobTransport,
  type NoticeLevel,
  type SessionIO,
} from './job/job-context.js';
export {
  ChatContext,
  messageText,
  type AddMessageOptions,
  type AgentHandoff,
  type ChatContent,
  type ChatItem,
  type ChatMessage,
  type ChatRole,
  type CopyOptions,
  type FunctionCall,
  type FunctionCallOutput,
  type ImageContent,
} from './llm/chat-context.js';
export {
  createLogger,
  defaultLogger,
  setDefaultLogger,
  silentLogger,
  type Logger,
  type LoggerOptions,
  type LogLevel,
} from './log/logger.js';
export type {
  AudioInput,
  AudioOutput,
  FramePushingInput,
  FrameReceiver,
  TextOutput,
} from './providers/audio-io.js';
export type { LLM } from './providers/llm.js';
export type { STT } from './providers/stt.js';
export type { TTS } from './providers/tts.js';
export type { TurnDetector } from './providers/turn-detector.js';
export type { VAD } from './providers/vad.js';
export { realClock, RealClock, type Clock, type TimerHandle } from './time/clock.js';
export { VirtualClock, type VirtualClockOptions } from './time/virtual-clock.js';
export { AgentTask, TaskContextError } from './voice/agent/agent-task.js';
export { Agent, StopResponse, type AgentOptions } from './voice/agent/agent.js';
export { MissingVADError } from './voice/input/stt-stream.js';
export {
  describeEvent,
  EventAssert,
  ExpectationError,
  RunAssert,
  RunResult,
  type AgentHandoffExpectation,
  type FunctionCallExpectation,
  type FunctionCallOutputExpectation,
  type MessageExpectation,
  type RunEvent,
} from './voice/run/run-result.js';
export type { RunOptions } from './voice/session/text-run.js';
export type { SessionInput, SessionOutput } from './voice/io/session-io.js';
export {
  BackgroundAudio,
  type BackgroundAudioOptions,
  type BackgroundAudioSession,
  type BackgroundSound,
  type BackgroundSoundName,
} from './voice/io/background-audio.js';
export {
  synthesizedHum,
  synthesizedTicks,
  type SynthesizedClipOptions,
} from './voice/io/synthesized-clips.js';
export {
  AgentSession,
  type AgentSessionOptions,
  type GenerateReplyOptions,
  type SayOptions,
  type SessionStartOptions,
} from './voice/session/agent-session.js';
export {
  defaultTurnHandling,
  resolveTurnHandling,
  type TurnHandlingOptions,
} from './voice/session/options.js';
export { defaultDeadlines, resolveDeadlines, type SessionDeadlines } from './voice/session/deadlines.js';
export {
  type DtmfInput,
  type DtmfReceivedEvent,
  dtmfCode,
  dtmfDigit,
} from './voice/session/dtmf.js';
export type {
  AgentState,
  ErrorSource,
  SessionEvents,
  SessionMetrics,
} from './voice/session/session-events.js';
export type {
  InterruptReason,
  SpeechOutcome,
  TimedTraceRecord,
  TraceRecord,
  TraceSink,
} from './voice/session/trace.js';
export { MissingProviderError } from './voice/speech/reply-pipeline.js';
export {
  SpeechDeadlockError,
  SpeechHandle,
  SpeechInterruptedReason,
  SpeechPriority,
} from './voice/speech/speech-handle.js';
export { RunContext } from './voice/tools/run-context.js';
export {
  tool,
  toolDefinitions,
  type AnyTool,
  type JSONSchema,
  type Tool,
  type ToolOptions,
} from './voice/tools/tool.js';
export type { CommittedTurn, UserState, UserTurnExceeded } from './voice/turn/user-turn-tracker.js';
export type {
  InterruptionDetector,
  InterruptionEvidence,
  InterruptionVerdict,
} from './providers/interruption-detector.js';
export {
  DEFAULT_BACKCHANNELS,
  LocalInterruptionDetector,
  type LocalInterruptionDetectorOptions,
} from './voice/turn/local-interruption-detector.js';
