import { ToolError, ToolTimeoutError } from '../../errors.js';
import type { FunctionCall, FunctionCallOutput } from '../../llm/chat-context.js';
import type { Clock } from '../../time/clock.js';
import { Agent } from '../agent/agent.js';
import type { AgentSession } from '../session/agent-session.js';
import type { InterruptReason } from '../session/trace.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { RunContext } from './run-context.js';
import { runInScope } from './run-scope.js';
import type { AnyTool } from './tool.js';
import type { SkipReason, ToolCallIds } from './tool-call-ids.js';

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
  clock: Clock;
  tools: readonly AnyTool[];
  /** The speech the calls belong to: its interruption aborts them. */
  speech: SpeechHandle;
  /** Aborts when the session closes: calls still running are cancelled at once. */
  closed: AbortSignal;
  /** The limit of a tool without its own `timeoutMs`; undefined: none. */
  defaultTimeoutMs: number | undefined;
  /** Which calls run, and under which id (the call-id rule). */
  ids: Pick<ToolCallIds, 'admit' | 'finished'>;
  // biome-ignore lint/suspicious/noExplicitAny: idem.
  makeContext(call: FunctionCall, signal: AbortSignal): RunContext<any>;
  onStarted(call: FunctionCall): void;
  /** What the call-id rule decided for a call the model made, unless it simply runs. */
  onSkipped(call: FunctionCall, reason: SkipReason): void;
  onRenamed(call: FunctionCall, modelCallId: string): void;
  /**
   * A call recorded as cancelled (its speech was cut) returned a value after all: that value replaces
   * the cancellation, so the history says what the tool did (an order it placed is not "cancelled").
   */
  onResultAfterCut(result: ToolCallResult): void;
}

/**
 * Runs the tool calls of one LLM step, each as soon as it arrives, in parallel. Every call that runs gets
 * exactly one result, whatever the tool does with its signal: the tool's output, a ToolError message for
 * the model, a timeout (`timeoutMs`), or a cancellation when the speech is interrupted or the session
 * closes. The call's `ctx.signal` aborts in the last three cases.
 */
export class ToolRunner {
  private readonly running: Array<Promise<ToolCallResult>> = [];
  private readonly seen = new Set<string>();
  /** Calls whose results are in the history. */
  private readonly recordedIds = new Set<string>();
  /** Values returned after a cut, before the cancellation was recorded: applied right after it is. */
  private readonly pendingAfterCut = new Map<string, ToolCallResult>();

  constructor(private readonly deps: ToolRunnerDeps) {}

  /** Calls that run (repeats and re-emissions are not counted). */
  get count(): number {
    return this.running.length;
  }

  start(given: FunctionCall): void {
    const admission = this.deps.ids.admit(given, this.seen);
    if (!admission.run) {
      this.deps.onSkipped(given, admission.reason);
      return;
    }
    if (admission.call.callId !== given.callId) this.deps.onRenamed(admission.call, given.callId);
    this.running.push(this.run(admission.call));
  }

  /** Waits for every call started so far (including ones started while waiting). */
  async results(): Promise<ToolCallResult[]> {
    let settled: ToolCallResult[] = [];
    while (settled.length < this.running.length) settled = await Promise.all(this.running);
    return settled;
  }

  /** The batch was recorded: its ids now live in the history. */
  recorded(results: readonly ToolCallResult[]): void {
    for (const r of results) {
      this.recordedIds.add(r.call.callId);
      const late = this.pendingAfterCut.get(r.call.callId);
      this.pendingAfterCut.delete(r.call.callId);
      if (late) this.resultAfterCut(late);
      else this.deps.ids.finished(r.call.callId, r.outcome === 'cancelled');
    }
  }

  private resultAfterCut(result: ToolCallResult): void {
    if (!this.recordedIds.has(result.call.callId)) {
      this.pendingAfterCut.set(result.call.callId, result);
      return;
    }
    // The call did its work: a model re-emitting it must not run it again.
    this.deps.ids.finished(result.call.callId, false);
    this.deps.onResultAfterCut(result);
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
    const { speech, closed, clock } = this.deps;
    // The tool's own signal: the speech's interruption, its timeout or the close, whichever comes first.
    const controller = new AbortController();
    const stop = (reason: unknown): void => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    const ctx = this.deps.makeContext(call, controller.signal);
    this.deps.onStarted(call);
    if (speech.interruptSignal.aborted) return cancelledResult(call, speech.interruptReason);
    let giveUp!: (result: ToolCallResult) => void;
    const givenUp = new Promise<ToolCallResult>((resolve) => {
      giveUp = resolve;
    });
    let timedOut: ToolCallResult | undefined;
    const timeoutMs = tool.timeoutMs ?? this.deps.defaultTimeoutMs;
    const timer =
      timeoutMs === undefined || timeoutMs === Number.POSITIVE_INFINITY
        ? undefined
        : clock.setTimer(timeoutMs, () => {
            const error = new ToolTimeoutError(call.name, timeoutMs);
            timedOut = {
              ...errorResult(call, `${error.message}; it was stopped.`),
              crash: error,
            };
            stop(error);
            giveUp(timedOut);
          });
    // An interrupted call is cancelled at once: the model hears why, and may call again. A value the
    // tool returns later anyway replaces the cancellation (see onResultAfterCut).
    let cut = false;
    const onSpeechInterrupted = (): void => {
      cut = true;
      stop(speech.interruptSignal.reason);
      giveUp(cancelledResult(call, speech.interruptReason));
    };
    const onClosed = (): void => {
      stop(closed.reason);
      giveUp(cancelledResult(call, 'close'));
    };
    speech.interruptSignal.addEventListener('abort', onSpeechInterrupted, { once: true });
    closed.addEventListener('abort', onClosed, { once: true });
    if (closed.aborted) onClosed();
    const execution = runInScope({ session: this.deps.session, runContext: ctx }, () =>
      Promise.resolve().then(() => tool.execute(args, ctx)),
    );
    const outcome = execution.then(
      (value) => timedOut ?? okResult(call, value),
      (error: unknown) => {
        if (timedOut) return timedOut;
        if (error instanceof ToolError) return errorResult(call, error.message);
        if (controller.signal.aborted) return cancelledResult(call, speech.interruptReason ?? 'close');
        // `throw undefined` or `throw 'text'` is as much a crash as a thrown Error: the `error` event
        // needs something to carry, and `crash: undefined` would read as "no crash".
        return {
          ...errorResult(call, `The tool "${call.name}" failed unexpectedly.`),
          crash: crashOf(call, error),
        };
      },
    );
    try {
      const result = await Promise.race([outcome, givenUp]);
      if (cut && result.outcome === 'cancelled') {
        // A value returned later anyway is what the tool did. A handoff is not followed: the reply
        // that asked for it is gone.
        void outcome.then((late) => {
          if (late.outcome === 'ok' && !late.handoff) this.resultAfterCut(late);
        });
      }
      return result;
    } finally {
      timer?.cancel();
      speech.interruptSignal.removeEventListener('abort', onSpeechInterrupted);
      closed.removeEventListener('abort', onClosed);
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
