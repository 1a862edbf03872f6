import type { LLM, LLMChatOptions, LLMStreamPart } from '../../providers/llm.js';
import type { Agent } from '../agent/agent.js';

/** What a speculative request was made for: the reply may use it only if all of it still holds. */
export interface PreemptiveKey {
  agent: Agent;
  llm: LLM;
  instructions: string;
  /** The user's pending text the request answers. */
  transcript: string;
  /** Ids of the agent's conversation items when the request started (the user's message excluded). */
  contextIds: string;
}

/** The conversation an agent's request is made from, as the ids of its items. */
export function contextIdsOf(agent: Agent): string {
  return agent.chatCtx.items.map((item) => item.id).join(',');
}

/** More buffered parts than this, and the speculation is given up: its reply asks the LLM afresh. */
const MAX_BUFFERED_PARTS = 4096;

/**
 * An LLM request started on a final transcript before the user's turn is committed
 * (`turnHandling.preemptiveGeneration`). It is not a speech: it holds no place in the speech queue, no
 * output and no tool (its tool calls are only buffered), so discarding it (the user went on, the
 * transcript changed, the turn was skipped) costs nothing but the request. The reply to the committed
 * turn takes its parts, once, if the turn and the conversation are still what it was started for.
 */
export class PreemptiveGeneration {
  private readonly controller = new AbortController();
  private readonly parts: LLMStreamPart[] = [];
  private finished = false;
  private failure: unknown;
  private usable = true;
  private taken = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly key: PreemptiveKey,
    options: Omit<LLMChatOptions, 'signal'>,
  ) {
    void this.pump(options);
  }

  /** Whether a reply made now for `key` may use this request instead of its own. */
  matches(key: PreemptiveKey): boolean {
    const k = this.key;
    // A request that failed before a reply wanted it is not worth reporting: the reply asks afresh.
    return (
      this.usable &&
      this.failure === undefined &&
      !this.taken &&
      !this.controller.signal.aborted &&
      k.agent === key.agent &&
      k.llm === key.llm &&
      k.instructions === key.instructions &&
      k.transcript === key.transcript &&
      k.contextIds === key.contextIds
    );
  }

  /** Ends the request; its parts are dropped. Idempotent. */
  cancel(): void {
    this.controller.abort();
    this.parts.length = 0;
    this.usable = false;
    this.wake?.();
  }

  /** The request's parts so far and to come, for one reply; aborting `signal` ends the request. */
  async *take(signal: AbortSignal): AsyncGenerator<LLMStreamPart> {
    this.taken = true;
    const onAbort = (): void => this.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      let next = 0;
      for (;;) {
        if (signal.aborted) return;
        if (next < this.parts.length) {
          yield this.parts[next++]!;
          continue;
        }
        if (this.finished) {
          if (this.failure !== undefined) throw this.failure;
          return;
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async pump(options: Omit<LLMChatOptions, 'signal'>): Promise<void> {
    const signal = this.controller.signal;
    try {
      for await (const part of this.key.llm.chat({ ...options, signal })) {
        if (signal.aborted) break;
        if (this.parts.length >= MAX_BUFFERED_PARTS) {
          this.cancel();
          break;
        }
        this.parts.push(part);
        this.wake?.();
      }
    } catch (error) {
      // A failure is the reply's to report, if a reply takes this request; a discarded one is forgotten.
      if (!signal.aborted) this.failure = error;
    } finally {
      this.finished = true;
      this.wake?.();
    }
  }
}
