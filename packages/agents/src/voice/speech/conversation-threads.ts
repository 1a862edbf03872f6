import { currentRunScope } from '../tools/run-scope.js';
import type { SpeechHandle } from './speech-handle.js';

/**
 * Places each new speech in a conversation thread (`SpeechHandle.threadSeq`), which the scheduler uses to
 * let a conversation finish its current thought: a tool's `say` joins the thread of the speech whose tool
 * it runs in, the speeches of an AgentTask join the thread of the speech that awaits the task, and any
 * other speech starts a new thread.
 */
export class ConversationThreads {
  private lastThread = 0;
  /** Threads of the speeches whose tools await a running AgentTask, innermost last. */
  private readonly taskThreads: number[] = [];

  assign(handle: SpeechHandle): void {
    const parent = currentRunScope()?.runContext?.speechHandle;
    const taskThread = this.taskThreads[this.taskThreads.length - 1];
    handle.threadSeq = parent?.threadSeq ?? taskThread ?? ++this.lastThread;
  }

  /** A tool of `parent` awaits an AgentTask: the task's speeches continue `parent`'s thread. */
  taskStarted(parent: SpeechHandle | undefined): void {
    if (parent !== undefined) this.taskThreads.push(parent.threadSeq);
  }

  taskEnded(parent: SpeechHandle | undefined): void {
    if (parent !== undefined) this.taskThreads.splice(this.taskThreads.lastIndexOf(parent.threadSeq), 1);
  }
}
