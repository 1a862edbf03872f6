import type { AgentSession, Clock, SpeechHandle } from '@voxwire/agents';

// biome-ignore lint/suspicious/noExplicitAny: the console drives sessions of any user data type.
type AnySession = AgentSession<any>;

/**
 * Tells when a session is waiting for the user: nothing is being said or prepared for the agent in
 * charge, and the user is not speaking. A reply whose tool awaits an AgentTask does not count: the task
 * (now in charge) is what waits for the user.
 */
export class SettleWatcher {
  private readonly pending = new Map<SpeechHandle, unknown>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly session: AnySession) {
    session.on('speech_created', ({ speechHandle }) => {
      this.pending.set(speechHandle, session.currentAgent);
      speechHandle.onDone(() => this.forget(speechHandle));
      this.changed();
    });
    for (const name of ['agent_state_changed', 'user_state_changed', 'conversation_item_added'] as const) {
      session.on(name, () => this.changed());
    }
  }

  get settled(): boolean {
    const s = this.session;
    if (s.closed) return true;
    if (s.userState === 'speaking' || s.agentState === 'speaking') return false;
    const inCharge = s.currentAgent;
    for (const [handle, agent] of this.pending) {
      if (!handle.done() && agent === inCharge) return false;
    }
    return true;
  }

  /**
   * Resolves true once the session has stayed settled for `quietMs`, or false after `maxMs`.
   */
  wait(clock: Clock, quietMs: number, maxMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let quiet: { cancel(): void } | undefined;
      const check = () => {
        quiet?.cancel();
        quiet = undefined;
        if (this.settled) quiet = clock.setTimer(quietMs, () => finish(true));
      };
      const limit = clock.setTimer(maxMs, () => finish(false));
      const finish = (value: boolean) => {
        quiet?.cancel();
        limit.cancel();
        this.listeners.delete(check);
        resolve(value);
      };
      this.listeners.add(check);
      check();
    });
  }

  private forget(handle: SpeechHandle): void {
    this.pending.delete(handle);
    this.changed();
  }

  private changed(): void {
    // The agent state is derived after the current synchronous run: look once it has settled too.
    queueMicrotask(() => {
      for (const listener of [...this.listeners]) listener();
    });
  }
}
