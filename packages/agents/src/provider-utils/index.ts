/**
 * `@voxwire/agents/provider-utils`: what every network plugin needs around its calls, so that each
 * behaves alike under failure. Everything runs on the injected `Clock` (a `VirtualClock` in tests),
 * takes the caller's `AbortSignal`, leaves no timer or listener behind, and reports what it recovered
 * from through `onProblem` (`ProviderProblem`). Durations are milliseconds.
 *
 * ## Retrying a call: `withRetry`, `RetryPolicy`
 * Exponential backoff with jitter for retryable errors (`APIError.retryable`), honouring the server's
 * `retry-after` (see below). Each retry is reported as `{ type: 'retrying', attempt, delayMs, error }`.
 * ```ts
 * const result = await withRetry((attempt, signal) => client.transcribe(audio, { signal }), {
 *   policy: { maxRetries: 2 },   // the rest from DEFAULT_RETRY_POLICY
 *   clock, signal, onProblem,
 * });
 * ```
 * `resolveRetryPolicy(userPolicy, pluginDefaults)` fills a user's partial policy for a plugin.
 *
 * ## A deadline for one call: `withTimeout`
 * Aborts the work and rejects with `APITimeoutError` when the deadline passes, even if the SDK turns
 * the abort into an error of its own. A caller's abort rejects with its reason.
 * ```ts
 * const text = await withTimeout((signal) => sdk.audio.transcriptions.create(body, { signal }), {
 *   clock, timeoutMs: 30_000, signal, label: 'acme.STT',
 * });
 * ```
 *
 * ## Streams: `retryBeforeFirstItem` and `withIdleTimeout`
 * A stream may only be retried while it has yielded nothing; after that a retry would repeat output
 * (words spoken twice), so the error propagates. `withIdleTimeout` fails a stream whose next item takes
 * longer than `idleTimeoutMs` (`firstItemTimeoutMs` for the first), counting only the time spent
 * waiting on the source, never the time the caller spends on an item. Put the idle guard around the
 * raw network frames, so that a frame without output still counts as a sign of life.
 * ```ts
 * async function* synthesize(text: string, signal?: AbortSignal) {
 *   const frames = retryBeforeFirstItem(
 *     (_attempt, attemptSignal) =>
 *       withIdleTimeout((s) => openAudioStream(text, s), {
 *         clock, idleTimeoutMs: 5_000, firstItemTimeoutMs: 10_000, signal: attemptSignal, label: 'acme.TTS',
 *       }),
 *     { policy, clock, signal, onProblem },
 *   );
 *   for await (const chunk of frames) yield* toAudioFrames(chunk);
 * }
 * ```
 * Both end quietly (no error) when the caller's signal aborts, as the provider specification asks.
 *
 * ## `retry-after`: `parseRetryAfterMs`, `retryAfterFromError`, `maxRetryAfterMs`
 * The retry helpers read the server's wait from the failed call (`retryAfterFromError`: an error's
 * `retryAfterMs`, or the `retry-after-ms` / `retry-after` headers of the HTTP response it or its
 * `cause` carries). A wait longer than the backoff is honoured up to `RetryPolicy.maxRetryAfterMs`
 * (default 30_000); a longer one is not shortened but surfaces the error at once (no retry).
 * ```ts
 * parseRetryAfterMs(response.headers);  // '120' -> 120_000; 'Wed, 21 Oct 2015 07:28:00 GMT' against the Date header
 * throw Object.assign(new APIStatusError('HTTP 429', { statusCode: 429 }), {
 *   retryAfterMs: parseRetryAfterMs(response.headers),   // or keep the response as `cause`
 * });
 * delayBeforeRetryMs(policy, attempt, retryAfterMs);     // undefined: do not retry
 * ```
 *
 * ## Abort wiring: `linkedController`, `raceAbort`
 * One controller per call, following the session's long-lived signal without piling listeners on it;
 * `raceAbort` waits for a promise but gives up on abort, and removes its listener either way.
 * ```ts
 * const call = linkedController(options.signal);
 * try {
 *   const ready = await raceAbort(sdk.connect({ signal: call.signal }), call.signal);
 * } finally {
 *   call.dispose();      // off the session's signal
 *   call.abort();        // and whatever the call left running is released
 * }
 * ```
 *
 * ## Live connections: `ReconnectingSocket`, `openWebSocket`, `ReplayBuffer`
 * For streaming STT and TTS over a WebSocket. The core opens no socket: `connect` does, and
 * `openWebSocket` turns a `ws` or WHATWG `WebSocket` into the `SocketConnection` it returns. After an
 * unexpected close the socket reconnects with backoff (`{ type: 'reconnecting' }`), sends again what
 * the provider had not acknowledged (bounded; what could not be kept is reported as `audio_dropped`),
 * and gives up after `policy.maxRetries` attempts with an `APIConnectionError`. A provider's clock
 * restarts on each connection: `info.resumeFrom` says which position of the stream its 0 stands for.
 * ```ts
 * const socket = new ReconnectingSocket<WebSocketData, { result: Result; offsetMs: number }>({
 *   label: 'acme.STT', clock, signal, onProblem,
 *   replay: { mode: 'acknowledged', capacity: 10_000 },   // ms of audio
 *   connect: async (_attempt, signal, info) => {
 *     const ws = await openWebSocket(new WebSocket(url, { headers }), { signal, label: 'acme.STT' });
 *     const messages = (async function* () {
 *       for await (const m of ws.messages) yield { result: parse(m), offsetMs: info.resumeFrom };
 *     })();
 *     return { send: ws.send, close: ws.close, messages };
 *   },
 * });
 * pushFrame = (frame) => socket.send(toBytes(frame), { size: frame.durationMs });
 * for await (const { result, offsetMs } of socket) {
 *   if (result.isFinal) socket.acknowledge(offsetMs + result.endMs);   // no replay of that audio
 * }
 * socket.end('{"type":"CloseStream"}');   // in endInput(): the provider's close then ends the loop
 * ```
 * Messages that only make sense on the current connection (keep-alives) are sent with
 * `{ replay: false }`; per-connection setup belongs in `connect`. `replay: { mode: 'window' }` keeps
 * the last `capacity` instead, for providers that acknowledge nothing. `ReplayBuffer` is usable on
 * its own for other transports.
 */
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

