import type {
  AgentSession,
  SessionDeadlines,
  ChatItem,
  Clock,
  SessionMetrics,
  TimedTraceRecord,
  TurnHandlingOptions,
} from '@voxwire/agents';
import type { OutputRecord } from './fakes/audio-io.js';
import { clonePlain } from './clone.js';

/** Parameters the checker needs to judge a log; recorded first so a log can be judged on its own. */
export interface SimConfig {
  frameMs: number;
  vad: { minSpeechMs: number; minSilenceMs: number; windowMs: number };
  turnHandling: TurnHandlingOptions;
  interruptedPlayoutTimeoutMs: number;
  playoutWatchdogSlackMs: number;
  closeTimeoutMs: number;
  userAwayTimeoutMs: number | null;
  output: { bufferMs: number; canPause: boolean; finishLagMs: number; neverFinish: boolean };
  tts: { msPerChar: number };
  /** The session's deadlines. Absent from logs recorded before they existed: the defaults apply. */
  deadlines?: SessionDeadlines;
}

type Timed<T> = T & { atMs: number };

/** Public session events, made serializable (a SpeechHandle becomes its id, an error its name and message). */
export type EventEntry = Timed<
  | { src: 'event'; type: 'user_state_changed'; oldState: string; newState: string }
  | { src: 'event'; type: 'agent_state_changed'; oldState: string; newState: string }
  | { src: 'event'; type: 'user_input_transcribed'; transcript: string; isFinal: boolean }
  | { src: 'event'; type: 'conversation_item_added'; item: ChatItem }
  | { src: 'event'; type: 'speech_created'; speechId: string; source: string; allowInterruptions: boolean }
  | {
      src: 'event';
      type: 'function_tools_executed';
      speechId: string;
      callIds: string[];
      outputs: Array<{ callId: string; output: string; isError: boolean }>;
    }
  | { src: 'event'; type: 'agent_false_interruption'; speechId: string; resumed: boolean }
  | { src: 'event'; type: 'metrics_collected'; metrics: SessionMetrics }
  | {
      src: 'event';
      type: 'error';
      source: string;
      recoverable: boolean;
      error: { name: string; message: string };
    }
  | { src: 'event'; type: 'close'; reason: string }
>;

export type TraceEntry = TimedTraceRecord & { src: 'trace' };

/** What the simulation harness saw happen around the session. */
export type SimRecord =
  | { type: 'sim_config'; config: SimConfig; scenario: string | undefined; seed: number }
  | { type: 'user_speech_start'; segment: number; transcript: string; endMs: number }
  | { type: 'user_speech_end'; segment: number }
  | { type: 'stt_fed_silence'; segment: number }
  | { type: 'stt_fed_speech'; segment: number }
  | { type: 'vad_fed_silence'; segment: number }
  | (OutputRecord & { speechId: string | undefined })
  /** `agent`: the scenario agent (or task) whose instructions the request carries. */
  | { type: 'llm_request'; reply: number; lastItem: string; agent: string | undefined }
  | { type: 'llm_tool_call'; callId: string; name: string; speechId: string | undefined }
  | { type: 'llm_error'; message: string }
  /** A provider went quiet without an error (a scripted hang or a stall fault). */
  | { type: 'provider_stall'; target: 'llm' | 'tts' | 'stt' }
  | { type: 'tts_synthesis'; text: string }
  | { type: 'tts_error'; message: string }
  | { type: 'fault'; target: string; durationMs: number }
  | { type: 'action'; action: string; detail?: string; speechId?: string }
  | { type: 'action_done'; action: string; error?: string; speechId?: string; detail?: string }
  | { type: 'tool_step'; callId: string; speechId: string; step: string; detail?: string }
  | { type: 'tool_say_done'; callId: string; speechId: string; outcome: string }
  | { type: 'task_await_start'; callId: string; speechId: string; taskId: string }
  | { type: 'task_await_end'; callId: string; speechId: string; taskId: string; outcome: string }
  | { type: 'task_complete'; taskId: string; result: string }
  | { type: 'turn_exceeded_hook'; agent: string; decision: string; transcript: string }
  | { type: 'playout_waited'; speechId: string; outcome: string }
  | {
      type: 'handle_interrupt_call';
      speechId: string;
      force: boolean;
      wasDone: boolean;
      returned: boolean;
      threw?: string;
    }
  | { type: 'sim_timer_error'; message: string }
  | { type: 'sim_close_timeout'; waitedMs: number }
  | { type: 'sim_pending'; what: string; detail: string }
  | {
      type: 'sim_end';
      simulatedMs: number;
      inputFrames: number;
      vadFrames: number;
      sttFrames: number;
      vadDroppedEvents: number;
      outputMaxQueuedMs: number;
    };

