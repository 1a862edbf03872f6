import type { ChatContext, ChatItem, FunctionCall } from '../../llm/chat-context.js';

/** Why a call the model made is not run. */
export type SkipReason = 'repeated_in_response' | 'already_answered' | 'already_running';

export type Admission = { run: true; call: FunctionCall } | { run: false; reason: SkipReason };

export interface ToolCallIdsDeps {
  /** Everything the session recorded. */
  history: ChatContext;
  /** What the model sees: the agent's context, which may hold calls restored from an earlier session. */
  context(): ChatContext;
}

interface RunningCall {
  name: string;
  arguments: string;
  /** User messages in the history when it started: a later one begins another turn. */
  userMessages: number;
}

/**
 * The call-id rule of the LLM contract (see `LLMStreamPart` in providers/llm.ts). Ids are the model's;
 * the history needs each id to name one call and its one output. So, for each call of a response:
 *
 * 1. an id already used by an earlier call of the same response is a repeat: not run;
 * 2. an id already used in the conversation by a call with the same name and arguments, with no user
 *    message since that call, is the model re-emitting it in the same turn (e.g. a reply continued after
 *    an interruption): not run again while it runs or once it has its result, and the recorded output
 *    stands;
 * 3. any other id already in use (a model numbering its calls `call_0` every turn, the same id for
 *    another call, or a retry of a call that was cancelled) is a new call: it runs, recorded under a
 *    fresh id `<id>_<n>` (n = 2, 3... the first free), which the model sees from then on.
 */
export class ToolCallIds {
  private readonly running = new Map<string, RunningCall>();
  /** Recorded calls whose output is a cancellation: calling them again is a retry. */
  private readonly cancelled = new Set<string>();

  constructor(private readonly deps: ToolCallIdsDeps) {}

  /** Decides whether `call` runs, and under which id. `response` holds the model's ids seen so far. */
  admit(call: FunctionCall, response: Set<string>): Admission {
    if (response.has(call.callId)) return { run: false, reason: 'repeated_in_response' };
    response.add(call.callId);
    const running = this.running.get(call.callId);
    if (running) {
      const sameTurn = running.userMessages === this.userMessages();
      if (sameTurn && running.name === call.name && running.arguments === call.arguments)
        return { run: false, reason: 'already_running' };
      return this.start({ ...call, callId: this.freshId(call.callId) });
    }
    const recorded = this.recordedCall(call.callId);
    if (recorded) {
      const same = recorded.call.name === call.name && recorded.call.arguments === call.arguments;
      if (same && !recorded.userSince && !this.cancelled.has(call.callId))
        return { run: false, reason: 'already_answered' };
      return this.start({ ...call, callId: this.freshId(call.callId) });
    }
    return this.start(call);
  }

  /** The call's output was recorded: its id now lives in the history. */
  finished(callId: string, cancelled: boolean): void {
    this.running.delete(callId);
    if (cancelled) this.cancelled.add(callId);
  }

  private start(call: FunctionCall): Admission {
    this.running.set(call.callId, {
      name: call.name,
      arguments: call.arguments,
      userMessages: this.userMessages(),
    });
    return { run: true, call };
  }

  private userMessages(): number {
    let n = 0;
    for (const item of this.deps.history.items) if (isUserMessage(item)) n++;
    return n;
  }

  /** The latest recorded call with this id, and whether a user message came after it. */
  private recordedCall(callId: string): { call: FunctionCall; userSince: boolean } | undefined {
    for (const ctx of [this.deps.history, this.deps.context()]) {
      const items = ctx.items;
      let userSince = false;
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i]!;
        if (isUserMessage(item)) userSince = true;
        else if (item.type === 'function_call' && item.callId === callId) return { call: item, userSince };
      }
    }
    return undefined;
  }

  private inUse(callId: string): boolean {
    if (this.running.has(callId)) return true;
    const used = (ctx: ChatContext): boolean =>
      ctx.items.some(
        (i) => (i.type === 'function_call' || i.type === 'function_call_output') && i.callId === callId,
      );
    return used(this.deps.history) || used(this.deps.context());
  }

  private freshId(callId: string): string {
    for (let n = 2; ; n++) {
      const id = `${callId}_${n}`;
      if (!this.inUse(id)) return id;
    }
  }
}

function isUserMessage(item: ChatItem): boolean {
  return item.type === 'message' && item.role === 'user';
}
