import { setMaxListeners } from 'node:events';
import { VoxwireError } from '../../errors.js';
import type { InterruptReason, SpeechOutcome } from '../session/trace.js';

export const SpeechPriority = {
  low: 0,
  normal: 5,
  high: 10,
} as const;

export interface SpeechHandleInit {
  id: string;
  allowInterruptions: boolean;
  priority?: number;
  /** Where the speech came from, for events and traces. */
  source: 'say' | 'generate_reply' | 'user_turn' | 'tool_response' | 'agent_task';
  /** The committed user turn this speech answers, if any. */
  turnId?: string | undefined;
}

/** Thrown when a tool awaits the very speech it belongs to: that wait could never end. */
export class SpeechDeadlockError extends VoxwireError {
  override name = 'SpeechDeadlockError';
}

/**
 * One thing the agent says: a `say()`, or a reply that may take several LLM steps with tool calls in
 * between. It ends exactly once: played to the end, interrupted, or failed with an error.
 */
export class SpeechHandle implements PromiseLike<void> {
  readonly id: string;
  readonly priority: number;
  readonly source: SpeechHandleInit['source'];
  readonly turnId: string | undefined;
  private allow: boolean;
  private holds = 0;
  private outcomeValue: SpeechOutcome | undefined;
  private errorValue: unknown;
  private interruptReasonValue: InterruptReason | undefined;
  private readonly interruptController = new AbortController();
  private readonly donePromise: Promise<void>;
  private resolveDone!: () => void;
  private readonly doneListeners = new Set<() => void>();
  private readonly interruptListeners = new Set<(reason: InterruptReason) => void>();
  private readonly holdListeners = new Set<(holds: number) => void>();
  /**
   * Set by the session: the conversation thread this speech belongs to. A tool's `say` and the speeches
   * of an AgentTask share the thread of the speech that started them; threads play in creation order.
   */
  threadSeq = 0;
  /** Set by the session: tells whether the caller is running inside this speech's own tools. */
  isCurrentToolContext: () => boolean = () => false;

  constructor(init: SpeechHandleInit) {
    this.id = init.id;
    this.allow = init.allowInterruptions;
    this.priority = init.priority ?? SpeechPriority.normal;
    this.source = init.source;
    this.turnId = init.turnId;
    // Every stage of the speech (LLM, TTS, playout, each tool) listens to this one signal.
    setMaxListeners(0, this.interruptController.signal);
    this.donePromise = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** False once created uninterruptible or after a tool called `disallowInterruptions()`. */
  get allowInterruptions(): boolean {
    return this.allow;
  }

  /** Whether user activity may interrupt it now: allowed and no interruption hold outstanding. */
  get interruptible(): boolean {
    return this.allow && this.holds === 0 && !this.done() && !this.interrupted;
  }

  get interrupted(): boolean {
    return this.interruptController.signal.aborted;
  }

  get interruptReason(): InterruptReason | undefined {
    return this.interruptReasonValue;
  }

  /** Aborts when the speech is interrupted; tools listen to it. */
  get interruptSignal(): AbortSignal {
    return this.interruptController.signal;
  }

  get outcome(): SpeechOutcome | undefined {
    return this.outcomeValue;
  }

  /** The failure, when the outcome is `failed`. */
  get error(): unknown {
    return this.errorValue;
  }

  get holdCount(): number {
    return this.holds;
  }

  done(): boolean {
    return this.outcomeValue !== undefined;
  }

  /**
   * Interrupts the speech. Without `force`, an uninterruptible speech is left alone and `false` is
   * returned. Interrupting a finished speech is a no-op.
   */
  interrupt(options: { force?: boolean } = {}): boolean {
    return this.requestInterrupt(options.force ? 'forced' : 'api', options.force ?? false);
  }

  /** Resolves when the speech has stopped playing for good (played, interrupted or failed). */
  waitForPlayout(): Promise<void> {
    if (!this.done() && this.isCurrentToolContext()) {
      return Promise.reject(
        new SpeechDeadlockError(
          `A tool of speech ${this.id} awaited that same speech, which cannot end before the tool does. ` +
            'Use ctx.waitForPlayout() to wait for the audio played before the tool call.',
        ),
      );
    }
    return this.donePromise;
  }

  // biome-ignore lint/suspicious/noThenProperty: awaiting a handle waits for its playout, by design.
  then<R1 = void, R2 = never>(
    // biome-ignore lint/suspicious/noConfusingVoidType: mirrors PromiseLike<void>.
    onfulfilled?: ((value: void) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    return this.waitForPlayout().then(onfulfilled, onrejected);
  }

  /** Registers a callback for the end of the speech (called at once if already done). */
  onDone(listener: () => void): () => void {
    if (this.done()) {
      listener();
      return () => {};
    }
    this.doneListeners.add(listener);
    return () => this.doneListeners.delete(listener);
  }

  onInterrupt(listener: (reason: InterruptReason) => void): () => void {
    this.interruptListeners.add(listener);
    return () => this.interruptListeners.delete(listener);
  }

  onHoldChange(listener: (holds: number) => void): () => void {
    this.holdListeners.add(listener);
    return () => this.holdListeners.delete(listener);
  }

  // ---- session-side API (not for users) ----

  /** @internal */
  requestInterrupt(reason: InterruptReason, force: boolean): boolean {
    if (this.done() || this.interrupted) return false;
    if (!force && !this.interruptible) return false;
    this.interruptReasonValue = reason;
    this.interruptController.abort(SpeechInterruptedReason.of(reason));
    for (const listener of [...this.interruptListeners]) listener(reason);
    return true;
  }

  /** @internal Makes the speech uninterruptible for good. */
  disallowInterruptions(): void {
    this.allow = false;
  }

  /**
   * @internal A counted hold: the speech is uninterruptible until every hold is released. Releasing twice,
   * or after the speech ended, does nothing.
   */
  holdInterruptions(): () => void {
    let released = false;
    this.holds++;
    this.notifyHolds();
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.notifyHolds();
    };
  }

  /** @internal Ends the speech. Only the first call counts. */
  markDone(outcome: SpeechOutcome, error?: unknown): void {
    if (this.outcomeValue !== undefined) return;
    this.outcomeValue = this.interrupted && outcome === 'played' ? 'interrupted' : outcome;
    this.errorValue = error;
    this.resolveDone();
    for (const listener of [...this.doneListeners]) listener();
    this.doneListeners.clear();
    this.interruptListeners.clear();
    this.holdListeners.clear();
  }

  private notifyHolds(): void {
    for (const listener of [...this.holdListeners]) listener(this.holds);
  }
}

/** The abort reason carried by a speech's interrupt signal. */
export class SpeechInterruptedReason extends VoxwireError {
  override name = 'AbortError';
  constructor(readonly reason: InterruptReason) {
    super(`speech interrupted (${reason})`);
  }

  /**
   * The one instance for `reason` that interrupted speeches carry. An error records its stack, async
   * frames included, when it is made, which cost more than the rest of an interruption; the reason is
   * a signal for the speech's waits to stop, and no one reads where it was made.
   */
  static of(reason: InterruptReason): SpeechInterruptedReason {
    let shared = sharedReasons.get(reason);
    if (!shared) {
      shared = new SpeechInterruptedReason(reason);
      sharedReasons.set(reason, shared);
    }
    return shared;
  }
}

const sharedReasons = new Map<InterruptReason, SpeechInterruptedReason>();
