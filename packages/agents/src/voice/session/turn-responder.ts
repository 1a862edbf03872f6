import { type ChatMessage, messageText } from '../../llm/chat-context.js';
import { contextIdsOf, type PreemptiveGeneration } from '../speech/preemptive-generation.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import { StopResponse } from '../agent/agent.js';
import { runAgentHook } from '../agent/agent-hooks.js';
import { AgentTask } from '../agent/agent-task.js';
import type { AgentTransitions } from '../agent/agent-transitions.js';
import { SpeechHandle } from '../speech/speech-handle.js';
import type { SpeechLauncher } from '../speech/speech-launcher.js';
import type { SpeechScheduler } from '../speech/speech-scheduler.js';
import type { InterruptionPolicy } from '../turn/interruption-policy.js';
import type { CommittedTurn } from '../turn/user-turn-tracker.js';
import type { AgentSession } from './agent-session.js';
import type { ConversationLog } from './conversation-log.js';
import type { InFlightTasks } from './in-flight-tasks.js';
import type { LatencyMetrics } from './latency-metrics.js';
import type { SessionReporter } from './session-reporter.js';

export interface TurnResponderDeps {
  // biome-ignore lint/suspicious/noExplicitAny: serves sessions of any user data type.
  session: AgentSession<any>;
  agents: Pick<ActiveAgent, 'current' | 'llm'>;
  /** A task that completes in its `onUserTurnCompleted` hands the conversation back before the reply. */
  transitions: Pick<AgentTransitions, 'handedBack'>;
  /** A committed turn may cut the agent's speech, or resolve its pause. */
  policy: Pick<InterruptionPolicy, 'onTurnCommitted' | 'onTurnSkipped'>;
  /** Replies to older turns still waiting to be heard are superseded by a newer turn. */
  scheduler: Pick<SpeechScheduler, 'queuedHandles'>;
  log: Pick<ConversationLog, 'userMessage' | 'add' | 'correctLastUserMessage'>;
  speeches: Pick<SpeechLauncher, 'startReply'>;
  metrics: Pick<LatencyMetrics, 'turnCommitted' | 'lastUserSpeechAtMs'>;
  reporter: Pick<SessionReporter, 'trace'>;
  inFlight: Pick<InFlightTasks, 'track'>;
  /** Aborts when the session closes: a turn committed as it closes gets no reply. */
  closed: AbortSignal;
}

/**
 * Answers committed user turns: an empty turn is skipped (visibly), a turn supersedes replies to older
 * turns nobody has heard yet, the agent's `onUserTurnCompleted` may edit the message or skip the reply,
 * and otherwise the message joins the conversation and a reply starts.
 */
export class TurnResponder {
  /** The latest turn skipped without a message in the history (a backchannel). */
  private unrecorded: string | undefined;

  constructor(private readonly deps: TurnResponderDeps) {}

