import type { AudioFrame } from '../../audio/audio-frame.js';
import { ProviderProblemError, VoxwireError } from '../../errors.js';
import type { ChatContext, FunctionCall } from '../../llm/chat-context.js';
import type { LLM, LLMChatOptions, LLMUsage, ToolChoice } from '../../providers/llm.js';
import { Channel } from '../../stream/channel.js';
import type { Clock } from '../../time/clock.js';
import type { Agent } from '../agent/agent.js';
import { RunContext } from '../tools/run-context.js';
import { toolDefinitions } from '../tools/tool.js';
import { toLLMMessages } from '../../llm/llm-messages.js';
import type { PreemptiveGeneration } from './preemptive-generation.js';
import type { SpeechHandle } from './speech-handle.js';
import { type PlayoutDeps, playSpeechStep, takePartialPlayout } from './speech-playout.js';
import type { SpeechScheduler } from './speech-scheduler.js';
import { type ToolCallResult, ToolRunner } from '../tools/tool-runner.js';
import type { AgentSession } from '../session/agent-session.js';
import { tagErrorSource } from '../session/error-source.js';
import { withIdleTimeout } from '../../provider-utils/idle-timeout.js';
import type { ToolCallIds } from '../tools/tool-call-ids.js';
import type { IdGenerator } from '../../utils/ids.js';
import type { ActiveAgent } from '../agent/active-agent.js';
import type { AgentTransitions } from '../agent/agent-transitions.js';
import type { ActivityState } from '../session/activity-state.js';
import type { ConversationLog } from '../session/conversation-log.js';
import type { SessionReporter } from '../session/session-reporter.js';

/** No LLM is configured for the active agent or the session. */
export class MissingProviderError extends VoxwireError {
  override name = 'MissingProviderError';
}

export interface ReplyDeps {
  clock: Clock;
  // biome-ignore lint/suspicious/noExplicitAny: replies run for sessions of any user data type.
  session: AgentSession<any>;
  /** A speech's place in the queue is kept for its next step while its tools run. */
  scheduler: Pick<SpeechScheduler, 'request' | 'reserve'>;
  playout: PlayoutDeps;
  maxToolSteps: number;
  /** The agent in charge, and the session's LLM and TTS for an agent without its own. */
  agents: Pick<ActiveAgent, 'current' | 'llm' | 'tts'>;
  newId: IdGenerator;
  reporter: Pick<SessionReporter, 'trace' | 'metrics' | 'error'>;
  /** Records what was heard, and each batch's calls and outputs exactly once. */
  log: Pick<ConversationLog, 'addAssistantMessage' | 'addToolBatch' | 'replaceToolOutput'>;
  transitions: Pick<AgentTransitions, 'handoff' | 'tasksHandedBack'>;
  /**
   * A step's LLM activity and the time its tools run shape the agent state; while tools run the speech is
   * also a target for interruptions and the user is not away.
   */
  activity: Pick<
    ActivityState,
    'generationStarted' | 'generationEnded' | 'toolPhaseStarted' | 'toolPhaseEnded'
  >;
  /** The call-id rule: which calls of a response run, and under which id. */
  toolCalls: ToolCallIds;
  /** The limit of a tool without its own `timeoutMs`; undefined: none. */
  toolTimeoutMs: number | undefined;
  /** Aborts when the session closes. */
  closed: AbortSignal;
}

export interface ReplyRequest {
  instructions?: string | undefined;
  toolChoice?: ToolChoice | undefined;
  /** A request started before the turn was committed: the first step streams it instead of a new one. */
  preemptive?: PreemptiveGeneration | undefined;
}

export interface SayRequest {
  text: string | AsyncIterable<string>;
  audio?: AsyncIterable<AudioFrame> | undefined;
  addToChatCtx: boolean;
}

/** Plays a `say()`: one step, no LLM. */
export async function runSay(deps: ReplyDeps, handle: SpeechHandle, request: SayRequest): Promise<void> {
  const grant = await deps.scheduler.request(handle, 1);
  if (!grant) {
    handle.markDone('interrupted');
    return;
  }
  try {
    const text = typeof request.text === 'string' ? once(request.text) : request.text;
    const playout = await playSpeechStep(deps.playout, handle, {
      text,
      audio: request.audio,
      tts: deps.agents.tts,
    });
    if (request.addToChatCtx) deps.log.addAssistantMessage(playout);
    handle.markDone(playout.interrupted ? 'interrupted' : 'played');
  } catch (error) {
    const heard = takePartialPlayout(handle);
    if (heard && request.addToChatCtx) deps.log.addAssistantMessage(heard);
    throw error;
  } finally {
    grant.release();
  }
}

