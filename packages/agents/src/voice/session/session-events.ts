import type { ChatItem, FunctionCall, FunctionCallOutput } from '../../llm/chat-context.js';
import type { LLMUsage } from '../../providers/llm.js';
import type { DtmfReceivedEvent } from './dtmf.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { UserState } from '../turn/user-turn-tracker.js';

export type AgentState = 'initializing' | 'idle' | 'listening' | 'thinking' | 'speaking';

export type ErrorSource =
  | 'stt'
  | 'llm'
  | 'tts'
  | 'vad'
  | 'turn_detector'
  | 'tool'
  | 'audio_input'
  | 'audio_output'
  | 'session';

/** Per-turn and per-request measurements, all in ms. */
export type SessionMetrics =
  | {
      type: 'eou';
      turnId: string;
      /** From the end of the user's speech to the commit of the turn. */
      endOfUtteranceDelayMs: number;
      /** From the end of the user's speech to the final transcript. */
      transcriptionDelayMs: number | undefined;
    }
  | {
      type: 'llm';
      speechId: string;
      label: string;
      ttftMs: number | undefined;
      durationMs: number;
      /** Completion tokens per second of generation after the first token, when usage is reported. */
      tokensPerSecond: number | undefined;
      usage: LLMUsage | undefined;
    }
  | { type: 'tts'; speechId: string; label: string; ttfbMs: number }
  | {
      type: 'turn';
      turnId: string;
      speechId: string;
      /** From the end of the user's speech to the first frame of the reply. */
      endToEndLatencyMs: number;
    };

export type SessionEvents = {
  user_state_changed: { oldState: UserState; newState: UserState; atMs: number };
  agent_state_changed: { oldState: AgentState; newState: AgentState; atMs: number };
  user_input_transcribed: {
    transcript: string;
    isFinal: boolean;
    language: string | undefined;
    atMs: number;
  };
  conversation_item_added: { item: ChatItem; atMs: number };
  speech_created: { speechHandle: SpeechHandle; source: SpeechHandle['source']; atMs: number };
  function_tools_executed: {
    speechId: string;
    functionCalls: FunctionCall[];
    functionCallOutputs: FunctionCallOutput[];
    atMs: number;
  };
  agent_false_interruption: { speechId: string; resumed: boolean; atMs: number };
  metrics_collected: { metrics: SessionMetrics; atMs: number };
  /** A keypad key the user pressed, delivered by the transport through `session.receiveDtmf()`. */
  dtmf_received: DtmfReceivedEvent;
  error: { error: unknown; source: ErrorSource; recoverable: boolean; atMs: number };
  close: { reason: string; error: unknown; atMs: number };
};
