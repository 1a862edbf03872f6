import {
  Agent,
  AgentTask,
  type AnyTool,
  type ChatContext,
  type ChatMessage,
  type Clock,
  messageText,
  type RunContext,
  SessionClosedError,
  StopResponse,
  ToolError,
  tool,
  type UserTurnExceeded,
} from '@voxwire/agents';
import type { LogRecorder } from '../log.js';
import type { AgentSpec, Greeting, Scenario, TaskSpec, ToolSpec } from '../scenario.js';

/** The instructions of a scenario agent start with this, so scripted replies can tell agents apart. */
export function agentMarker(name: string): string {
  return `[agent:${name}]`;
}

/**
 * Builds the scenario's agents, tasks and tools. Tools do what their steps say and record each step;
 * they behave like well-written tools (sleeps honour cancellation) unless told otherwise.
 */
export class ScenarioWorld {
  private readonly agents = new Map<string, Agent>();
  private readonly tools = new Map<string, AnyTool>();
  private taskSeq = 0;

  constructor(
    readonly scenario: Scenario,
    readonly clock: Clock,
    readonly log: LogRecorder,
  ) {
    for (const spec of scenario.tools ?? []) this.tools.set(spec.name, this.buildTool(spec));
  }

  /** The agent that starts the session. */
  initialAgent(): Agent {
    const first = this.scenario.agents?.[0];
    return this.agent(first?.name ?? 'assistant')!;
  }

  /** The agent of that name (built once), or undefined when the scenario has none. */
  agent(name: string): Agent | undefined {
    let agent = this.agents.get(name);
    if (agent) return agent;
    const specs = this.scenario.agents ?? [];
    const spec =
      specs.find((a) => a.name === name) ??
      (specs.length === 0 && name === 'assistant' ? { name } : undefined);
    if (!spec) return undefined;
    agent = new ScenarioAgent(spec, this);
    this.agents.set(name, agent);
    return agent;
  }

  /** A fresh instance of the task of that name. */
  newTask(name: string): ScenarioTask | undefined {
    const spec = this.scenario.tasks?.find((t) => t.name === name);
    if (!spec) return undefined;
    return new ScenarioTask(spec, this, `${name}_${++this.taskSeq}`);
  }

  /**
   * Awaits a task from an agent hook without holding the hook up (the hook's scope carries over to the
   * awaiting code, so the task finds the session).
   */
  startTask(name: string): void {
    const task = this.newTask(name);
    if (!task) return;
    this.log.sim({ type: 'task_await_start', callId: '', speechId: '', taskId: task.id });
    void (async () => {
      let outcome = 'result';
      try {
        await task;
      } catch (error) {
        outcome = `error: ${error instanceof Error ? error.message : String(error)}`;
      }
      this.log.sim({ type: 'task_await_end', callId: '', speechId: '', taskId: task.id, outcome });
    })();
  }

  toolsFor(spec: AgentSpec): AnyTool[] {
    if (!spec.tools) return [...this.tools.values()];
    return spec.tools.map((n) => this.tools.get(n)).filter((t): t is AnyTool => t !== undefined);
  }

  instructionsFor(spec: AgentSpec): string {
    return `${agentMarker(spec.name)} ${spec.instructions ?? `You are ${spec.name}.`}`;
  }

  greet(agent: Agent, greeting: Greeting | undefined): void {
    if (!greeting) return;
    if ('say' in greeting) {
      agent.session.say(
        greeting.say,
        greeting.allowInterruptions !== undefined ? { allowInterruptions: greeting.allowInterruptions } : {},
      );
    } else {
      agent.session.generateReply({
        ...(greeting.generateReply.instructions !== undefined
          ? { instructions: greeting.generateReply.instructions }
          : {}),
        ...(greeting.generateReply.userInput !== undefined
          ? { userInput: greeting.generateReply.userInput }
          : {}),
      });
    }
  }

  /** Does what the agent's spec says when a user turn goes on too long. */
  turnExceeded(agent: Agent, spec: AgentSpec, turn: UserTurnExceeded): void {
    const decision = spec.onUserTurnExceeded ?? 'listen';
    this.log.sim({
      type: 'turn_exceeded_hook',
      agent: spec.name,
      decision: typeof decision === 'string' ? decision : 'say',
      transcript: turn.transcript,
    });
    if (decision === 'listen') return;
    if (decision === 'commit') {
      // Logged as the application's commit: the checker allows it at any time.
      this.log.sim({ type: 'action', action: 'commit_user_turn', detail: 'onUserTurnExceeded' });
      agent.session.commitUserTurn();
      return;
    }
    agent.session.say(
      decision.say,
      decision.allowInterruptions !== undefined ? { allowInterruptions: decision.allowInterruptions } : {},
    );
  }

  private buildTool(spec: ToolSpec): AnyTool {
    return tool({
      name: spec.name,
      description: spec.description ?? `Scripted tool ${spec.name}.`,
      ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
      execute: (_args: unknown, ctx: RunContext) => this.runTool(spec, ctx),
    });
  }