/**
 * Runs a reply: LLM -> TTS -> output, then the tools the model called, then more LLM steps with their
 * results, up to `maxToolSteps`. The speech holds the output only while a step plays, so tools may speak.
 */
export async function runReply(deps: ReplyDeps, handle: SpeechHandle, request: ReplyRequest): Promise<void> {
  let toolChoice = request.toolChoice;
  let owner: Agent | undefined;
  for (let step = 1; ; step++) {
    const grant = await deps.scheduler.request(handle, step);
    if (!grant) break;
    // A reply belongs to the agent that was in charge when it started: after a handoff or the end of an
    // AgentTask, the new agent answers in its own replies instead.
    owner ??= deps.agents.current;
    if (owner !== deps.agents.current) {
      grant.release();
      break;
    }
    let runner: ToolRunner | undefined;
    let stepError: unknown;
    let stepPlayedResolve!: () => void;
    const stepPlayed = new Promise<void>((resolve) => {
      stepPlayedResolve = resolve;
    });
    try {
      const agent = owner;
      const llm = agent.llm ?? deps.agents.llm;
      if (!llm) {
        throw tagErrorSource(
          new MissingProviderError('No LLM is configured: pass `llm` to the AgentSession or the Agent'),
          'llm',
        );
      }
      runner = new ToolRunner({
        session: deps.session,
        clock: deps.clock,
        tools: agent.tools,
        speech: handle,
        closed: deps.closed,
        defaultTimeoutMs: deps.toolTimeoutMs,
        ids: deps.toolCalls,
        makeContext: (call, signal) =>
          new RunContext(deps.session, handle, call, () => stepPlayed, { agent, signal }),
        onStarted: (call) =>
          deps.reporter.trace({
            type: 'tool_started',
            speechId: handle.id,
            callId: call.callId,
            name: call.name,
          }),
        onSkipped: (call, reason) =>
          deps.reporter.trace({
            type: 'tool_call_skipped',
            speechId: handle.id,
            callId: call.callId,
            name: call.name,
            reason,
          }),
        onResultAfterCut: (result) => {
          if (!deps.log.replaceToolOutput(result.call.callId, result.output)) return;
          deps.reporter.trace({
            type: 'tool_result_after_cut',
            speechId: handle.id,
            callId: result.call.callId,
            name: result.call.name,
          });
        },
        onRenamed: (call, modelCallId) =>
          deps.reporter.trace({
            type: 'tool_call_renamed',
            speechId: handle.id,
            modelCallId,
            callId: call.callId,
            name: call.name,
          }),
      });
      const chatCtx = buildChatCtx(agent, request.instructions);
      const text = new Channel<string>({ capacity: 256, overflow: 'block', name: `llm-text-${handle.id}` });
      // The speculative request answers exactly this step only if it was made for this very context.
      const preemptive =
        step === 1 &&
        request.preemptive?.matches({
          ...request.preemptive.key,
          agent,
          llm,
          instructions: agent.instructions,
        })
          ? request.preemptive
          : undefined;
      const generation = generate(deps, handle, llm, chatCtx, agent, toolChoice, text, preemptive, (call) =>
        runner!.start(call),
      );
      // Awaited below; a playout failure must not leave this rejection unobserved.
      generation.catch(() => {});
      try {
        const playout = await playSpeechStep(deps.playout, handle, {
          text,
          tts: agent.tts ?? deps.agents.tts,
        });
        await generation;
        deps.log.addAssistantMessage(playout);
      } finally {
        text.dispose();
      }
    } catch (error) {
      stepError = error;
      // Words the user heard before the failure stay in the history, marked interrupted.
      const heard = takePartialPlayout(handle);
      if (heard) deps.log.addAssistantMessage(heard);
    } finally {
      stepPlayedResolve();
      grant.release();
    }
    if (runner && runner.count > 0) {
      deps.activity.toolPhaseStarted(handle);
      deps.scheduler.reserve(handle);
      let results: ToolCallResult[];
      try {
        results = await runner.results();
      } finally {
        deps.activity.toolPhaseEnded(handle);
      }
      for (const r of results) {
        deps.reporter.trace({
          type: 'tool_finished',
          speechId: handle.id,
          callId: r.call.callId,
          name: r.call.name,
          outcome: r.outcome,
        });
        if (r.crash !== undefined) deps.reporter.error('tool', r.crash, true);
      }
      const outputs = deps.log.addToolBatch(handle, results);
      runner.recorded(results);
      // A tool that ran out of time can finish while its AgentTask is still exiting: the next step is the
      // parent's, once the task has handed back (a task that completed has already handed back here).
      if (owner !== deps.agents.current) await deps.transitions.tasksHandedBack(handle);
      const handoff = results.find((r) => r.handoff)?.handoff;
      if (handoff && !stepError) {
        await deps.transitions.handoff(handoff);
        break;
      }
      const wantsReply = outputs.some((o) => o.output !== '' || o.isError);
      if (stepError || handle.interrupted || step >= deps.maxToolSteps || !wantsReply) {
        if (stepError) throw stepError;
        break;
      }
      toolChoice = toolChoice === 'required' || typeof toolChoice === 'object' ? 'auto' : toolChoice;
      continue;
    }
    if (stepError) throw stepError;
    break;
  }
  // Unused (the speech was cut before its first step) or used up: either way the request ends.
  request.preemptive?.cancel();
  handle.markDone(handle.interrupted ? 'interrupted' : 'played');
}

