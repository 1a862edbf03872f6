import { SessionClosedError, SpeechInterruptedError, ToolTimeoutError } from '../../errors.js';
import { raceAbort } from '../../utils/abortable.js';
import type { InputPipeline } from '../input/input-pipeline.js';
import type { ActivityState } from '../session/activity-state.js';
import type { AgentSession } from '../session/agent-session.js';
import type { ConversationLog } from '../session/conversation-log.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { ConversationThreads } from '../speech/conversation-threads.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { RunContext } from '../tools/run-context.js';
import type { ActiveAgent } from './active-agent.js';
import type { Agent } from './agent.js';
import type { AgentTask } from './agent-task.js';
import { runAgentHook } from './agent-hooks.js';
import { TaskQueue } from './task-queue.js';

export interface AgentTransitionsDeps {
  // biome-ignore lint/suspicious/noExplicitAny: serves sessions of any user data type.
  session: AgentSession<any>;
  agents: ActiveAgent;
  /** An agent with other providers listens through streams of its own. */
  input: Pick<InputPipeline, 'reopenStreams'>;
  log: Pick<ConversationLog, 'add'>;
  activity: Pick<ActivityState, 'taskStarted' | 'taskEnded' | 'taskHandedBack'>;
  threads: Pick<ConversationThreads, 'taskStarted' | 'taskEnded'>;
  reporter: Pick<SessionReporter, 'trace'>;
  /** Aborts when the session closes: nobody enters a closing session. */
  closed: AbortSignal;
}

/**
 * Changes who is in charge of the conversation: an agent enters (taking over the previous agent's
 * conversation when it brought none), a handoff lets one agent exit and another enter, and an AgentTask
 * awaited in a tool takes over until it completes, then hands the conversation back to its parent.
 */
export class AgentTransitions {
  /** Tasks take turns: one talks to the user at a time. */
  private readonly queue = new TaskQueue();
  private readonly handBackWaiters = new Map<Agent, Array<() => void>>();
  /** Handoffs and task entries and exits under way (the old agent exiting, the new one entering). */
  private inProgress = 0;
  private idleWaiters: Array<() => void> = [];
  /**
   * AgentTasks in charge, with the speech whose tool awaits each; an entry stays until the task has
   * handed the conversation back, which `handedBack` resolves.
   */
  private readonly awaited = new Map<
    AgentTask<unknown>,
    { parent: SpeechHandle | undefined; handedBack: () => void; done: Promise<void> }
  >();

  constructor(private readonly deps: AgentTransitionsDeps) {}

