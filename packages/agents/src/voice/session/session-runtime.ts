import { ProviderProblemError, SessionClosedError } from '../../errors.js';
import type { ChatItem, ChatMessage } from '../../llm/chat-context.js';
import { waitAtMost } from '../../utils/abortable.js';
import { ActiveAgent } from '../agent/active-agent.js';
import type { Agent } from '../agent/agent.js';
import type { AgentTask } from '../agent/agent-task.js';
import { AgentTransitions } from '../agent/agent-transitions.js';
import { InputPipeline } from '../input/input-pipeline.js';
import type { AudioInput, AudioOutput, TextOutput } from '../../providers/audio-io.js';
import type { AudioInputControl, AudioOutputControl } from '../io/session-io.js';
import { ConversationThreads } from '../speech/conversation-threads.js';
import { contextIdsOf, PreemptiveGeneration } from '../speech/preemptive-generation.js';
import { buildChatCtx, chatOptions } from '../speech/reply-pipeline.js';
import { PlayoutGate } from '../speech/playout-gate.js';
import type { ReplyRequest, SayRequest } from '../speech/reply-pipeline.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import { SpeechLauncher } from '../speech/speech-launcher.js';
import { SpeechScheduler } from '../speech/speech-scheduler.js';
import { TtsStreamOpener } from '../speech/tts-stream.js';
import { SpeakingRate } from '../speech/transcript-sync.js';
import type { RunContext } from '../tools/run-context.js';
import { ToolCallIds } from '../tools/tool-call-ids.js';
import { InterruptionPolicy } from '../turn/interruption-policy.js';
import {
  type CommittedTurn,
  type UserState,
  type UserTurnExceeded,
  UserTurnTracker,
} from '../turn/user-turn-tracker.js';
import { runAgentHook } from '../agent/agent-hooks.js';
import { ActivityState } from './activity-state.js';
import type { AgentSession, SessionStartOptions } from './agent-session.js';
import { ConversationLog } from './conversation-log.js';
import { errorSourceOf } from './error-source.js';
import { InFlightTasks } from './in-flight-tasks.js';
import { LatencyMetrics } from './latency-metrics.js';
import type { AgentState } from './session-events.js';
import { SessionReporter } from './session-reporter.js';
import type { InterruptReason } from './trace.js';
import { TurnResponder } from './turn-responder.js';
import type { RunResult } from '../run/run-result.js';
import { type RunOptions, runTextTurn } from './text-run.js';
import { UserInputRouter } from './user-input-router.js';

/**
 * A started session: it builds the parts and connects them, each to the few others it uses.
 *
 *   audio in -> InputPipeline -> VAD / STT events -> UserInputRouter -> UserTurnTracker (when the turn
 *   ends) and InterruptionPolicy (pause, resume or cut the agent's speech) -> committed turn ->
 *   TurnResponder -> SpeechLauncher -> reply pipeline (LLM, tools) -> SpeechScheduler (one step holds the
 *   output) -> speech playout (TTS, audio out).
 *
 * The tracker reports to the runtime, which is built around it; every other part gets the parts it calls
 * in its constructor. `ActivityState` derives the agent state from what the parts tell it. Every task the
 * session starts is tracked so `close()` ends them within its deadline.
 */
