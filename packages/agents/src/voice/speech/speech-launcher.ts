import { waitAtMost } from '../../utils/abortable.js';
import type { ActivityState } from '../session/activity-state.js';
import { errorSourceOf } from '../session/error-source.js';
import type { InFlightTasks } from '../session/in-flight-tasks.js';
import type { SessionReporter } from '../session/session-reporter.js';
import type { InterruptReason } from '../session/trace.js';
import { currentRunScope, runOutsideScopes } from '../tools/run-scope.js';
import type { ConversationThreads } from './conversation-threads.js';
import { type ReplyDeps, type ReplyRequest, runReply, runSay, type SayRequest } from './reply-pipeline.js';
import type { SpeechHandle } from './speech-handle.js';

export interface SpeechLauncherDeps {
  /** What a speech runs with: scheduler, playout, providers, history. */
  reply: ReplyDeps;
  threads: Pick<ConversationThreads, 'assign'>;
  activity: Pick<ActivityState, 'speechInterrupted' | 'speechEnded'>;
  reporter: Pick<SessionReporter, 'trace' | 'event' | 'error'>;
  inFlight: Pick<InFlightTasks, 'track'>;
}

/**
 * Starts speeches and keeps the ones still under way: each gets its conversation thread, is announced
 * with `speech_created`, runs outside the scope of the tool that started it (it is not the tool's own code), and ends exactly
 * once, a crash included (`failed`, with an `error` event).
 */
export class SpeechLauncher {
  private readonly live = new Set<SpeechHandle>();

  constructor(private readonly deps: SpeechLauncherDeps) {}

  /** Speeches started and not ended yet. */
  get liveSpeeches(): readonly SpeechHandle[] {
    return [...this.live];
  }

  startSay(handle: SpeechHandle, request: SayRequest): void {
    this.launch(handle, () => runSay(this.deps.reply, handle, request));
  }

  startReply(handle: SpeechHandle, request: ReplyRequest): void {
    this.launch(handle, () => runReply(this.deps.reply, handle, request));
  }

  /** Interrupts every speech under way (only interruptible ones without `force`) and waits, boundedly. */
  async interruptAll(force: boolean, reason: InterruptReason): Promise<void> {
    const targets = [...this.live].filter((h) => !h.done());
    for (const handle of targets) {
      this.deps.reporter.trace({ type: 'speech_interrupt_requested', speechId: handle.id, force, reason });
      handle.requestInterrupt(reason, force);
    }
    const stopping = targets.filter((h) => h.interrupted).map((h) => h.waitForPlayout().catch(() => {}));
    const { clock, playout } = this.deps.reply;
    await waitAtMost(clock, Promise.all(stopping), playout.interruptedPlayoutTimeoutMs * 2);
  }

  /** The session closes: every speech is cut, uninterruptible ones too. */
  cutAllForClose(): void {
    for (const handle of [...this.live]) {
      if (handle.requestInterrupt('close', true)) {
        this.deps.reporter.trace({ type: 'speech_interrupted', speechId: handle.id, reason: 'close' });
      }
    }
  }

  /** The close deadline passed: whatever has not ended yet ends now, as interrupted. */
  endAll(): void {
    for (const handle of [...this.live]) handle.markDone('interrupted');
  }

  private launch(handle: SpeechHandle, run: () => Promise<void>): void {
    const { reporter, activity } = this.deps;
    this.deps.threads.assign(handle);
    this.live.add(handle);
    handle.isCurrentToolContext = () => currentRunScope()?.runContext?.speechHandle === handle;
    handle.onInterrupt((reason) => {
      // The policy and close() trace their own cuts with details; app interrupts (session.interrupt()
      // or handle.interrupt()) are traced here, whoever called them.
      if (reason === 'api' || reason === 'forced')
        reporter.trace({ type: 'speech_interrupted', speechId: handle.id, reason });
      activity.speechInterrupted(handle);
    });
    handle.onDone(() => {
      this.live.delete(handle);
      reporter.trace({
        type: 'speech_done',
        speechId: handle.id,
        outcome: handle.outcome ?? 'played',
        ...(handle.outcome === 'failed' ? { error: String(handle.error) } : {}),
      });
      activity.speechEnded(handle);
    });
    reporter.event('speech_created', { speechHandle: handle, source: handle.source });
    const task = runOutsideScopes(run).catch((error: unknown) => {
      reporter.error(errorSourceOf(error), error, true);
      handle.markDone('failed', error);
    });
    this.deps.inFlight.track(task);
  }
}
