import type { ActivityState } from '../session/activity-state.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { SpeechHandle } from './speech-handle.js';

interface Request {
  readonly handle: SpeechHandle;
  readonly step: number;
  readonly seq: number;
  readonly resolve: (grant: OutputGrant | undefined) => void;
  readonly unsubscribe: () => void;
}

/** Permission for one step of one speech to send audio to the output. Release it exactly once. */
export interface OutputGrant {
  readonly handle: SpeechHandle;
  readonly step: number;
  release(): void;
}

export interface SpeechSchedulerDeps {
  /** Each decision is traced: queued, authorized, released. */
  reporter: Pick<SessionReporter, 'trace'>;
  /** A speech holding the output is under way (the agent thinks or speaks). */
  activity: Pick<ActivityState, 'speechAuthorized' | 'speechReleased'>;
}

/**
 * Decides which speech may use the audio output. One grant at a time, highest priority first, then in
 * request order. A speech holds the output only while one of its steps plays, never while its tools
 * run, so a tool can `say()` and await it without a circular wait. A queued request whose speech is
 * interrupted or ends is dropped at once, so the queue never stalls behind a handle that cannot play.
 */
export class SpeechScheduler {
  private readonly queue: Request[] = [];
  private readonly reserved = new Map<SpeechHandle, () => void>();
  private active: OutputGrant | undefined;
  private seq = 0;
  private closed = false;

  constructor(private readonly deps: SpeechSchedulerDeps) {}

  /** The speech whose step currently holds the output, if any. */
  get current(): SpeechHandle | undefined {
    return this.active?.handle;
  }

  /** Which step of the current speech holds the output (a new step is a new target for interruptions). */
  get currentStep(): number | undefined {
    return this.active?.step;
  }

  get queuedHandles(): SpeechHandle[] {
    return this.queue.map((r) => r.handle);
  }

  get idle(): boolean {
    return this.active === undefined && this.queue.length === 0;
  }

  /**
   * Resolves with a grant when the step may play, or with `undefined` when the speech ended or was
   * interrupted before its turn (or the scheduler closed).
   */
  request(handle: SpeechHandle, step: number): Promise<OutputGrant | undefined> {
    if (this.closed || handle.done() || handle.interrupted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const drop = (): void => {
        const i = this.queue.indexOf(request);
        if (i >= 0) {
          this.queue.splice(i, 1);
          request.unsubscribe();
          resolve(undefined);
        }
      };
      const offDone = handle.onDone(drop);
      const offInterrupt = handle.onInterrupt(drop);
      const request: Request = {
        handle,
        step,
        seq: this.seq++,
        resolve,
        unsubscribe: () => {
          offDone();
          offInterrupt();
        },
      };
      this.insert(request);
      this.deps.reporter.trace({ type: 'speech_queued', speechId: handle.id, priority: handle.priority });
      this.unreserve(handle);
      this.pump();
    });
  }

  /**
   * Keeps the place of a speech whose tools are running: replies to newer user turns wait for its next
   * step, so the conversation finishes its current thought first. Speeches of the same conversation
   * thread (a tool's `say`, an AgentTask's speech) are not held back. The reservation ends when the
   * speech requests its next step, ends, or is interrupted.
   */
  reserve(handle: SpeechHandle): void {
    if (this.reserved.has(handle) || handle.done() || handle.interrupted) return;
    const offDone = handle.onDone(() => this.unreserve(handle));
    const offInterrupt = handle.onInterrupt(() => this.unreserve(handle));
    this.reserved.set(handle, () => {
      offDone();
      offInterrupt();
    });
  }

  /** Rejects every queued request and grants nothing more. */
  close(): void {
    this.closed = true;
    const pending = this.queue.splice(0);
    for (const request of pending) {
      request.unsubscribe();
      request.resolve(undefined);
    }
  }

  private unreserve(handle: SpeechHandle): void {
    const off = this.reserved.get(handle);
    if (!off) return;
    this.reserved.delete(handle);
    off();
    this.pump();
  }

  private blocked(request: Request): boolean {
    if (request.handle.source !== 'user_turn') return false;
    for (const held of this.reserved.keys()) {
      if (held.threadSeq < request.handle.threadSeq) return true;
    }
    return false;
  }

  private insert(request: Request): void {
    let i = this.queue.length;
    while (i > 0 && outranks(request, this.queue[i - 1]!)) i--;
    this.queue.splice(i, 0, request);
  }

  private pump(): void {
    if (this.active || this.closed) return;
    const index = this.queue.findIndex((r) => !this.blocked(r));
    if (index < 0) return;
    const [request] = this.queue.splice(index, 1);
    if (!request) return;
    request.unsubscribe();
    let released = false;
    const grant: OutputGrant = {
      handle: request.handle,
      step: request.step,
      release: () => {
        if (released) return;
        released = true;
        if (this.active === grant) this.active = undefined;
        this.deps.reporter.trace({ type: 'speech_released', speechId: grant.handle.id, step: grant.step });
        this.deps.activity.speechReleased(grant.handle);
        this.pump();
      },
    };
    this.active = grant;
    this.deps.reporter.trace({ type: 'speech_authorized', speechId: grant.handle.id, step: grant.step });
    this.deps.activity.speechAuthorized(grant.handle);
    request.resolve(grant);
  }
}

/** Higher priority first; then older conversation threads; then request order. */
function outranks(a: Request, b: Request): boolean {
  if (a.handle.priority !== b.handle.priority) return a.handle.priority > b.handle.priority;
  return a.handle.threadSeq < b.handle.threadSeq;
}
