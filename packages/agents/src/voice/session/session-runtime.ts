import type { AudioFrame } from '../../audio/audio-frame.js';
import { ProviderProblemError, SessionClosedError, SpeechInterruptedError } from '../../errors.js';
import type { ChatItem, ChatMessage } from '../../llm/chat-context.js';
import type { STTEvent } from '../../providers/stt.js';
import type { TTS, TTSStream } from '../../providers/tts.js';
import type { VADEvent } from '../../providers/vad.js';
import { raceAbort, waitAtMost } from '../../utils/abortable.js';
import { ActivityState } from './activity-state.js';
import { ConversationLog } from './conversation-log.js';
import { type Agent, StopResponse } from '../agent/agent.js';
import type { AgentSession, SessionStartOptions } from './agent-session.js';
import type { AgentTask } from '../agent/agent-task.js';
import { InputPipeline } from '../input/input-pipeline.js';
import { InterruptionPolicy } from '../turn/interruption-policy.js';
import type { AudioOutput, TextOutput } from '../../providers/audio-io.js';
import { PlayoutGate } from '../speech/playout-gate.js';
import { SpeakingRate } from '../speech/transcript-sync.js';
import {
  type ReplyDeps,
  type ReplyRequest,
  runReply,
  runSay,
  type SayRequest,
} from '../speech/reply-pipeline.js';
import type { RunContext } from '../tools/run-context.js';
import { runInScope } from '../tools/run-scope.js';
import type { AgentState, SessionMetrics } from './session-events.js';
import { SpeechHandle } from '../speech/speech-handle.js';
import type { PlayoutDeps } from '../speech/speech-playout.js';
import { SpeechScheduler } from '../speech/speech-scheduler.js';
import type { InterruptReason, TraceRecord } from './trace.js';
import { type CommittedTurn, type UserState, UserTurnTracker } from '../turn/user-turn-tracker.js';
import { TtsStreamOpener } from '../speech/tts-stream.js';
import { errorSourceOf } from './error-source.js';
import { currentRunScope } from '../tools/run-scope.js';
import type { AudioInput } from '../../providers/audio-io.js';

/**
 * The wiring of a started session: it routes input events to the turn tracker and the interruption
 * policy, turns committed turns into replies, and keeps the derived agent state. Every task it starts is
 * tracked so `close()` can end them within its deadline.
 */