async function generate(
  deps: ReplyDeps,
  handle: SpeechHandle,
  llm: LLM,
  chatCtx: ChatContext,
  agent: Agent,
  toolChoice: ToolChoice | undefined,
  text: Channel<string>,
  preemptive: PreemptiveGeneration | undefined,
  onToolCall: (call: FunctionCall) => void,
): Promise<void> {
  const signal = handle.interruptSignal;
  const startedAt = deps.clock.now();
  let ttft: number | undefined;
  let usage: LLMUsage | undefined;
  deps.activity.generationStarted(handle);
  try {
    const { llmFirstChunkTimeoutMs, llmChunkTimeoutMs } = deps.session.deadlines;
    // A model that stops sending (before its first chunk or mid-reply) fails the step with a timeout,
    // even when it ignores its abort signal; the wait for the text channel does not count. A speculative
    // request taken over is held to the same deadlines from here on.
    const stream = withIdleTimeout(
      (callSignal) =>
        preemptive
          ? preemptive.take(callSignal)
          : llm.chat({
              ...chatOptions(agent, llm, chatCtx, toolChoice),
              signal: callSignal,
              onProblem: (problem) =>
                deps.session.reportError('llm', new ProviderProblemError(problem), true),
            }),
      {
        clock: deps.clock,
        firstItemTimeoutMs: llmFirstChunkTimeoutMs,
        idleTimeoutMs: llmChunkTimeoutMs,
        signal,
        label: llm.label,
      },
    );
    if (preemptive) deps.reporter.trace({ type: 'preemptive_generation_used', speechId: handle.id });
    for await (const part of stream) {
      if (ttft === undefined && (part.type === 'text_delta' || part.type === 'tool_call')) {
        ttft = deps.clock.now() - startedAt;
      }
      switch (part.type) {
        case 'text_delta':
          await text.send(part.text, signal);
          break;
        case 'tool_call':
          onToolCall({
            type: 'function_call',
            id: deps.newId('fnc'),
            callId: part.callId,
            name: part.name,
            arguments: part.arguments,
            createdAtMs: deps.clock.now(),
          });
          break;
        case 'usage':
          usage = part.usage;
          break;
        case 'finish':
          break;
      }
    }
    text.close();
  } catch (error) {
    if (signal.aborted) text.close();
    else text.fail(tagErrorSource(error, 'llm'));
    if (!signal.aborted) throw error;
  } finally {
    deps.activity.generationEnded(handle);
    const durationMs = deps.clock.now() - startedAt;
    const generatingMs = durationMs - (ttft ?? 0);
    deps.reporter.metrics({
      type: 'llm',
      speechId: handle.id,
      label: llm.label,
      ttftMs: ttft,
      durationMs,
      tokensPerSecond:
        usage && generatingMs > 0 ? Math.round((usage.completionTokens * 1000) / generatingMs) : undefined,
      usage,
    });
  }
}

/** The request a step makes (the preemptive one is made the same way, before the turn commits). */
export function chatOptions(
  agent: Agent,
  llm: LLM,
  chatCtx: ChatContext,
  toolChoice: ToolChoice | undefined,
): Pick<LLMChatOptions, 'messages' | 'tools' | 'toolChoice'> {
  const tools = llm.supportsToolCalls ? toolDefinitions(agent.tools) : [];
  return {
    messages: toLLMMessages(chatCtx),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { toolChoice } : {}),
  };
}

export function buildChatCtx(agent: Agent, extraInstructions: string | undefined): ChatContext {
  const chatCtx = agent.chatCtx.copy();
  const instructions = extraInstructions
    ? `${agent.instructions}\n\n${extraInstructions}`
    : agent.instructions;
  if (instructions.trim() !== '') chatCtx.setInstructions(instructions);
  return chatCtx;
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}
