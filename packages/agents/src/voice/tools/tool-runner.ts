import { ToolError } from '../../errors.js';
import type { FunctionCall, FunctionCallOutput } from '../../llm/chat-context.js';
import type { AnyTool } from './tool.js';
import { Agent } from '../agent/agent.js';
import type { RunContext } from './run-context.js';
import type { InterruptReason } from '../session/trace.js';
import { runInScope } from './run-scope.js';
import type { AgentSession } from '../session/agent-session.js';

export interface ToolCallResult {
  call: FunctionCall;
  output: Omit<FunctionCallOutput, 'id' | 'createdAtMs' | 'type'>;
  /** The tool returned an agent to hand the conversation to. */
  handoff: Agent | undefined;
  outcome: 'ok' | 'error' | 'cancelled';
  /** A failure that is the tool's bug (not a ToolError), reported as an `error` event. */
  crash: unknown;
}

export interface ToolRunnerDeps {
  // biome-ignore lint/suspicious/noExplicitAny: tools of any user data type run here.
  session: AgentSession<any>;
  tools: readonly AnyTool[];
  // biome-ignore lint/suspicious/noExplicitAny: idem.
  makeContext(call: FunctionCall): RunContext<any>;
  onStarted(call: FunctionCall): void;
}

/**
 * Runs the tool calls of one LLM step, each as soon as it arrives, in parallel. Every call gets exactly
 * one result: the tool's output, a ToolError message for the model, or a cancellation when the speech
 * is interrupted (the tool's signal aborts; a late result is ignored).
 */
export class ToolRunner {
  private readonly running: Array<Promise<ToolCallResult>> = [];

  constructor(private readonly deps: ToolRunnerDeps) {}

  get count(): number {
    return this.running.length;
  }

  start(call: FunctionCall): void {
    this.running.push(this.run(call));
  }

  /** Waits for every call started so far (including ones started while waiting). */
  async results(): Promise<ToolCallResult[]> {
    let settled: ToolCallResult[] = [];
    while (settled.length < this.running.length) settled = await Promise.all(this.running);
    return settled;
  }

  private async run(call: FunctionCall): Promise<ToolCallResult> {
    const tool = this.deps.tools.find((t) => t.name === call.name);
    if (!tool) {
      const known = this.deps.tools.map((t) => t.name).join(', ') || 'none';
      return errorResult(call, `Unknown tool "${call.name}". Available tools: ${known}.`);
    }
    let args: unknown;
    try {
      args = tool.parseArguments(call.arguments);
    } catch (error) {
      if (error instanceof ToolError) return errorResult(call, messageOf(error));
      // Not the model's mistake (a schema that cannot parse): the model hears it, the app gets an event.
      return { ...errorResult(call, messageOf(error)), crash: crashOf(call, error) };
    }
    const ctx = this.deps.makeContext(call);
    this.deps.onStarted(call);
    const signal = ctx.signal;
    if (signal.aborted) return cancelledResult(call, ctx.speechHandle.interruptReason);
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<'cancelled'>((resolve) => {
      onAbort = () => resolve('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const execution = runInScope({ session: this.deps.session, runContext: ctx }, () =>
      Promise.resolve().then(() => tool.execute(args, ctx)),
    );
    // A tool that ignores its signal may still finish later; its late outcome must not escape.
    execution.catch(() => {});
    try {
      const value = await Promise.race([execution, cancelled]);
      if (value === 'cancelled' && signal.aborted)
        return cancelledResult(call, ctx.speechHandle.interruptReason);
      return okResult(call, value);
    } catch (error) {
      if (error instanceof ToolError) return errorResult(call, error.message);
      if (signal.aborted) return cancelledResult(call, ctx.speechHandle.interruptReason);
      // `throw undefined` or `throw 'text'` is as much a crash as a thrown Error: the `error` event
      // needs something to carry, and `crash: undefined` would read as "no crash".
      return {
        ...errorResult(call, `The tool "${call.name}" failed unexpectedly.`),
        crash: crashOf(call, error),
      };
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }
}

function okResult(call: FunctionCall, value: unknown): ToolCallResult {
  let handoff: Agent | undefined;
  let output = '';
  if (value instanceof Agent) {
    handoff = value;
    output = `Transferred the conversation to ${value.id}.`;
  } else if (typeof value === 'string') {
    output = value;
  } else if (value !== undefined && value !== null) {
    const serialised = serialise(value);
    if (typeof serialised !== 'string') {
      // The model must not be told "[object Object]" as a success: it is the tool's bug, reported as such.
      const message = `The tool "${call.name}" returned a result that cannot be sent to the model (${serialised.reason}).`;
      return { ...errorResult(call, message), crash: new ToolError(message, { cause: serialised.cause }) };
    }
    output = serialised;
  }
  return {
    call,
    output: { callId: call.callId, name: call.name, output, isError: false },
    handoff,
    outcome: 'ok',
    crash: undefined,
  };
}

/** The result as JSON text, or why it has none (cycles, BigInt, a function). */
function serialise(value: unknown): string | { reason: string; cause?: unknown } {
  try {
    const text = JSON.stringify(value);
    return typeof text === 'string' ? text : { reason: `a ${typeof value} has no JSON form` };
  } catch (error) {
    // V8's message for a cycle spans lines; the model gets one.
    return { reason: messageOf(error).replace(/\s+/g, ' '), cause: error };
  }
}

function crashOf(call: FunctionCall, thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new ToolError(
    `The tool "${call.name}" threw a value that is not an Error: ${describeThrown(thrown)}`,
    {
      cause: thrown,
    },
  );
}

function describeThrown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}

function errorResult(call: FunctionCall, message: string): ToolCallResult {
  return {
    call,
    output: { callId: call.callId, name: call.name, output: message, isError: true },
    handoff: undefined,
    outcome: 'error',
    crash: undefined,
  };
}

const CANCEL_REASONS: Record<InterruptReason, string> = {
  user_speech: 'the user interrupted',
  user_words: 'the user interrupted',
  user_turn: 'the user said something new',
  superseded: 'the user moved on to a new request',
  api: 'the application interrupted the reply',
  forced: 'the application interrupted the reply',
  close: 'the session closed',
};

function cancelledResult(call: FunctionCall, reason: InterruptReason | undefined): ToolCallResult {
  return {
    call,
    output: {
      callId: call.callId,
      name: call.name,
      output: `The tool call was cancelled because ${CANCEL_REASONS[reason ?? 'user_speech']}.`,
      isError: true,
    },
    handoff: undefined,
    outcome: 'cancelled',
    crash: undefined,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
