/**
 * Fine-grained records of what the session did, in order, each stamped with the session clock. They are
 * the raw material of the invariant checker and of readable timelines; production code can log them.
 * Public events (`user_state_changed`, ...) are not repeated here.
 */
export type SpeechOutcome = 'played' | 'interrupted' | 'failed';
/** `superseded`: a reply to an older turn, not heard yet, dropped because the user moved on. */
export type InterruptReason =
  | 'user_speech'
  | 'user_words'
  | 'user_turn'
  | 'superseded'
  | 'api'
  | 'forced'
  | 'close';

export type TraceRecord =
  | { type: 'speech_queued'; speechId: string; priority: number }
  | { type: 'speech_authorized'; speechId: string; step: number }
  | { type: 'speech_released'; speechId: string; step: number }
  | { type: 'speech_frame'; speechId: string; durationMs: number; allowInterruptions: boolean }
  | { type: 'speech_paused'; speechId: string }
  | { type: 'speech_resumed'; speechId: string; falseInterruption: boolean }
  /** The interruption detector heard an acknowledgement over the speech: it resumes instead of a cut. */
  | { type: 'backchannel_detected'; speechId: string }
  | { type: 'speech_interrupt_requested'; speechId: string; force: boolean; reason: InterruptReason }
  | {
      type: 'speech_interrupted';
      speechId: string;
      reason: InterruptReason;
      /** Duration of the user speech that triggered it, when user speech did. */
      userSpeechMs?: number;
      userWords?: number;
    }
  | { type: 'speech_done'; speechId: string; outcome: SpeechOutcome; error?: string }
  | { type: 'vad_start_of_speech'; speechStartMs: number }
  | { type: 'vad_end_of_speech'; lastSpeechMs: number }
  | { type: 'vad_restarted'; error: string }
  | { type: 'stt_restarted'; error: string }
  | { type: 'endpointing_started'; lastSpeechMs: number; minDelayMs: number; maxDelayMs: number }
  | { type: 'end_of_turn_prediction'; probability: number | undefined; delayMs: number; error?: string }
  | {
      type: 'user_turn_committed';
      turnId: string;
      transcript: string;
      lastSpeechMs: number | undefined;
      /** A turn given as text (`session.run()`): no speech of it was heard, so it cuts nothing. */
      text?: boolean;
    }
  | { type: 'user_turn_skipped'; turnId: string; reason: string }
  /** The pending user turn reached `maxUserTurnDuration`; the agent's `onUserTurnExceeded` decides. */
  | { type: 'user_turn_exceeded'; transcript: string; durationMs: number; userSpeaking: boolean }
  | { type: 'reply_started'; turnId: string | undefined; speechId: string }
  /** `preemptiveGeneration`: an LLM request started on a final transcript before the turn commits. */
  | { type: 'preemptive_generation_started'; transcript: string }
  /** The speculative request was dropped (the user went on, the text or the context changed, a skip). */
  | { type: 'preemptive_generation_discarded'; transcript: string; reason: string }
  /** A reply streams the speculative request instead of making its own. */
  | { type: 'preemptive_generation_used'; speechId: string }
  | { type: 'tool_started'; speechId: string; callId: string; name: string }
  /** The model gave an id already in use: the call runs and is recorded under `callId` instead. */
  | { type: 'tool_call_renamed'; speechId: string; modelCallId: string; callId: string; name: string }
  /** A call recorded as cancelled returned a value after all; its output now holds that value. */
  | { type: 'tool_result_after_cut'; speechId: string; callId: string; name: string }
  /** A call the model made that does not run: a repeat within its response, or a re-emitted call. */
  | {
      type: 'tool_call_skipped';
      speechId: string;
      callId: string;
      name: string;
      reason: 'repeated_in_response' | 'already_answered' | 'already_running';
    }
  | {
      type: 'tool_finished';
      speechId: string;
      callId: string;
      name: string;
      outcome: 'ok' | 'error' | 'cancelled';
    }
  | { type: 'interruption_hold'; speechId: string; holds: number }
  | { type: 'task_started'; taskId: string; parentSpeechId: string | undefined }
  | { type: 'task_finished'; taskId: string; outcome: 'completed' | 'failed' | 'cancelled' }
  | { type: 'audio_input_ended' }
  /** `session.input.setAudioEnabled()`: while disabled, input frames reach neither the VAD nor the STT. */
  | { type: 'audio_input_enabled'; enabled: boolean }
  /** `session.input.audio = source`: the session listens to another source (or to none). */
  | { type: 'audio_input_source_changed'; attached: boolean }
  /** `session.output.setAudioEnabled()`: while disabled, speech steps that start are text-only. */
  | { type: 'audio_output_enabled'; enabled: boolean }
  | { type: 'close_requested'; reason: string };

export type TimedTraceRecord = TraceRecord & { atMs: number };
export type TraceSink = (record: TimedTraceRecord) => void;
