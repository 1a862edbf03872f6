import type {
  LocalInterruptionDetectorOptions,
  SessionDeadlines,
  TurnHandlingOptions,
} from '@voxwire/agents';
import type { LLMReply, ReplyMatch } from './fakes/llm.js';

/**
 * A whole conversation as plain data: what the user says and when, how the providers behave in time,
 * what the tools do, which faults strike, and what the application calls. JSON in, JSON out, so a bug
 * report becomes a file that replays exactly. Every time is in ms from the start of the session.
 */
export interface Scenario {
  name?: string;
  description?: string;
  session?: SessionSpec;
  /** Input frame length. Default 20 ms. */
  frameMs?: number;
  vad?: VADSpec;
  stt?: STTSpec;
  /** Without it, endpointing uses the minimum delay. */
  turnDetector?: TurnDetectorSpec;
  llm?: { replies?: ScenarioReply[]; fallback?: LLMReply };
  tts?: TTSSpec;
  output?: OutputSpec;
  /** The first one starts the session. Default: one agent named `assistant` with every tool. */
  agents?: AgentSpec[];
  tools?: ToolSpec[];
  tasks?: TaskSpec[];
  user?: UserSpeech[];
  actions?: SessionAction[];
  faults?: Fault[];
  /**
   * Close the session at this time. Default: once the conversation has been quiet for a while after
   * the last scripted moment (bounded by `settleTimeoutMs`).
   */
  endMs?: number;
  /** Longest wait for the conversation to settle after the last scripted moment. Default 60000. */
  settleTimeoutMs?: number;
  /** Fraction by which the seed varies provider latencies (0..1). Default 0: exact timings. */
  jitter?: number;
}

/** The session's deadlines (`llmFirstChunkTimeoutMs`, `playoutGraceMs`...): the session's defaults otherwise. */
export interface SessionSpec extends Partial<SessionDeadlines> {
  /** `interruptionDetector` is set with the field below (a detector is not plain data). */
  turnHandling?: Partial<Omit<TurnHandlingOptions, 'interruptionDetector'>>;
  /**
   * `turnHandling.interruptionDetector`: the local default (absent, `'local'`, or its options), or
   * `'none'` for the plain thresholds.
   */
  interruptionDetector?: 'local' | 'none' | LocalInterruptionDetectorOptions;
  maxToolSteps?: number;
  /** The session's default limit for tools without their own `timeoutMs`. */
  toolTimeoutMs?: number;
  /** `null` disables. Default: the session's own default. */
  userAwayTimeout?: number | null;
  closeTimeout?: number;
  interruptedPlayoutTimeout?: number;
  playoutWatchdogSlack?: number;
}

export interface VADSpec {
  minSpeechMs?: number;
  minSilenceMs?: number;
  windowMs?: number;
}

export interface STTSpec {
  finalDelayMs?: number;
  endSilenceMs?: number;
  interimIntervalMs?: number;
  interimDelayMs?: number;
  speechEvents?: boolean;
}

export interface TurnDetectorSpec {
  latencyMs?: number;
  probability?: number;
  rules?: Array<{ text: string; probability: number }>;
  threshold?: number;
}

export interface TTSSpec {
  ttfbMs?: number;
  msPerChar?: number;
  frameMs?: number;
  realtimeFactor?: number;
  streaming?: boolean;
  failOn?: string[];
}

export interface OutputSpec {
  bufferMs?: number;
  canPause?: boolean;
  finishLagMs?: number;
  neverFinish?: boolean;
}

/** A scripted model reply; `match.agent` selects replies by the agent (or task) making the request. */
export type ScenarioReply = Omit<LLMReply, 'match'> & { match?: ReplyMatch & { agent?: string } };

export interface UserSpeech {
  startMs: number;
  endMs: number;
  /** What the user says; '' for a noise the recognizer makes nothing of. */
  transcript: string;
  /** From the end of the speech to its final transcript. Default: the STT's. */
  sttDelayMs?: number;
  /**
   * From the end of the speech to the recognizer's eager end of turn (a `preflight_transcript` of the
   * same text), when it comes before the final. Default: none.
   */
  sttPreflightMs?: number;
  emptyFinal?: boolean;
  noFinal?: boolean;
}

export type Greeting =
  | { say: string; allowInterruptions?: boolean }
  | { generateReply: { instructions?: string; userInput?: string } };

export interface AgentSpec {
  name: string;
  instructions?: string;
  /** Tool names; default every tool of the scenario. */
  tools?: string[];
  onEnter?: Greeting;
  /** `onEnter` starts this task (awaited in the background of the hook, as an agent asking for details). */
  onEnterTask?: string;
  /** User turns containing any of these get no reply (`StopResponse` in `onUserTurnCompleted`). */
  skipTurnsContaining?: string[];
  /** The agent's default for the speeches it creates (`new Agent({ allowInterruptions })`). */
  allowInterruptions?: boolean;
  /**
   * What `onUserTurnExceeded` does when a turn outlasts `turnHandling.maxUserTurnDuration`: say
   * something, commit the turn (answer what was said so far), or keep listening (the default).
   */
  onUserTurnExceeded?: { say: string; allowInterruptions?: boolean } | 'commit' | 'listen';
}