  /** Resolves once no agent is exiting or entering, so the incoming agent is the one in charge. */
  settled(): Promise<void> {
    if (this.inProgress === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get settling(): boolean {
    return this.inProgress > 0;
  }

  /** Whether `speech` is held by a tool awaiting an AgentTask that has not completed yet. */
  awaitsTask(speech: SpeechHandle): boolean {
    for (const [task, { parent }] of this.awaited) if (parent === speech && !task.completed) return true;
    return false;
  }

  /**
   * Resolves once every AgentTask that `speech`'s tools awaited and that has completed has also handed
   * the conversation back. A tool can finish (its time ran out) a moment before its task's exit has
   * switched back to the parent; the speech's next step belongs to the parent and must wait for that.
   */
  tasksHandedBack(speech: SpeechHandle): Promise<void> {
    const exiting: Promise<void>[] = [];
    for (const [task, entry] of this.awaited)
      if (entry.parent === speech && task.completed) exiting.push(entry.done);
    return exiting.length === 0 ? Promise.resolve() : Promise.all(exiting).then(() => {});
  }

  private async transition<T>(work: () => Promise<T>): Promise<T> {
    this.inProgress++;
    try {
      return await work();
    } finally {
      this.inProgress--;
      if (this.inProgress === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const wake of waiters) wake();
      }
    }
  }

  /** Puts `agent` in charge and runs its `onEnter`. */
  async activate(
    agent: Agent,
    previous: Agent | undefined,
    via: 'start' | 'handoff' | 'task_started' = 'start',
  ): Promise<void> {
    if (previous && agent.inheritsChatCtx && agent.chatCtx.items.length === 0) {
      for (const item of previous.chatCtx.copy({ excludeInstructions: true }).items)
        agent.chatCtx.insert(item);
    }
    this.deps.agents.switchTo(agent, via);
    agent.attachedSession = this.deps.session;
    const vadChanged = previous && (agent.vad ?? undefined) !== (previous.vad ?? undefined);
    const sttChanged = previous && (agent.stt ?? undefined) !== (previous.stt ?? undefined);
    if (vadChanged || sttChanged) this.deps.input.reopenStreams();
    await this.runHook(agent, 'onEnter', () => agent.onEnter());
  }

  async handoff(next: Agent): Promise<void> {
    const { closed } = this.deps;
    const previous = this.deps.agents.current;
    // A closing session hands off to nobody: the new agent would enter a session that is gone.
    if (next === previous || closed.aborted) return;
    await this.transition(() => this.handOver(previous, next));
  }

  private async handOver(previous: Agent, next: Agent): Promise<void> {
    const { session } = this.deps;
    await this.runHook(previous, 'onExit', () => previous.onExit());
    previous.attachedSession = undefined;
    this.deps.log.add({
      type: 'agent_handoff',
      id: session.ids('handoff'),
      oldAgentId: previous.id,
      newAgentId: next.id,
      createdAtMs: session.clock.now(),
    });
    await this.activate(next, previous, 'handoff');
  }

  /**
   * Runs `task` in charge of the conversation until it completes, and returns its result. The speech
   * whose tool awaits it holds interruptions meanwhile (a counted hold, released when the task ends).
   * `requester` is the agent the awaiting code works for: a task waits its turn while a task it did not
   * start is in charge (see `TaskQueue`).
   */
  async runTask<Result>(
    task: AgentTask<Result>,
    runContext: RunContext | undefined,
    requester: Agent | undefined = runContext?.agent,
  ): Promise<Result> {
    const { agents, activity, threads, reporter, closed } = this.deps;
    if (closed.aborted) throw new SessionClosedError();
    const parentSpeech = runContext?.speechHandle;
    const notStarted = (): SpeechInterruptedError =>
      // A cut tool must not take the conversation over: its speech is gone.
      new SpeechInterruptedError(
        `AgentTask ${task.id} was not started: its speech ${parentSpeech?.id} was interrupted`,
      );
    if (parentSpeech?.interrupted) throw notStarted();
    // Held from the moment the task is awaited, also while it waits for its turn behind a sibling.
    const release = parentSpeech?.holdInterruptions();
    const traceHolds = (): void => {
      if (parentSpeech)
        reporter.trace({
          type: 'interruption_hold',
          speechId: parentSpeech.id,
          holds: parentSpeech.holdCount,
        });
    };
    traceHolds();
    // The awaiting call's own signal (its speech cut, its time out), else its speech's.
    const callSignal = runContext?.signal;
    try {
      const stop = callSignal ? AbortSignal.any([closed, callSignal]) : closed;
      await this.queue.turn(task, requester, stop);
    } catch (error) {
      release?.();
      traceHolds();
      if (closed.aborted) throw new SessionClosedError('The session closed before the AgentTask could start');
      if (parentSpeech?.interrupted) throw notStarted();
      if (callSignal?.reason instanceof ToolTimeoutError) throw callSignal.reason;
      throw error;
    }
    reporter.trace({ type: 'task_started', taskId: task.id, parentSpeechId: parentSpeech?.id });
    const parent = agents.current;
    let handedBack!: () => void;
    const done = new Promise<void>((resolve) => {
      handedBack = resolve;
    });
    this.awaited.set(task as AgentTask<unknown>, { parent: parentSpeech, handedBack, done });
    activity.taskStarted();
    threads.taskStarted(parentSpeech);
    let outcome: 'completed' | 'failed' | 'cancelled' = 'failed';
    // A tool that runs out of time takes its task down with it: nobody waits for that result any more.
    const onCallStopped = (): void => {
      if (callSignal?.reason instanceof ToolTimeoutError) task.complete(callSignal.reason);
    };
    callSignal?.addEventListener('abort', onCallStopped, { once: true });
    try {
      if (parentSpeech?.interrupted) throw notStarted();
      if (callSignal?.reason instanceof ToolTimeoutError) throw callSignal.reason;
      await this.transition(() => this.activate(task, parent, 'task_started'));
      const result = await raceAbort(task.result, closed);
      outcome = 'completed';
      return result;
    } catch (error) {
      if (closed.aborted) {
        outcome = 'cancelled';
        throw new SessionClosedError('The session closed while an AgentTask was running');
      }
      throw error;
    } finally {
      callSignal?.removeEventListener('abort', onCallStopped);
      threads.taskEnded(parentSpeech);
      activity.taskEnded();
      reporter.trace({ type: 'task_finished', taskId: task.id, outcome });
      if (agents.current === task && !closed.aborted) {
        await this.transition(async () => {
          await this.runHook(task, 'onExit', () => task.onExit());
          task.attachedSession = undefined;
          agents.switchTo(parent, 'task_ended');
          // The task may have listened with its own providers; the parent listens with its own again.
          if (task.vad !== parent.vad || task.stt !== parent.stt) this.deps.input.reopenStreams();
        });
      }
      this.queue.ended(task);
      this.settleHandBack(task);
      release?.();
      traceHolds();
      activity.taskHandedBack();
      this.awaited.delete(task as AgentTask<unknown>);
      handedBack();
    }
  }

  /**
   * Resolves once `task` has handed the conversation back (at once when it is not running): a turn that
   * completed the task is answered by whoever is in charge afterwards.
   */
  handedBack(task: Agent): Promise<void> {
    if (!this.running(task)) return Promise.resolve();
    let waiters = this.handBackWaiters.get(task);
    if (!waiters) {
      waiters = [];
      this.handBackWaiters.set(task, waiters);
    }
    const list = waiters;
    return new Promise<void>((resolve) => list.push(resolve));
  }

  private running(task: Agent): boolean {
    return this.deps.agents.current === task || this.queue.isActive(task);
  }

  private settleHandBack(task: Agent): void {
    const waiters = this.handBackWaiters.get(task);
    this.handBackWaiters.delete(task);
    for (const resolve of waiters ?? []) resolve();
  }

  /** The session closes: the agent in charge exits. */
  exitCurrent(): Promise<void> {
    const agent = this.deps.agents.current;
    return this.runHook(agent, 'onExit', () => agent.onExit());
  }

  private runHook(agent: Agent, name: string, fn: () => Promise<void>): Promise<void> {
    return runAgentHook(this.deps.session, agent, name, fn);
  }
}