  private async runTool(spec: ToolSpec, ctx: RunContext): Promise<unknown> {
    const callId = ctx.functionCall.callId;
    const speechId = ctx.speechHandle.id;
    const signal = spec.ignoresCancellation ? undefined : ctx.signal;
    const record = (step: string, detail?: string): void =>
      this.log.sim({
        type: 'tool_step',
        callId,
        speechId,
        step,
        ...(detail !== undefined ? { detail } : {}),
      });
    // When the tool is told to stop, and why (its speech was cut, its time ran out, the session closed).
    ctx.signal.addEventListener(
      'abort',
      () => record('signal_aborted', (ctx.signal.reason as { name?: string } | undefined)?.name ?? 'unknown'),
      { once: true },
    );
    const outputs: string[] = [];
    for (const step of spec.steps ?? []) {
      if ('sleep' in step) {
        record('sleep', `${step.sleep} ms`);
        await this.clock.sleep(step.sleep, signal);
      } else if ('say' in step) {
        const handle = ctx.session.say(
          step.say,
          step.allowInterruptions !== undefined ? { allowInterruptions: step.allowInterruptions } : {},
        );
        record('say', `${handle.id} "${step.say}"`);
        if (step.wait !== false) {
          record('say_wait', handle.id);
          await handle;
          this.log.sim({
            type: 'tool_say_done',
            callId,
            speechId: handle.id,
            outcome: handle.outcome ?? 'unknown',
          });
        }
      } else if ('disallowInterruptions' in step) {
        record('disallow_interruptions');
        ctx.disallowInterruptions();
      } else if ('task' in step) {
        const task = this.newTask(step.task);
        if (!task) {
          record('task_missing', step.task);
          continue;
        }
        this.log.sim({ type: 'task_await_start', callId, speechId, taskId: task.id });
        try {
          const result = await task;
          this.log.sim({ type: 'task_await_end', callId, speechId, taskId: task.id, outcome: 'result' });
          outputs.push(`${step.task}: ${result}`);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          this.log.sim({
            type: 'task_await_end',
            callId,
            speechId,
            taskId: task.id,
            outcome: `error: ${message}`,
          });
          if (error instanceof SessionClosedError) throw error;
          outputs.push(`${step.task} failed: ${message}`);
        }
      } else if ('waitForPlayout' in step) {
        record('wait_for_playout');
        await ctx.waitForPlayout();
        record('playout_done');
      } else if ('throw' in step) {
        record('throw', step.throw);
        throw step.toolError ? new ToolError(step.throw) : new Error(step.throw);
      }
    }
    if (spec.handoff !== undefined) {
      const next = this.agent(spec.handoff);
      if (next) {
        record('handoff', spec.handoff);
        return next;
      }
    }
    return [spec.result ?? `${spec.name} done`, ...outputs].join('; ');
  }
}

class ScenarioAgent extends Agent {
  constructor(
    private readonly spec: AgentSpec,
    private readonly world: ScenarioWorld,
  ) {
    super({
      id: spec.name,
      instructions: world.instructionsFor(spec),
      tools: world.toolsFor(spec),
      ...(spec.allowInterruptions !== undefined ? { allowInterruptions: spec.allowInterruptions } : {}),
    });
  }

  override async onEnter(): Promise<void> {
    this.world.greet(this, this.spec.onEnter);
    if (this.spec.onEnterTask !== undefined) this.world.startTask(this.spec.onEnterTask);
  }

  override async onUserTurnExceeded(turn: UserTurnExceeded): Promise<void> {
    this.world.turnExceeded(this, this.spec, turn);
  }

  override async onUserTurnCompleted(_chatCtx: ChatContext, message: ChatMessage): Promise<void> {
    const text = messageText(message).toLowerCase();
    if (this.spec.skipTurnsContaining?.some((s) => text.includes(s.toLowerCase()))) {
      throw new StopResponse('the scenario skips this turn');
    }
  }
}

export class ScenarioTask extends AgentTask<string> {
  constructor(
    private readonly spec: TaskSpec,
    private readonly world: ScenarioWorld,
    id: string,
  ) {
    super({
      id,
      instructions: world.instructionsFor(spec),
      tools: world.toolsFor({ ...spec, tools: spec.tools ?? [] }),
      ...(spec.allowInterruptions !== undefined ? { allowInterruptions: spec.allowInterruptions } : {}),
    });
  }

  override async onEnter(): Promise<void> {
    this.world.greet(this, this.spec.onEnter);
    const on = this.spec.completeOn ?? 'user_turn';
    if (on === 'user_turn') return;
    const afterMs = 'afterMs' in on ? (on.afterMs ?? 0) : 0;
    this.world.clock.setTimer(afterMs, () => {
      if ('error' in on) this.finish(new Error(on.error));
      else this.finish(this.spec.result ?? 'done');
    });
  }

  override async onUserTurnCompleted(_chatCtx: ChatContext, message: ChatMessage): Promise<void> {
    if ((this.spec.completeOn ?? 'user_turn') !== 'user_turn' || this.completed) return;
    this.finish(this.spec.result ?? messageText(message));
    if (!this.spec.answerCompletingTurn) throw new StopResponse('the task took this answer');
  }

  private finish(result: string | Error): void {
    if (this.completed) return;
    this.world.log.sim({
      type: 'task_complete',
      taskId: this.id,
      result: result instanceof Error ? `error: ${result.message}` : result,
    });
    this.complete(result);
  }
}