/** An AgentTask awaited by a tool: it takes over the conversation until it completes. */
export interface TaskSpec extends AgentSpec {
  /**
   * `user_turn` (default): completes with the next user turn's text (the turn gets no reply of its own);
   * `afterMs`: completes by itself after that long; `error`: completes with an error.
   */
  completeOn?: 'user_turn' | { afterMs: number } | { error: string; afterMs?: number };
  /** Result returned to the awaiting tool instead of the user's text. */
  result?: string;
  /**
   * With `completeOn: 'user_turn'`: the turn that completes the task is answered too (no `StopResponse`),
   * by the agent in charge once the task has handed the conversation back.
   */
  answerCompletingTurn?: boolean;
}

export type ToolStep =
  | { sleep: number }
  | { say: string; allowInterruptions?: boolean; wait?: boolean }
  | { disallowInterruptions: true }
  | { task: string }
  | { waitForPlayout: true }
  | { throw: string; toolError?: boolean };

export interface ToolSpec {
  name: string;
  description?: string;
  steps?: ToolStep[];
  /** The tool's output. Default `"<name> done"`. */
  result?: string;
  /** Return this agent: the conversation is handed to it. */
  handoff?: string;
  /** Keep running when the speech is interrupted (sleeps ignore the cancellation signal). */
  ignoresCancellation?: boolean;
  /** The tool's `timeoutMs`. */
  timeoutMs?: number;
}

export type SessionAction =
  | { atMs: number; type: 'say'; text: string; allowInterruptions?: boolean; addToChatCtx?: boolean }
  | {
      atMs: number;
      type: 'generate_reply';
      userInput?: string;
      instructions?: string;
      allowInterruptions?: boolean;
    }
  | { atMs: number; type: 'interrupt'; force?: boolean }
  /** `handle.interrupt()` on the latest speech created (which may be done already). */
  | { atMs: number; type: 'interrupt_speech'; force?: boolean }
  | { atMs: number; type: 'update_agent'; agent: string }
  | { atMs: number; type: 'commit_user_turn' }
  | { atMs: number; type: 'clear_user_turn' }
  | { atMs: number; type: 'close'; reason?: string }
  /** `session.input.setAudioEnabled(enabled)`. */
  | { atMs: number; type: 'set_input_enabled'; enabled: boolean }
  /** `session.output.setAudioEnabled(enabled)`. */
  | { atMs: number; type: 'set_output_enabled'; enabled: boolean }
  /** `session.input.audio = another microphone` that goes on with the same script. */
  | { atMs: number; type: 'swap_input' }
  /** `session.run({ userInput })`: a text turn in the middle of the spoken conversation. */
  | { atMs: number; type: 'run_text'; userInput: string };

export type FaultTarget =
  | 'llm'
  | 'tts'
  | 'stt'
  | 'vad'
  | 'turn_detector'
  | 'input'
  | 'bad_frame'
  | 'llm_stall'
  | 'tts_stall'
  | 'stt_stall'
  | 'capture_stall';

/**
 * `llm`/`tts`/`turn_detector`: requests in flight fail and new ones fail for `durationMs`; `stt`: the
 * connection drops (and cannot be reopened for `durationMs`); `vad`: the stream fails; `input`: the
 * microphone goes away for good; `bad_frame`: the microphone sends one malformed frame (0 Hz), then goes on.
 *
 * Hung providers, which never raise an error: `llm_stall`: requests in flight stop mid-stream and new
 * ones send nothing, for good; `tts_stall`: syntheses in flight stop producing audio and new ones produce
 * none; `stt_stall`: recognition streams take audio but never report again; `capture_stall`: the audio
 * sink's `captureFrame` never returns. Requests or streams opened after `durationMs` work again.
 */
export interface Fault {
  atMs: number;
  target: FaultTarget;
  durationMs?: number;
}

/** The moment after which nothing more is scripted. */
export function lastScriptedMs(scenario: Scenario): number {
  let last = 0;
  for (const u of scenario.user ?? []) last = Math.max(last, u.endMs);
  for (const a of scenario.actions ?? []) last = Math.max(last, a.atMs);
  for (const f of scenario.faults ?? []) last = Math.max(last, f.atMs + (f.durationMs ?? 0));
  return last;
}

/** Rejects scenarios that cannot be run, with a message naming the field. */
export function validateScenario(scenario: Scenario): void {
  const user = scenario.user ?? [];
  user.forEach((u, i) => {
    if (!(u.startMs >= 0) || !(u.endMs > u.startMs)) {
      throw new RangeError(`user[${i}]: needs 0 <= startMs < endMs, got ${u.startMs}..${u.endMs}`);
    }
  });
  const names = new Set<string>();
  for (const a of [...(scenario.agents ?? []), ...(scenario.tasks ?? [])]) {
    if (names.has(a.name)) throw new RangeError(`agent or task name "${a.name}" is used twice`);
    names.add(a.name);
  }
  for (const a of scenario.actions ?? []) {
    if (!(a.atMs >= 0)) throw new RangeError(`action ${a.type}: atMs must be >= 0`);
  }
}
