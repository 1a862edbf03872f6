import type { AudioFrame } from '../../audio/audio-frame.js';
import { SessionClosedError, SessionNotStartedError } from '../../errors.js';
import { ChatContext } from '../../llm/chat-context.js';
import type { LLM, ToolChoice } from '../../providers/llm.js';
import type { STT } from '../../providers/stt.js';
import type { TTS } from '../../providers/tts.js';
import type { TurnDetector } from '../../providers/turn-detector.js';
import type { VAD } from '../../providers/vad.js';
import { type Clock, realClock } from '../../time/clock.js';
import { createIdGenerator, type IdGenerator } from '../../utils/ids.js';
import { TypedEmitter } from '../../utils/typed-emitter.js';
import type { Agent } from '../agent/agent.js';
import type { AgentTask } from '../agent/agent-task.js';
import type { AudioInput, AudioOutput, TextOutput } from '../../providers/audio-io.js';
import { type TurnHandlingOptions, resolveTurnHandling } from './options.js';
import { resolveDeadlines, type SessionDeadlines } from './deadlines.js';
import type { RunContext } from '../tools/run-context.js';
import { assertTimeout } from '../tools/tool.js';
import type { AgentState, ErrorSource, SessionEvents } from './session-events.js';
import { SessionRuntime } from './session-runtime.js';
import { type DtmfInput, dtmfEvent } from './dtmf.js';
import { SessionInput, SessionOutput } from '../io/session-io.js';
import type { RunResult } from '../run/run-result.js';
import type { RunOptions } from './text-run.js';
import { SpeechHandle, SpeechPriority } from '../speech/speech-handle.js';
import type { TraceSink } from './trace.js';
import type { UserState } from '../turn/user-turn-tracker.js';

export interface AgentSessionOptions<UserData = unknown> {
  vad?: VAD;
  stt?: STT;
  llm?: LLM;
  tts?: TTS;
  turnDetector?: TurnDetector;
  /** Time source for every timer and timestamp. Default: the real clock. Tests pass a VirtualClock. */
  clock?: Clock;
  userData?: UserData;
  turnHandling?: Partial<TurnHandlingOptions>;
  /** LLM rounds per reply, counting the first. Default 3. */
  maxToolSteps?: number;
  /**
   * Longest a tool call may run, in ms, for tools without their own `timeoutMs`. A call that takes
   * longer returns a timeout error to the model and emits an `error` (source `tool`). Default: no limit.
   */
  toolTimeoutMs?: number;
  /** Mutual silence after which the user is `away`, in ms; `null` disables. Default 15000. */
  userAwayTimeout?: number | null;
  /** Longest `close()` may take, in ms. Default 5000. */
  closeTimeout?: number;
  /** How long an interrupted segment may take to report that playback stopped. Default 1000 ms. */
  interruptedPlayoutTimeout?: number;
  /** @deprecated Use `playoutGraceMs`. */
  playoutWatchdogSlack?: number;
  /**
   * Slack on top of the audio's own duration (counted from its first frame, pauses excluded) for the
   * audio output: a `captureFrame` that has not returned, or a playback-finished report that has not come,
   * by then is given up on (an `audio_output` error) and the agent listens again. Default 2000.
   */
  playoutGraceMs?: number;
  /** Longest wait for the first chunk of a reply step from the LLM, in ms. Default 15000. */
  llmFirstChunkTimeoutMs?: number;
  /** Longest gap between two chunks of a streaming LLM reply, in ms. Default 10000. */
  llmChunkTimeoutMs?: number;
  /**
   * Longest wait for a synthesis's first audio once it has all its text, in ms (before that it may wait
   * for more words). Default 10000.
   */
  ttsFirstAudioTimeoutMs?: number;
  /** Longest gap in a synthesis's audio once it has all its text, in ms. Default 5000. */
  ttsAudioTimeoutMs?: number;
  /**
   * Longest an STT stream may leave speech it was given unanswered (no final transcript) once the user
   * stopped (the VAD's end of speech), or after its last interim, in ms; it is then restarted with a
   * recoverable `stt` error. Nothing is owed while the user still speaks, nor for silence. Needs a VAD.
   * Default 10000.
   */
  sttResponseTimeoutMs?: number;
  /** Language hint for STT and the turn detector (BCP-47). */
  language?: string;
  /** Receives fine-grained records of what the session does (see `TraceRecord`). */
  onTrace?: TraceSink;
  /** Id generator; the default is deterministic per session so simulations replay exactly. */
  ids?: IdGenerator;
}

