import { SessionClosedError } from '../../errors.js';
import type { ChatItem, ChatMessage } from '../../llm/chat-context.js';
import { waitAtMost } from '../../utils/abortable.js';
import { ActiveAgent } from '../agent/active-agent.js';
import type { Agent } from '../agent/agent.js';
import type { AgentTask } from '../agent/agent-task.js';
import { AgentTransitions } from '../agent/agent-transitions.js';
import { InputPipeline } from '../input/input-pipeline.js';
import type { AudioInput, AudioOutput, TextOutput } from '../../providers/audio-io.js';
import { ConversationThreads } from '../speech/conversation-threads.js';
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
import { type CommittedTurn, type UserState, UserTurnTracker } from '../turn/user-turn-tracker.js';
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
export class SessionRuntime {
  readonly audioOutput: AudioOutput | undefined;
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

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: the runtime serves sessions of any user data type.
    private readonly session: AgentSession<any>,
    options: SessionStartOptions,
  ) {
    this.audioOutput = options.output?.audio;
    this.textOutput = options.output?.text;
    this.audioInput = options.input?.audio;
    const clock = session.clock;
    const turnHandling = session.turnHandling;
    const closed = this.closeController.signal;
    const reporter = new SessionReporter(session);
    this.inFlight = new InFlightTasks((error) => reporter.error(errorSourceOf(error), error, true));
    const agents = new ActiveAgent(session, options.agent);
    const log = new ConversationLog(session, agents);
    const gate = new PlayoutGate(clock);
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
      inputActive: this.audioInput !== undefined,
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
      session,
      reply: {
        clock,
        session,
        scheduler,
        playout: {
          clock,
          audioOutput: this.audioOutput,
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
    this.responder.turnCommitted(turn);
  }

  lateFinalArrived(turnId: string, transcript: string): void {
    this.responder.lateFinalArrived(turnId, transcript);
  }
}
