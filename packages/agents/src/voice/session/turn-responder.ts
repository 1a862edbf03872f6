import type { ChatMessage } from '../../llm/chat-context.js';
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
  agents: Pick<ActiveAgent, 'current'>;
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
  constructor(private readonly deps: TurnResponderDeps) {}

  turnCommitted(turn: CommittedTurn): void {
    const { session, policy, reporter } = this.deps;
    reporter.trace({
      type: 'user_turn_committed',
      turnId: turn.turnId,
      transcript: turn.transcript,
      lastSpeechMs: turn.lastSpeechAtMs,
    });
    this.deps.metrics.turnCommitted(turn);
    policy.onTurnCommitted(turn.transcript);
    if (turn.transcript === '') {
      reporter.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: 'empty_transcript' });
      policy.onTurnSkipped();
      return;
    }
    // A newer turn supersedes replies to older turns that have not been heard yet.
    for (const handle of this.deps.scheduler.queuedHandles) {
      if (handle.source === 'user_turn' && handle.requestInterrupt('superseded', false)) {
        reporter.trace({ type: 'speech_interrupted', speechId: handle.id, reason: 'superseded' });
      }
    }
    const message: ChatMessage = {
      ...this.deps.log.userMessage(turn.transcript, turn.transcriptConfidence),
      createdAtMs: session.clock.now(),
    };
    this.deps.inFlight.track(this.reply(turn, message));
  }

  /** A final transcript arrived for the turn already committed from an interim: the message is corrected. */
  lateFinalArrived(turnId: string, transcript: string): void {
    this.deps.log.correctLastUserMessage(transcript);
    this.deps.reporter.trace({
      type: 'user_turn_committed',
      turnId,
      transcript,
      lastSpeechMs: this.deps.metrics.lastUserSpeechAtMs,
    });
  }

  private async reply(turn: CommittedTurn, message: ChatMessage): Promise<void> {
    const { session, log, reporter } = this.deps;
    const agent = this.deps.agents.current;
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
    if (this.deps.closed.aborted) return;
    // The turn that completed a task is answered by whoever is in charge once the task has handed the
    // conversation back (its parent), and joins that agent's conversation; the finished task says nothing.
    if (agent instanceof AgentTask && agent.completed) {
      await this.deps.transitions.handedBack(agent);
      if (this.deps.closed.aborted) return;
    }
    log.add(message);
    if (skip !== undefined) {
      reporter.trace({ type: 'user_turn_skipped', turnId: turn.turnId, reason: `stop_response: ${skip}` });
      return;
    }
    const handle = new SpeechHandle({
      id: session.ids('speech'),
      allowInterruptions: true,
      source: 'user_turn',
      turnId: turn.turnId,
    });
    reporter.trace({ type: 'reply_started', turnId: turn.turnId, speechId: handle.id });
    this.deps.speeches.startReply(handle, {});
  }
}