export class SessionRuntime {
  agent: Agent;
  readonly audioOutput: AudioOutput | undefined;
  readonly textOutput: TextOutput | undefined;
  private readonly audioInput: AudioInput | undefined;
  private readonly gate: PlayoutGate;
  private readonly scheduler: SpeechScheduler;
  private readonly tracker: UserTurnTracker;
  private readonly policy: InterruptionPolicy;
  private readonly input: InputPipeline;
  private readonly replyDeps: ReplyDeps;
  private readonly live = new Set<SpeechHandle>();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly closeController = new AbortController();
  private readonly ttsOpener = new TtsStreamOpener((problem) =>
    this.session.reportError('tts', new ProviderProblemError(problem), true),
  );
  private readonly activity: ActivityState;
  private readonly log: ConversationLog;
  private lastSpeechAt: number | undefined;
  private threadCounter = 0;
  /** Threads of the speeches whose tools await a running AgentTask, innermost last. */
  private readonly taskThreads: number[] = [];

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: the runtime serves sessions of any user data type.
    private readonly session: AgentSession<any>,
    options: SessionStartOptions,
  ) {
    this.agent = options.agent;
    this.audioOutput = options.output?.audio;
    this.textOutput = options.output?.text;
    this.audioInput = options.input?.audio;
    const clock = session.clock;
    this.gate = new PlayoutGate(clock);
    const trace = (record: TraceRecord) => this.trace(record);
    this.log = new ConversationLog(session, () => this.agent);
    this.activity = new ActivityState({
      clock,
      userAwayTimeoutMs:
        session.options.userAwayTimeout === undefined ? 15000 : session.options.userAwayTimeout,
      userState: () => this.tracker.userState,
      setAway: (away) => this.tracker.setAway(away),
      outputPaused: () => this.gate.paused,
      onAgentStateChanged: (oldState, newState) =>
        session.emit('agent_state_changed', { oldState, newState, atMs: clock.now() }),
    });
    this.activity.inputActive = this.audioInput !== undefined;
    const activity = this.activity;
    this.scheduler = new SpeechScheduler({
      onQueued: (h) => trace({ type: 'speech_queued', speechId: h.id, priority: h.priority }),
      onGranted: (g) => {
        activity.inProgress.add(g.handle);
        trace({ type: 'speech_authorized', speechId: g.handle.id, step: g.step });
        activity.refresh();
      },
      onReleased: (g) => {
        trace({ type: 'speech_released', speechId: g.handle.id, step: g.step });
        if (activity.playing === g.handle) activity.playing = undefined;
        activity.refresh();
      },
    });
    this.tracker = new UserTurnTracker({
      clock,
      sttPresent: () => (this.agent.stt ?? session.options.stt) !== undefined,
      options: session.turnHandling,
      turnDetector: () => this.agent.turnDetector ?? session.options.turnDetector,
      chatCtxWithPendingTurn: (text) => {
        const ctx = this.agent.chatCtx.copy({ excludeFunctionCalls: true });
        ctx.addMessage({ role: 'user', content: text, createdAtMs: clock.now() });
        return ctx;
      },
      nextTurnId: () => session.ids('turn'),
      trace,
      onUserStateChanged: (oldState, newState) => {
        session.emit('user_state_changed', { oldState, newState, atMs: clock.now() });
        activity.userActivity();
      },
      onTurnCommitted: (turn) => this.onTurnCommitted(turn),
      onLateFinal: (turnId, transcript) => {
        this.log.correctLastUserMessage(transcript);
        trace({ type: 'user_turn_committed', turnId, transcript, lastSpeechMs: this.lastSpeechAt });
      },
      onError: (error) => session.reportError('turn_detector', error, true),
    });
    this.policy = new InterruptionPolicy({
      clock,
      options: session.turnHandling,
      gate: this.gate,
      audioOutput: () => this.audioOutput,
      target: () => this.scheduler.current ?? [...activity.toolPhase].pop(),
      targetIsPlaying: () => activity.playing !== undefined && activity.playing === this.scheduler.current,
      turnDecisionPending: () => this.tracker.endpointingPending,
      trace,
      onFalseInterruption: (handle) =>
        session.emit('agent_false_interruption', { speechId: handle.id, resumed: true, atMs: clock.now() }),
      onPausedChanged: () => activity.refresh(),
    });
    this.input = new InputPipeline({
      clock,
      vad: () => this.agent.vad ?? session.options.vad,
      stt: () => this.agent.stt ?? session.options.stt,
      language: () => session.options.language,
      discardForStt: () =>
        session.turnHandling.discardAudioIfUninterruptible &&
        activity.playing !== undefined &&
        !activity.playing.interruptible,
      onVadEvent: (event) => this.onVadEvent(event),
      onSttEvent: (event) => this.onSttEvent(event),
      onVadLost: () => {
        this.tracker.onSpeechSourceLost();
        this.policy.onUserSpeechEnded();
      },
      onInputEnded: () => {
        activity.inputActive = false;
        activity.refresh();
      },
      onError: (source, error, recoverable) => session.reportError(source, error, recoverable),
      onProblem: (source, problem) => session.reportError(source, new ProviderProblemError(problem), true),
      trace,
    });
    const playout: PlayoutDeps = {
      clock,
      audioOutput: this.audioOutput,
      textOutput: this.textOutput,
      gate: this.gate,
      interruptedPlayoutTimeoutMs: session.options.interruptedPlayoutTimeout ?? 1000,
      playoutWatchdogSlackMs: session.options.playoutWatchdogSlack ?? 2000,
      onFrame: (handle, frame) => this.onFrame(handle, frame),
      onFirstFrame: (handle) => this.onFirstFrame(handle),
      beforeFrame: (handle) => this.policy.onFrameReady(handle),
      onTtsFirstByte: (handle, ttfbMs) =>
        this.metrics({ type: 'tts', speechId: handle.id, label: this.tts()?.label ?? 'tts', ttfbMs }),
      onWatchdog: (handle, waitedMs) =>
        session.reportError(
          'audio_output',
          new Error(`audio output did not report the end of playout of ${handle.id} within ${waitedMs} ms`),
          true,
        ),
      openTts: (tts, signal) => this.openTts(tts, signal),
      speakingRate: new SpeakingRate(),
    };
    this.replyDeps = {
      clock,
      session,
      scheduler: this.scheduler,
      playout,
      maxToolSteps: session.options.maxToolSteps ?? 3,
      agent: () => this.agent,
      llm: () => this.agent.llm ?? session.options.llm,
      tts: () => this.tts(),
      newId: (prefix) => session.ids(prefix),
      trace,
      addAssistantMessage: (result) => this.log.addAssistantMessage(result),
      recordToolBatch: (handle, results) => this.log.addToolBatch(handle, results),
      onToolCrash: (error) => session.reportError('tool', error, true),
      handoff: (agent) => this.handoff(agent),
      metrics: (m) => this.metrics(m),
      setToolPhase: (handle, active) => {
        if (active) {
          activity.toolPhase.add(handle);
          this.scheduler.reserve(handle);
        } else {
          activity.toolPhase.delete(handle);
        }
        activity.refresh();
      },
      setGenerating: (handle, active) => {
        if (active) activity.generating.add(handle);
        else activity.generating.delete(handle);
        activity.refresh();
      },
    };
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
    this.tracker.setVadPresent((this.agent.vad ?? this.session.options.vad) !== undefined);
    this.input.start(this.audioInput);
    await this.activate(this.agent, undefined);
    this.activity.refresh();
  }

  startSay(handle: SpeechHandle, request: SayRequest): void {
    this.launch(handle, () => runSay(this.replyDeps, handle, request));
  }

  startReply(handle: SpeechHandle, request: ReplyRequest): void {
    this.launch(handle, () => runReply(this.replyDeps, handle, request));
  }

  newUserMessage(text: string): ChatMessage {
    return this.log.userMessage(text);
  }

  addItem(item: ChatItem): void {
    this.log.add(item);
  }

  async interruptAll(force: boolean, reason: InterruptReason): Promise<void> {
    const targets = [...this.live].filter((h) => !h.done());
    for (const handle of targets) {
      this.trace({ type: 'speech_interrupt_requested', speechId: handle.id, force, reason });
      handle.requestInterrupt(reason, force);
    }
    const stopping = targets.filter((h) => h.interrupted).map((h) => h.waitForPlayout().catch(() => {}));
    await waitAtMost(
      this.session.clock,
      Promise.all(stopping),
      this.replyDeps.playout.interruptedPlayoutTimeoutMs * 2,
    );
  }

  commitUserTurn(): void {
    this.input.flushStt();
    this.tracker.commitNow();
  }

  clearUserTurn(): void {
    this.tracker.clear();
  }

  async handoff(next: Agent): Promise<void> {
    const previous = this.agent;
    // A closing session hands off to nobody: the new agent would enter a session that is gone.
    if (next === previous || this.closeController.signal.aborted) return;
    await this.runHook('onExit', () => previous.onExit());
    previous.attachedSession = undefined;
    this.addItem({
      type: 'agent_handoff',
      id: this.session.ids('handoff'),
      oldAgentId: previous.id,
      newAgentId: next.id,
      createdAtMs: this.session.clock.now(),
    });
    await this.activate(next, previous);
  }

  async runTask<Result>(task: AgentTask<Result>, runContext: RunContext | undefined): Promise<Result> {
    if (this.closeController.signal.aborted) throw new SessionClosedError();
    const parentSpeech = runContext?.speechHandle;
    if (parentSpeech?.interrupted) {
      // A cut tool must not take the conversation over: its speech is gone.
      throw new SpeechInterruptedError(
        `AgentTask ${task.id} was not started: its speech ${parentSpeech.id} was interrupted`,
      );
    }
    const release = parentSpeech?.holdInterruptions();
    if (parentSpeech)
      this.trace({ type: 'interruption_hold', speechId: parentSpeech.id, holds: parentSpeech.holdCount });
    this.trace({ type: 'task_started', taskId: task.id, parentSpeechId: parentSpeech?.id });
    const parent = this.agent;
    this.activity.activeTasks++;
    const thread = parentSpeech?.threadSeq;
    if (thread !== undefined) this.taskThreads.push(thread);
    let outcome: 'completed' | 'failed' | 'cancelled' = 'failed';
    try {
      await this.activate(task, parent);
      const result = await raceAbort(task.result, this.closeController.signal);
      outcome = 'completed';
      return result;
    } catch (error) {
      if (this.closeController.signal.aborted) {
        outcome = 'cancelled';
        throw new SessionClosedError('The session closed while an AgentTask was running');
      }
      throw error;
    } finally {
      if (thread !== undefined) this.taskThreads.splice(this.taskThreads.lastIndexOf(thread), 1);
      this.activity.activeTasks--;
      this.trace({ type: 'task_finished', taskId: task.id, outcome });
      if (this.agent === task && !this.closeController.signal.aborted) {
        await this.runHook('onExit', () => task.onExit());
        task.attachedSession = undefined;
        this.agent = parent;
        // The task may have listened with its own providers; the parent listens with its own again.
        if (task.vad !== parent.vad || task.stt !== parent.stt) this.input.reopenStreams();
      }
      release?.();
      if (parentSpeech)
        this.trace({ type: 'interruption_hold', speechId: parentSpeech.id, holds: parentSpeech.holdCount });
      this.activity.refresh();
    }
  }

  async close(reason: string, timeoutMs: number): Promise<void> {
    const clock = this.session.clock;
    const deadline = clock.now() + timeoutMs;
    this.trace({ type: 'close_requested', reason });
    this.closeController.abort(new SessionClosedError());
    this.scheduler.close();
    for (const handle of [...this.live]) {
      if (handle.requestInterrupt('close', true)) {
        this.trace({ type: 'speech_interrupted', speechId: handle.id, reason: 'close' });
      }
    }
    this.policy.dispose();
    this.tracker.dispose();
    // Most of the budget goes to in-flight work; the agent's onExit gets what is left.
    const settled = Promise.allSettled([this.input.close(), ...this.tasks]);
    await waitAtMost(clock, settled, Math.floor(timeoutMs * 0.8));
    for (const handle of [...this.live]) handle.markDone('interrupted');
    const onExit = this.runHook('onExit', () => this.agent.onExit());
    await waitAtMost(clock, onExit, Math.max(0, deadline - clock.now()));
    this.activity.stop();
  }

  // ---- input events ----

  private onVadEvent(event: VADEvent): void {
    switch (event.type) {
      case 'start_of_speech':
        this.tracker.onVadStartOfSpeech(event.speechDurationMs);
        this.policy.onUserSpeechStarted();
        break;
      case 'inference_done':
        if (event.speaking) this.policy.onUserSpeechProgress(event.speechDurationMs);
        break;
      case 'end_of_speech':
        this.tracker.onVadEndOfSpeech(event.silenceDurationMs);
        this.policy.onUserSpeechEnded();
        break;
    }
  }

  private onSttEvent(event: STTEvent): void {
    const hasVad = (this.agent.vad ?? this.session.options.vad) !== undefined;
    switch (event.type) {
      case 'start_of_speech':
        this.tracker.onSttStartOfSpeech();
        if (!hasVad) this.policy.onUserSpeechStarted();
        break;
      case 'end_of_speech':
        this.tracker.onSttEndOfSpeech();
        if (!hasVad) this.policy.onUserSpeechEnded();
        break;
      case 'interim_transcript':
      case 'final_transcript': {
        const best = event.alternatives[0];
        const text = best?.text ?? '';
        const isFinal = event.type === 'final_transcript';
        this.session.emit('user_input_transcribed', {
          transcript: text,
          isFinal,
          language: best?.language,
          atMs: this.session.clock.now(),
        });
        // The policy hears the words before the tracker may commit the turn with them: words of a
        // committed turn must not count toward the next one.
        const lateFinal = isFinal && this.tracker.nextFinalIsLate;
        if (text.trim() !== '' && !lateFinal)
          this.policy.onUserTranscript(`${this.tracker.heardBefore} ${text}`);
        if (event.type === 'interim_transcript') this.tracker.onInterimTranscript(text, best?.language);
        else this.tracker.onFinalTranscript(text, best?.language);
        break;
      }
    }
  }

  private onTurnCommitted(turn: CommittedTurn): void {
    const clock = this.session.clock;
    this.trace({
      type: 'user_turn_committed',
      turnId: turn.turnId,
      transcript: turn.transcript,
      lastSpeechMs: turn.lastSpeechAtMs,
    });
    if (turn.lastSpeechAtMs !== undefined) {
      this.lastSpeechAt = turn.lastSpeechAtMs;
      this.metrics({
        type: 'eou',
        turnId: turn.turnId,
        endOfUtteranceDelayMs: turn.committedAtMs - turn.lastSpeechAtMs,
        transcriptionDelayMs:
          turn.finalTranscriptAtMs !== undefined
            ? Math.max(0, turn.finalTranscriptAtMs - turn.lastSpeechAtMs)
            : undefined,
      });
    }
    this.policy.onTurnCommitted(turn.transcript);
    if (turn.transcript === '') {
      this.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: 'empty_transcript' });
      this.policy.onTurnSkipped();
      return;
    }
    // A newer turn supersedes replies to older turns that have not been heard yet.
    for (const handle of this.scheduler.queuedHandles) {
      if (handle.source === 'user_turn' && handle.requestInterrupt('superseded', false)) {
        this.trace({ type: 'speech_interrupted', speechId: handle.id, reason: 'superseded' });
      }
    }
    const message: ChatMessage = { ...this.newUserMessage(turn.transcript), createdAtMs: clock.now() };
    const agent = this.agent;
    const task = (async () => {
      let skip: string | undefined;
      await this.runHook(
        'onUserTurnCompleted',
        () => agent.onUserTurnCompleted(agent.chatCtx.copy(), message),
        (error) => {
          if (error instanceof StopResponse) skip = error.message;
          else return true;
          return false;
        },
      );
      if (this.closeController.signal.aborted) return;
      this.addItem(message);
      if (skip !== undefined) {
        this.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: `stop_response: ${skip}` });
        return;
      }
      const handle = new SpeechHandle({
        id: this.session.ids('speech'),
        allowInterruptions: true,
        source: 'user_turn',
        turnId: turn.turnId,
      });
      this.trace({ type: 'reply_started', turnId: turn.turnId, speechId: handle.id });
      this.startReply(handle, {});
    })();
    this.track(task);
  }

  // ---- output side ----

  private onFirstFrame(handle: SpeechHandle): void {
    this.activity.playing = handle;
    this.activity.refresh();
    if (handle.turnId !== undefined && this.lastSpeechAt !== undefined && handle.source === 'user_turn') {
      this.metrics({
        type: 'turn',
        turnId: handle.turnId,
        speechId: handle.id,
        endToEndLatencyMs: this.session.clock.now() - this.lastSpeechAt,
      });
    }
  }

  private onFrame(handle: SpeechHandle, frame: AudioFrame): void {
    this.trace({
      type: 'speech_frame',
      speechId: handle.id,
      durationMs: frame.durationMs,
      allowInterruptions: handle.allowInterruptions,
    });
  }

  private tts(): TTS | undefined {
    return this.agent.tts ?? this.session.options.tts;
  }

  private openTts(tts: TTS, signal: AbortSignal): TTSStream {
    return this.ttsOpener.open(tts, signal);
  }

  // ---- lifecycle helpers ----

  /** Places a new speech in its conversation thread (see `SpeechHandle.threadSeq`). */
  private assignThread(handle: SpeechHandle): void {
    const parent = currentRunScope()?.runContext?.speechHandle;
    const taskThread = this.taskThreads[this.taskThreads.length - 1];
    handle.threadSeq = parent?.threadSeq ?? taskThread ?? ++this.threadCounter;
  }

  private launch(handle: SpeechHandle, run: () => Promise<void>): void {
    this.assignThread(handle);
    this.live.add(handle);
    handle.isCurrentToolContext = () => currentRunScope()?.runContext?.speechHandle === handle;
    handle.onInterrupt((reason) => {
      // The policy and close() trace their own cuts with details; app interrupts (session.interrupt()
      // or handle.interrupt()) are traced here, whoever called them.
      if (reason === 'api' || reason === 'forced')
        this.trace({ type: 'speech_interrupted', speechId: handle.id, reason });
      this.activity.refresh();
    });
    handle.onDone(() => {
      this.live.delete(handle);
      this.activity.inProgress.delete(handle);
      this.trace({
        type: 'speech_done',
        speechId: handle.id,
        outcome: handle.outcome ?? 'played',
        ...(handle.outcome === 'failed' ? { error: String(handle.error) } : {}),
      });
      this.activity.refresh();
    });
    this.session.emit('speech_created', {
      speechHandle: handle,
      source: handle.source,
      atMs: this.session.clock.now(),
    });
    const task = runInScope({ session: this.session, runContext: undefined }, run).catch((error: unknown) => {
      this.session.reportError(errorSourceOf(error), error, true);
      handle.markDone('failed', error);
    });
    this.track(task);
  }

  private track(task: Promise<unknown>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  private async activate(agent: Agent, previous: Agent | undefined): Promise<void> {
    if (previous && agent.inheritsChatCtx && agent.chatCtx.items.length === 0) {
      for (const item of previous.chatCtx.copy({ excludeInstructions: true }).items)
        agent.chatCtx.insert(item);
    }
    this.agent = agent;
    agent.attachedSession = this.session;
    const vadChanged = previous && (agent.vad ?? undefined) !== (previous.vad ?? undefined);
    const sttChanged = previous && (agent.stt ?? undefined) !== (previous.stt ?? undefined);
    if (vadChanged || sttChanged) this.input.reopenStreams();
    await this.runHook('onEnter', () => agent.onEnter());
  }

  /** Runs an agent hook in the session's scope; a throwing hook is reported, never fatal. */
  private async runHook(
    name: string,
    fn: () => Promise<void>,
    isReportable: (error: unknown) => boolean = () => true,
  ): Promise<void> {
    try {
      await runInScope({ session: this.session, runContext: undefined }, fn);
    } catch (error) {
      if (isReportable(error))
        this.session.reportError('session', new Error(`Agent.${name} failed`, { cause: error }), true);
    }
  }

  private metrics(metrics: SessionMetrics): void {
    this.session.emit('metrics_collected', { metrics, atMs: this.session.clock.now() });
  }

  private trace(record: TraceRecord): void {
    this.session.options.onTrace?.({ ...record, atMs: this.session.clock.now() } as never);
  }
}