export class SessionRuntime implements AudioInputControl, AudioOutputControl {
  readonly audioOutput: AudioOutput | undefined;
  private outputEnabled: boolean;
  private readonly initialInputEnabled: boolean;
  readonly textOutput: TextOutput | undefined;
  private readonly audioInput: AudioInput | undefined;
  private readonly closeController = new AbortController();
  private readonly reporter: SessionReporter;
  private readonly agents: ActiveAgent;
  private readonly log: ConversationLog;
  private readonly inFlight: InFlightTasks;
  private readonly tracker: UserTurnTracker;
  private readonly activity: ActivityState;
  private readonly scheduler: SpeechScheduler;
  private readonly policy: InterruptionPolicy;
  private readonly input: InputPipeline;
  private readonly transitions: AgentTransitions;
  private readonly speeches: SpeechLauncher;
  private readonly responder: TurnResponder;
  /** The LLM request started for the pending turn (`preemptiveGeneration`), if any. */
  private preemptive: PreemptiveGeneration | undefined;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: the runtime serves sessions of any user data type.
    private readonly session: AgentSession<any>,
    options: SessionStartOptions,
    io: { inputEnabled: boolean; outputEnabled: boolean } = { inputEnabled: true, outputEnabled: true },
  ) {
    this.audioOutput = options.output?.audio;
    this.outputEnabled = io.outputEnabled;
    this.initialInputEnabled = io.inputEnabled;
    const runtime = this;
    this.textOutput = options.output?.text;
    this.audioInput = options.input?.audio;
    const clock = session.clock;
    const turnHandling = session.turnHandling;
    const closed = this.closeController.signal;
    const reporter = new SessionReporter(session);
    this.inFlight = new InFlightTasks((error) => reporter.error(errorSourceOf(error), error, true));
    const agents = new ActiveAgent(session, options.agent);
    const log = new ConversationLog(session, agents);
    const gate = new PlayoutGate();
    const threads = new ConversationThreads();
    const inFlight = this.inFlight;

    // Listening: the tracker and the policy act on what the input pipeline hears.
    const tracker = new UserTurnTracker({
      clock,
      options: turnHandling,
      providers: agents,
      ids: session.ids,
      reporter,
      // The parts that act on the tracker's news are built after it (they need it), so it reports here.
      listener: this,
    });
    const activity = new ActivityState({
      clock,
      userAwayTimeoutMs:
        session.options.userAwayTimeout === undefined ? 15000 : session.options.userAwayTimeout,
      inputActive: this.audioInput !== undefined && io.inputEnabled,
      user: tracker,
      gate,
      reporter,
    });
    const scheduler = new SpeechScheduler({ reporter, activity });
    const policy = new InterruptionPolicy({
      clock,
      options: turnHandling,
      gate,
      audioOutput: this.audioOutput,
      scheduler,
      activity,
      turns: tracker,
      reporter,
      language: session.options.language,
    });
    const router = new UserInputRouter({ tracker, policy, activity, providers: agents, reporter });
    const input = new InputPipeline({
      clock,
      providers: agents,
      options: turnHandling,
      playback: activity,
      listener: router,
      reporter,
      sttResponseTimeoutMs: session.deadlines.sttResponseTimeoutMs,
    });

    // Speaking: a speech runs its steps through the scheduler and plays them out.
    const metrics = new LatencyMetrics({ clock, reporter, providers: agents });
    const transitions = new AgentTransitions({
      session,
      agents,
      input,
      log,
      activity,
      threads,
      reporter,
      closed,
    });
    const speeches = new SpeechLauncher({
      reply: {
        clock,
        session,
        scheduler,
        playout: {
          clock,
          // Read when a step starts: a muted output makes the step text-only.
          get audioOutput() {
            return runtime.outputEnabled ? runtime.audioOutput : undefined;
          },
          textOutput: this.textOutput,
          gate,
          interruptedPlayoutTimeoutMs: session.options.interruptedPlayoutTimeout ?? 1000,
          playoutGraceMs: session.deadlines.playoutGraceMs,
          policy,
          activity,
          metrics,
          reporter,
          speakingRate: new SpeakingRate(),
          givenAudioTimeouts: {
            firstFrameMs: session.deadlines.ttsFirstAudioTimeoutMs,
            frameMs: session.deadlines.ttsAudioTimeoutMs,
          },
          tts: new TtsStreamOpener((problem) => reporter.problem('tts', problem), {
            clock,
            firstAudioTimeoutMs: session.deadlines.ttsFirstAudioTimeoutMs,
            audioTimeoutMs: session.deadlines.ttsAudioTimeoutMs,
          }),
        },
        maxToolSteps: session.options.maxToolSteps ?? 3,
        toolCalls: new ToolCallIds({ history: session.history, context: () => agents.current.chatCtx }),
        toolTimeoutMs: session.options.toolTimeoutMs,
        closed,
        agents,
        newId: session.ids,
        reporter,
        log,
        transitions,
        activity,
      },
      threads,
      activity,
      reporter,
      inFlight,
    });
    const responder = new TurnResponder({
      session,
      agents,
      transitions,
      policy,
      scheduler,
      log,
      speeches,
      metrics,
      reporter,
      inFlight,
      closed,
    });

    this.reporter = reporter;
    this.agents = agents;
    this.log = log;
    this.tracker = tracker;
    this.activity = activity;
    this.scheduler = scheduler;
    this.policy = policy;
    this.input = input;
    this.transitions = transitions;
    this.speeches = speeches;
    this.responder = responder;
  }

  /** The agent currently in charge. */
  get agent(): Agent {
    return this.agents.current;
  }

  get userState(): UserState {
    return this.tracker.userState;
  }

  get agentState(): AgentState {
    return this.activity.agentState;
  }

  get currentSpeech(): SpeechHandle | undefined {
    return this.scheduler.current;
  }

  async start(): Promise<void> {
    this.tracker.setVadPresent(this.agents.vad !== undefined);
    if (!this.initialInputEnabled) this.input.setEnabled(false);
    this.input.start(this.audioInput);
    await this.transitions.activate(this.agents.current, undefined);
    this.activity.sessionStarted();
  }

  startSay(handle: SpeechHandle, request: SayRequest): void {
    this.speeches.startSay(handle, request);
  }

  startReply(handle: SpeechHandle, request: ReplyRequest): void {
    this.speeches.startReply(handle, request);
  }

  newUserMessage(text: string): ChatMessage {
    return this.log.userMessage(text);
  }

  addItem(item: ChatItem): void {
    this.log.add(item);
  }

  interruptAll(force: boolean, reason: InterruptReason): Promise<void> {
    return this.speeches.interruptAll(force, reason);
  }

  commitUserTurn(): void {
    this.input.flushStt();
    this.tracker.commitNow();
  }

  clearUserTurn(): void {
    this.tracker.clear();
  }

  setAudioSource(source: AudioInput | undefined): void {
    this.input.setSource(source);
  }

  setAudioInputEnabled(enabled: boolean): void {
    this.input.setEnabled(enabled);
  }

  setAudioOutputEnabled(enabled: boolean): void {
    if (enabled === this.outputEnabled) return;
    this.outputEnabled = enabled;
    this.reporter.trace({ type: 'audio_output_enabled', enabled });
  }

  run(options: RunOptions): Promise<RunResult> {
    return runTextTurn(
      {
        clock: this.session.clock,
        session: this.session,
        agents: this.agents,
        transitions: this.transitions,
        responder: this.responder,
        speeches: this.speeches,
      },
      options,
    );
  }

  handoff(next: Agent): Promise<void> {
    return this.transitions.handoff(next);
  }

  runTask<Result>(
    task: AgentTask<Result>,
    runContext: RunContext | undefined,
    requester?: Agent,
  ): Promise<Result> {
    return this.transitions.runTask(task, runContext, requester);
  }

  async close(reason: string, timeoutMs: number): Promise<void> {
    const clock = this.session.clock;
    const deadline = clock.now() + timeoutMs;
    this.reporter.trace({ type: 'close_requested', reason });
    this.closeController.abort(new SessionClosedError());
    this.discardPreemptive('close');
    this.scheduler.close();
    this.speeches.cutAllForClose();
    this.policy.dispose();
    this.tracker.dispose();
    // Most of the budget goes to in-flight work; the agent's onExit gets what is left.
    const settled = Promise.allSettled([this.input.close(), ...this.inFlight.pending]);
    await waitAtMost(clock, settled, Math.floor(timeoutMs * 0.8));
    this.speeches.endAll();
    await waitAtMost(clock, this.transitions.exitCurrent(), Math.max(0, deadline - clock.now()));
    this.activity.stop();
  }

  // ---- what the user turn tracker reports ----

  userStateChanged(oldState: UserState, newState: UserState): void {
    this.reporter.event('user_state_changed', { oldState, newState });
    this.activity.userStateChanged();
  }

  turnCommitted(turn: CommittedTurn): void {
    // The speculative request goes with the turn: its reply uses it or discards it.
    const preemptive = this.preemptive;
    this.preemptive = undefined;
    this.responder.turnCommitted(turn, preemptive);
  }

  /**
   * What the user's pending turn says changed. With `preemptiveGeneration`, a final transcript starts an
   * LLM request for it; new speech, other text or a cleared turn discards it.
   */
  pendingTurnChanged(transcript: string, cause: 'speech' | 'interim' | 'final' | 'clear'): void {
    if (!this.session.turnHandling.preemptiveGeneration || this.closeController.signal.aborted) return;
    const current = this.preemptive;
    if (current && (cause === 'speech' || cause === 'clear' || current.key.transcript !== transcript)) {
      this.discardPreemptive(cause === 'speech' ? 'user_went_on' : `${cause}_changed_text`);
    }
    if (cause !== 'final' || transcript === '' || this.preemptive) return;
    const agent = this.agents.current;
    const llm = agent.llm ?? this.agents.llm;
    if (!llm) return;
    const chatCtx = buildChatCtx(agent, undefined);
    chatCtx.addMessage({ role: 'user', content: transcript, createdAtMs: this.session.clock.now() });
    this.reporter.trace({ type: 'preemptive_generation_started', transcript });
    this.preemptive = new PreemptiveGeneration(
      { agent, llm, instructions: agent.instructions, transcript, contextIds: contextIdsOf(agent) },
      {
        ...chatOptions(agent, llm, chatCtx, undefined),
        onProblem: (problem) => this.session.reportError('llm', new ProviderProblemError(problem), true),
      },
    );
  }

  private discardPreemptive(reason: string): void {
    const current = this.preemptive;
    if (!current) return;
    this.preemptive = undefined;
    current.cancel();
    this.reporter.trace({
      type: 'preemptive_generation_discarded',
      transcript: current.key.transcript,
      reason,
    });
  }

  /** The pending turn went on too long: the agent in charge decides (its hook runs in the session's scope). */
  userTurnExceeded(turn: UserTurnExceeded): void {
    const agent = this.agents.current;
    this.inFlight.track(
      runAgentHook(this.session, agent, 'onUserTurnExceeded', () => agent.onUserTurnExceeded(turn)),
    );
  }

  lateFinalArrived(turnId: string, transcript: string): void {
    this.responder.lateFinalArrived(turnId, transcript);
  }
}
