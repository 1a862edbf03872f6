import type { ChatItem } from '../../llm/chat-context.js';
import type { Clock } from '../../time/clock.js';
import type { ActiveAgent, AgentChange } from '../agent/active-agent.js';
import type { AgentTransitions } from '../agent/agent-transitions.js';
import { ExpectationError, type RunEvent, RunResult, runEventOf } from '../run/run-result.js';
import type { SpeechHandle } from '../speech/speech-handle.js';
import type { SpeechLauncher } from '../speech/speech-launcher.js';
import type { AgentSession } from './agent-session.js';
import type { TurnResponder } from './turn-responder.js';

export interface RunOptions {
  /** What the user says, as text. */
  userInput: string;
  /** Give up after this long on the session's clock (rejecting with an `ExpectationError`). Default 60000. */
  timeoutMs?: number;
}

export interface TextRunDeps {
  clock: Clock;
  // biome-ignore lint/suspicious/noExplicitAny: serves sessions of any user data type.
  session: AgentSession<any>;
  agents: Pick<ActiveAgent, 'onSwitch'>;
  transitions: Pick<AgentTransitions, 'settled' | 'settling' | 'awaitsTask'>;
  responder: Pick<TurnResponder, 'answerText'>;
  speeches: Pick<SpeechLauncher, 'liveSpeeches'>;
}

/** How often a run looks whether the conversation has come to rest. */
const POLL_MS = 10;

/**
 * Runs one user turn given as text through the real session, and records what it set off until the
 * conversation rests: no agent entering or exiting, and every speech ended or held by a tool awaiting an
 * AgentTask that now waits for the user. A run that starts while a handoff or an AgentTask is being
 * entered waits for it, so the incoming agent answers.
 */
export async function runTextTurn(deps: TextRunDeps, options: RunOptions): Promise<RunResult> {
  const { clock, session } = deps;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const events: RunEvent[] = [];
  const speeches: SpeechHandle[] = [];
  let ownMessage: string | undefined;
  const onItem = ({ item }: { item: ChatItem }): void => {
    if (item.id !== ownMessage) events.push(runEventOf(item));
  };
  const onSpeech = ({ speechHandle }: { speechHandle: SpeechHandle }): void => {
    speeches.push(speechHandle);
  };
  // Handoffs are recorded by their history item; AgentTasks leave none, so their switches are events.
  const offSwitch = deps.agents.onSwitch((change: AgentChange) => {
    if (change.via !== 'task_started' && change.via !== 'task_ended') return;
    events.push({
      type: 'agent_handoff',
      oldAgentId: change.previous.id,
      newAgentId: change.next.id,
      via: 'task',
      item: undefined,
    });
  });
  session.on('conversation_item_added', onItem);
  session.on('speech_created', onSpeech);
  const controller = new AbortController();
  let timedOut = false;
  const deadline = clock.sleep(timeoutMs, controller.signal).then(
    () => {
      timedOut = true;
    },
    () => {},
  );
  const within = async (work: Promise<unknown>): Promise<void> => {
    await Promise.race([work, deadline]);
    if (timedOut) throw new ExpectationError(`the run did not finish within ${timeoutMs} ms`);
  };
  try {
    await within(deps.transitions.settled());
    const { messageId, started } = deps.responder.answerText(options.userInput);
    ownMessage = messageId;
    await within(started);
    // Two quiet looks in a row: a speech may end in the same instant as another begins.
    let quietLooks = 0;
    while (quietLooks < 2) {
      quietLooks = atRest(deps) ? quietLooks + 1 : 0;
      await within(clock.sleep(POLL_MS));
    }
  } finally {
    controller.abort();
    offSwitch();
    session.off('conversation_item_added', onItem);
    session.off('speech_created', onSpeech);
  }
  return new RunResult(events, speeches);
}

function atRest(deps: TextRunDeps): boolean {
  if (deps.transitions.settling) return false;
  return deps.speeches.liveSpeeches.every((h) => h.done() || deps.transitions.awaitsTask(h));
}