  turnCommitted(turn: CommittedTurn, preemptive?: PreemptiveGeneration): void {
    const { session, policy, reporter } = this.deps;
    // A turn that gets no reply ends the request made for it in advance.
    const discard = (reason: string): void => {
      if (!preemptive) return;
      preemptive.cancel();
      reporter.trace({
        type: 'preemptive_generation_discarded',
        transcript: preemptive.key.transcript,
        reason,
      });
    };
    reporter.trace({
      type: 'user_turn_committed',
      turnId: turn.turnId,
      transcript: turn.transcript,
      lastSpeechMs: turn.lastSpeechAtMs,
    });
    this.deps.metrics.turnCommitted(turn);
    const heardAs = policy.onTurnCommitted(turn.transcript);
    if (heardAs === 'backchannel') {
      // An acknowledgement said over the agent ("mm-hmm"): the agent goes on, nothing to answer.
      reporter.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: 'backchannel' });
      this.unrecorded = turn.turnId;
      discard('turn_skipped');
      return;
    }
    if (turn.transcript === '') {
      reporter.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: 'empty_transcript' });
      policy.onTurnSkipped();
      discard('turn_skipped');
      return;
    }
    // A newer turn supersedes replies to older turns that have not been heard yet.
    this.supersedeQueuedReplies();
    const message: ChatMessage = {
      ...this.deps.log.userMessage(turn.transcript, turn.transcriptConfidence),
      createdAtMs: session.clock.now(),
    };
    this.deps.inFlight.track(this.reply(turn, message, preemptive));
  }

  /**
   * A user turn given as text (`session.run()`): answered like a spoken one (it supersedes unheard
   * replies and goes through `onUserTurnCompleted`), but it has no audio, so it cuts no speech. Returns
   * the id of its user message and a promise that settles once the reply has started (or was skipped).
   */
  answerText(text: string): { messageId: string; started: Promise<void> } {
    const { session, reporter } = this.deps;
    const now = session.clock.now();
    const turn: CommittedTurn = {
      turnId: session.ids('turn'),
      transcript: text.trim(),
      lastSpeechAtMs: undefined,
      committedAtMs: now,
      finalTranscriptAtMs: undefined,
      transcriptFinal: true,
      transcriptConfidence: undefined,
    };
    reporter.trace({
      type: 'user_turn_committed',
      turnId: turn.turnId,
      transcript: turn.transcript,
      lastSpeechMs: undefined,
      text: true,
    });
    const message = this.deps.log.userMessage(turn.transcript);
    if (turn.transcript === '') {
      reporter.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: 'empty_transcript' });
      return { messageId: message.id, started: Promise.resolve() };
    }
    this.supersedeQueuedReplies();
    const started = this.reply(turn, message);
    this.deps.inFlight.track(started);
    return { messageId: message.id, started };
  }

  private supersedeQueuedReplies(): void {
    for (const handle of this.deps.scheduler.queuedHandles) {
      if (handle.source === 'user_turn' && handle.requestInterrupt('superseded', false)) {
        this.deps.reporter.trace({ type: 'speech_interrupted', speechId: handle.id, reason: 'superseded' });
      }
    }
  }

  /** A final transcript arrived for the turn already committed from an interim: the message is corrected. */
  lateFinalArrived(turnId: string, transcript: string): void {
    // A skipped backchannel left no message: the last one in the history belongs to another turn.
    if (this.unrecorded === turnId) return;
    this.deps.log.correctLastUserMessage(transcript);
    this.deps.reporter.trace({
      type: 'user_turn_committed',
      turnId,
      transcript,
      lastSpeechMs: this.deps.metrics.lastUserSpeechAtMs,
    });
  }

  private async reply(
    turn: CommittedTurn,
    message: ChatMessage,
    preemptive?: PreemptiveGeneration,
  ): Promise<void> {
    const { session, log, reporter } = this.deps;
    const agent = this.deps.agents.current;
    const discard = (reason: string): void => {
      if (!preemptive) return;
      preemptive.cancel();
      reporter.trace({
        type: 'preemptive_generation_discarded',
        transcript: preemptive.key.transcript,
        reason,
      });
      preemptive = undefined;
    };
    let skip: string | undefined;
    await runAgentHook(
      session,
      agent,
      'onUserTurnCompleted',
      () => agent.onUserTurnCompleted(agent.chatCtx.copy(), message),
      (error) => {
        if (error instanceof StopResponse) skip = error.message;
        else return true;
        return false;
      },
    );
    if (this.deps.closed.aborted) {
      discard('close');
      return;
    }
    // The turn that completed a task is answered by whoever is in charge once the task has handed the
    // conversation back (its parent), and joins that agent's conversation; the finished task says nothing.
    if (agent instanceof AgentTask && agent.completed) {
      await this.deps.transitions.handedBack(agent);
      if (this.deps.closed.aborted) {
        discard('close');
        return;
      }
    }
    const answering = this.deps.agents.current;
    // The request made in advance answers this turn only if the hook left the turn and the agent's
    // conversation as they were when it started.
    const llm = answering.llm ?? this.deps.agents.llm;
    if (
      preemptive &&
      (!llm ||
        !preemptive.matches({
          agent: answering,
          llm,
          instructions: answering.instructions,
          transcript: messageText(message),
          contextIds: contextIdsOf(answering),
        }))
    ) {
      discard('context_changed');
    }
    log.add(message);
    if (skip !== undefined) {
      reporter.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: `stop_response: ${skip}` });
      discard('turn_skipped');
      return;
    }
    const handle = new SpeechHandle({
      id: session.ids('speech'),
      allowInterruptions: answering.allowInterruptions,
      source: 'user_turn',
      turnId: turn.turnId,
    });
    reporter.trace({ type: 'reply_started', turnId: turn.turnId, speechId: handle.id });
    this.deps.speeches.startReply(handle, preemptive ? { preemptive } : {});
  }
}