export type SimEntry = Timed<SimRecord & { src: 'sim' }>;

/** One line of a conversation log: a session event, a session trace record, or a harness record. */
export type LogEntry = EventEntry | TraceEntry | SimEntry;
export type LogEntryType = LogEntry['type'];
export type EntryOf<T extends LogEntryType> = Extract<LogEntry, { type: T }>;

export function errorInfo(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/**
 * Collects a session's events and trace records (and any harness records) into one time-ordered,
 * JSON-serializable log. Works on a real session too: pass `recorder.onTrace` as the session's
 * `onTrace` option and call `attach(session)` before `start()`.
 */
export class LogRecorder {
  readonly entries: LogEntry[] = [];

  constructor(private readonly clock: Clock) {}

  readonly onTrace = (record: TimedTraceRecord): void => {
    if (record.type === 'speech_frame') {
      // A speech traces every frame it plays: its entry is made in one shape (keys in the same order),
      // since spreading records of every kind at one site is V8's slow path.
      this.entries.push({
        type: 'speech_frame',
        speechId: record.speechId,
        durationMs: record.durationMs,
        allowInterruptions: record.allowInterruptions,
        atMs: record.atMs,
        src: 'trace',
      });
      return;
    }
    this.entries.push({ ...record, src: 'trace' } as TraceEntry);
  };

  sim(record: SimRecord): void {
    this.entries.push({ ...record, src: 'sim', atMs: this.clock.now() } as SimEntry);
  }

  attach(session: AgentSession): void {
    // Each entry is made whole at its own listener, `src` first: spreading every kind of event at one
    // shared site is V8's slow path.
    const push = (entry: Record<string, unknown>): void => {
      this.entries.push(entry as EventEntry);
    };
    session.on('user_state_changed', (e) => push({ src: 'event', type: 'user_state_changed', ...e }));
    session.on('agent_state_changed', (e) => push({ src: 'event', type: 'agent_state_changed', ...e }));
    session.on('user_input_transcribed', (e) =>
      push({
        src: 'event',
        type: 'user_input_transcribed',
        transcript: e.transcript,
        isFinal: e.isFinal,
        atMs: e.atMs,
      }),
    );
    session.on('conversation_item_added', (e) =>
      push({ src: 'event', type: 'conversation_item_added', item: clonePlain(e.item), atMs: e.atMs }),
    );
    session.on('speech_created', (e) =>
      push({
        src: 'event',
        type: 'speech_created',
        speechId: e.speechHandle.id,
        source: e.source,
        allowInterruptions: e.speechHandle.allowInterruptions,
        atMs: e.atMs,
      }),
    );
    session.on('function_tools_executed', (e) =>
      push({
        src: 'event',
        type: 'function_tools_executed',
        speechId: e.speechId,
        callIds: e.functionCalls.map((c) => c.callId),
        outputs: e.functionCallOutputs.map((o) => ({
          callId: o.callId,
          output: o.output,
          isError: o.isError,
        })),
        atMs: e.atMs,
      }),
    );
    session.on('agent_false_interruption', (e) =>
      push({ src: 'event', type: 'agent_false_interruption', ...e }),
    );
    session.on('metrics_collected', (e) =>
      push({ src: 'event', type: 'metrics_collected', metrics: clonePlain(e.metrics), atMs: e.atMs }),
    );
    session.on('error', (e) =>
      push({
        src: 'event',
        type: 'error',
        source: e.source,
        recoverable: e.recoverable,
        error: errorInfo(e.error),
        atMs: e.atMs,
      }),
    );
    session.on('close', (e) => push({ src: 'event', type: 'close', reason: e.reason, atMs: e.atMs }));
  }
}

/** The log as canonical JSON: one entry per line, so diffs between runs are readable. */
export function serializeLog(log: readonly LogEntry[]): string {
  return `[\n${log.map((entry) => JSON.stringify(entry)).join(',\n')}\n]\n`;
}