export interface SessionStartOptions {
  agent: Agent;
  input?: { audio?: AudioInput };
  output?: { audio?: AudioOutput; text?: TextOutput };
}

export interface SayOptions {
  /** Default: the `allowInterruptions` of the agent in charge (true unless the agent says otherwise). */
  allowInterruptions?: boolean;
  /** Add what was said to the conversation. Default true. */
  addToChatCtx?: boolean;
  /** Play this audio instead of synthesizing the text. */
  audio?: AsyncIterable<AudioFrame>;
}

export interface GenerateReplyOptions {
  /** Text to add as a user message before replying. */
  userInput?: string;
  /** Extra instructions for this reply only. */
  instructions?: string;
  toolChoice?: ToolChoice;
  /** Default: the `allowInterruptions` of the agent in charge (true unless the agent says otherwise). */
  allowInterruptions?: boolean;
}

/**
 * A conversation between a user and an agent: audio in, turns, replies with tools, audio out. The parts
 * (input pipeline, turn tracker, interruption policy, speech scheduler, reply pipeline, tool runner) live
 * in their own modules; this facade holds the public API and its rules (closed sessions refuse calls).
 */
export class AgentSession<UserData = unknown> extends TypedEmitter<SessionEvents> {
  readonly clock: Clock;
  readonly options: Readonly<AgentSessionOptions<UserData>>;
  readonly turnHandling: TurnHandlingOptions;
  /** @internal What the session waits for, and how long (resolved from the options). */
  readonly deadlines: SessionDeadlines;
  /** Everything said and done in the conversation, across agents. */
  readonly history = new ChatContext();
  /** The user's audio: turn listening off and on, swap the source. */
  readonly input: SessionInput;
  /** The agent's audio: mute it for text-only replies. */
  readonly output: SessionOutput;
  userData: UserData;
  /** @internal */
  readonly ids: IdGenerator;
  private runtime: SessionRuntime | undefined;
  private closing: Promise<void> | undefined;
  private closedFlag = false;

  constructor(options: AgentSessionOptions<UserData> = {}) {
    super();
    this.options = options;
    this.clock = options.clock ?? realClock();
    this.turnHandling = resolveTurnHandling(options.turnHandling);
    this.deadlines = resolveDeadlines(options);
    this.userData = options.userData as UserData;
    this.ids = options.ids ?? createIdGenerator();
    this.input = new SessionInput((method) => this.assertOpen(method));
    this.output = new SessionOutput((method) => this.assertOpen(method));
    const maxToolSteps = options.maxToolSteps ?? 3;
    if (!Number.isInteger(maxToolSteps) || maxToolSteps < 1) {
      throw new RangeError(`maxToolSteps must be a positive integer, got ${maxToolSteps}`);
    }
    if (options.toolTimeoutMs !== undefined) assertTimeout('toolTimeoutMs', options.toolTimeoutMs);
    this.onListenerError = (error, eventName) => {
      if (eventName !== 'error') this.reportError('session', error, true);
    };
  }

  get closed(): boolean {
    return this.closedFlag || this.closing !== undefined;
  }

  get userState(): UserState {
    return this.runtime?.userState ?? 'listening';
  }

  get agentState(): AgentState {
    return this.runtime?.agentState ?? 'initializing';
  }

  /** The agent currently in charge of the conversation. */
  get currentAgent(): Agent | undefined {
    return this.runtime?.agent;
  }

  /** The speech currently holding the audio output, if any. */
  get currentSpeech(): SpeechHandle | undefined {
    return this.runtime?.currentSpeech;
  }

  async start(options: SessionStartOptions): Promise<void> {
    this.assertOpen('start');
    if (this.runtime) throw new Error('AgentSession.start() was already called');
    const audio = options.input?.audio ?? this.input.audio;
    this.runtime = new SessionRuntime(
      this,
      { ...options, input: { audio } },
      {
        inputEnabled: this.input.audioEnabled,
        outputEnabled: this.output.audioEnabled,
      },
    );
    this.input.attach(this.runtime, audio);
    this.output.attach(this.runtime);
    await this.runtime.start();
  }

  /** Speaks `text` (or streamed text, or given audio). Returns at once; await the handle for playout. */
  say(text: string | AsyncIterable<string>, options: SayOptions = {}): SpeechHandle {
    const runtime = this.requireRuntime('say');
    const handle = this.createHandle('say', options.allowInterruptions ?? runtime.agent.allowInterruptions);
    runtime.startSay(handle, { text, audio: options.audio, addToChatCtx: options.addToChatCtx ?? true });
    return handle;
  }