// The provider specification (v1) and what implementing it takes: audio, bounded streams, typed errors.
export {
  countWords,
  SentenceStream,
  SentenceTokenizer,
  type SentenceTokenizerOptions,
} from '../adapters/sentence-tokenizer.js';
export { STTStreamAdapter, type STTStreamAdapterOptions } from '../adapters/stt-stream-adapter.js';
export { TTSStreamAdapter, type TTSStreamAdapterOptions } from '../adapters/tts-stream-adapter.js';
export {
  concatenateFrames,
  FrameChunker,
  frameToBytes,
  int16FromBytes,
  rmsDbfs,
  silenceLike,
  splitFrame,
  toMono,
  type FrameChunkerOptions,
} from '../audio/frame-utils.js';
export { AudioResampler, type AudioResamplerOptions, type ResamplerQuality } from '../audio/resampler.js';
export { decodeWav, encodeWav, WavDecoder, type WavFormat } from '../audio/wav.js';
export {
  APIConnectionError,
  APIError,
  APIStatusError,
  APITimeoutError,
  ChannelClosedError,
  InvalidAudioError,
  isAbortError,
  isRetryableStatus,
  ProviderProblemError,
  VoxwireError,
  WavFormatError,
  type APIErrorOptions,
} from '../errors.js';
export { toLLMMessages } from '../llm/llm-messages.js';
export { isSecretKey, REDACTED, redactLogText, redactLogValue } from '../log/redact.js';
export type { PlaybackEvent, PlaybackFinished } from '../providers/audio-io.js';
export {
  SPECIFICATION_VERSION,
  type ProviderCallOptions,
  type ProviderProblem,
  type SpecificationVersion,
  type TimedWord,
} from '../providers/common.js';
export type {
  LLMChatOptions,
  LLMContentPart,
  LLMMessage,
  LLMStreamPart,
  LLMToolCall,
  LLMUsage,
  ToolChoice,
  ToolDefinition,
} from '../providers/llm.js';
export type {
  BatchSTT,
  SpeechAlternative,
  StreamingSTT,
  STTEvent,
  STTStream,
  STTStreamOptions,
} from '../providers/stt.js';
export type { BatchTTS, StreamingTTS, SynthesizedAudio, TTSStream } from '../providers/tts.js';
export type { ConversationTurn } from '../providers/turn-detector.js';
export type { VADEvent, VADStream } from '../providers/vad.js';
export { Channel, type ChannelOptions, type OverflowPolicy } from '../stream/channel.js';
export { abortReason } from '../time/clock.js';
export { createIdGenerator, processId } from '../utils/ids.js';
export { AudioOutputBase } from '../voice/io/audio-output-base.js';
export { NullAudioOutput } from '../voice/io/null-audio-output.js';

// Also here, so a provider imports from one place: the contract types a session holds, the clock, the
// frame and the typed errors (the same classes as the main entry's, so `instanceof` holds across both).
export { AudioFrame, type AudioFrameLike } from '../audio/audio-frame.js';
export type { AudioInput, AudioOutput, TextOutput } from '../providers/audio-io.js';
export type { LLM } from '../providers/llm.js';
export type { STT } from '../providers/stt.js';
export type { TTS } from '../providers/tts.js';
export type { TurnDetector } from '../providers/turn-detector.js';
export type { VAD } from '../providers/vad.js';
export { type Clock, RealClock, realClock, type TimerHandle } from '../time/clock.js';
export { VirtualClock, type VirtualClockOptions } from '../time/virtual-clock.js';