  /** Asks the LLM for a reply now (optionally to `userInput`). */
  generateReply(options: GenerateReplyOptions = {}): SpeechHandle {
    const runtime = this.requireRuntime('generateReply');
    if (options.userInput !== undefined) {
      runtime.addItem(runtime.newUserMessage(options.userInput));
    }
    const handle = this.createHandle(
      'generate_reply',
      options.allowInterruptions ?? runtime.agent.allowInterruptions,
    );
    runtime.startReply(handle, { instructions: options.instructions, toolChoice: options.toolChoice });
    return handle;
  }

  /**
   * Runs one user turn given as text through the real session (no audio needed) and resolves, once the
   * conversation rests, with what it set off: messages, tool calls and outputs, handoffs and AgentTasks
   * taking over. The way to unit-test an agent: `result.expect.nextEvent().isFunctionCall({ name })`.
   * The turn is answered like a spoken one (`onUserTurnCompleted` runs, an AgentTask waiting for the
   * user takes it); a run that starts while an agent is being entered is answered by that agent.
   */
  async run(options: RunOptions): Promise<RunResult> {
    return this.requireRuntime('run').run(options);
  }

  /**
   * Interrupts the current and queued speeches. Without `force`, uninterruptible ones are left alone.
   * Resolves when the interrupted speeches have stopped.
   */
  async interrupt(options: { force?: boolean } = {}): Promise<void> {
    const runtime = this.requireRuntime('interrupt');
    await runtime.interruptAll(options.force ?? false, options.force ? 'forced' : 'api');
  }

  /** Ends the user's turn now (manual turn detection, push-to-talk). */
  commitUserTurn(): void {
    this.requireRuntime('commitUserTurn').commitUserTurn();
  }

  /** Discards what the user said since the last committed turn. */
  clearUserTurn(): void {
    this.requireRuntime('clearUserTurn').clearUserTurn();
  }

  /** Hands the conversation to another agent: the old one exits, the new one enters. */
  async updateAgent(agent: Agent): Promise<void> {
    await this.requireRuntime('updateAgent').handoff(agent);
  }

  /**
   * For transports: the user pressed a keypad key (a SIP caller's DTMF tone). Emits `dtmf_received`,
   * stamped with the session's clock; works before `start()`, is ignored once the session is closed.
   * Throws a `RangeError` for a digit that is not a DTMF key (`0`-`9`, `*`, `#`, `A`-`D`).
   */
  receiveDtmf(input: DtmfInput): void {
    const event = dtmfEvent(input, this.clock.now());
    if (!this.closed) this.emit('dtmf_received', event);
  }

  /** @internal Runs an AgentTask awaited inside a tool or hook, and returns its result. */
  runTask<Result>(
    task: AgentTask<Result>,
    runContext: RunContext | undefined,
    requester?: Agent,
  ): Promise<Result> {
    return this.requireRuntime('runTask').runTask(task, runContext, requester);
  }

  /**
   * Ends the session within `closeTimeout`: speeches are cut (a partly played reply is recorded as
   * interrupted), tools are cancelled, awaited tasks and speeches settle, streams close.
   */
  close(reason = 'closed by the application'): Promise<void> {
    this.closing ??= this.doClose(reason);
    return this.closing;
  }

  /** @internal */
  reportError(source: ErrorSource, error: unknown, recoverable: boolean): void {
    this.emit('error', { error, source, recoverable, atMs: this.clock.now() });
  }

  private async doClose(reason: string): Promise<void> {
    const runtime = this.runtime;
    try {
      if (runtime) await runtime.close(reason, this.options.closeTimeout ?? 5000);
    } finally {
      this.closedFlag = true;
      this.emit('close', { reason, error: undefined, atMs: this.clock.now() });
    }
  }

  private createHandle(source: SpeechHandle['source'], allowInterruptions: boolean): SpeechHandle {
    return new SpeechHandle({
      id: this.ids('speech'),
      allowInterruptions,
      source,
      priority: SpeechPriority.normal,
    });
  }

  private requireRuntime(method: string): SessionRuntime {
    this.assertOpen(method);
    if (!this.runtime)
      throw new SessionNotStartedError(
        `AgentSession.${method}() needs a started session: call start() first`,
      );
    return this.runtime;
  }

  private assertOpen(method: string): void {
    if (this.closed) throw new SessionClosedError(`AgentSession.${method}() was called on a closed session`);
  }
}
