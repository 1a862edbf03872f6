import {
  type Agent,
  type AgentSession,
  AgentSession as Session,
  type AgentSessionOptions,
  type ChatItem,
  type SpeechHandle,
} from '@voxwire/agents';

/** What happened in one turn, in order: what the agent said, the tools it called, handoffs. */
export type RunEvent =
  | { type: 'message'; role: string; content: string; interrupted: boolean; item: ChatItem }
  | { type: 'function_call'; name: string; callId: string; arguments: string; item: ChatItem }
  | {
      type: 'function_call_output';
      name: string;
      callId: string;
      output: string;
      isError: boolean;
      item: ChatItem;
    }
  | { type: 'agent_handoff'; oldAgentId: string | undefined; newAgentId: string; item: ChatItem };

/** A failed expectation; the message shows the turn's events around the cursor. */
export class ExpectationError extends Error {
  override name = 'ExpectationError';
}

function toEvent(item: ChatItem): RunEvent {
  switch (item.type) {
    case 'message':
      return {
        type: 'message',
        role: item.role,
        content: item.content.filter((c): c is string => typeof c === 'string').join(''),
        interrupted: item.interrupted,
        item,
      };
    case 'function_call':
      return { type: 'function_call', name: item.name, callId: item.callId, arguments: item.arguments, item };
    case 'function_call_output':
      return {
        type: 'function_call_output',
        name: item.name,
        callId: item.callId,
        output: item.output,
        isError: item.isError,
        item,
      };
    default:
      return { type: 'agent_handoff', oldAgentId: item.oldAgentId, newAgentId: item.newAgentId, item };
  }
}

export function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case 'message':
      return `message ${event.role}${event.interrupted ? ' (interrupted)' : ''}: ${JSON.stringify(event.content)}`;
    case 'function_call':
      return `function_call ${event.name}(${event.arguments})`;
    case 'function_call_output':
      return `function_call_output ${event.name}${event.isError ? ' (error)' : ''}: ${JSON.stringify(event.output)}`;
    default:
      return `agent_handoff ${event.oldAgentId ?? '?'} -> ${event.newAgentId}`;
  }
}

function textMatches(actual: string, expected: string | RegExp): boolean {
  return typeof expected === 'string' ? actual === expected : expected.test(actual);
}

/** True when every key of `expected` deep-equals the same key of `actual`. */
function subsetMatches(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return Object.is(actual, expected);
  if (actual === null || typeof actual !== 'object') return false;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => subsetMatches(actual[i], e))
    );
  }
  return Object.entries(expected).every(([k, v]) => subsetMatches((actual as Record<string, unknown>)[k], v));
}

/** Assertions on one event of a turn. Each returns the assertion, so checks chain. */
export class EventAssert {
  constructor(
    readonly event: RunEvent,
    private readonly where: () => string,
  ) {}

  private fail(message: string): never {
    throw new ExpectationError(`${message}\n${this.where()}`);
  }

  isMessage(expected: { role?: string; content?: string | RegExp; interrupted?: boolean } = {}): this {
    const e = this.event;
    if (e.type !== 'message') this.fail(`expected a message, got ${describeEvent(e)}`);
    if (expected.role !== undefined && e.role !== expected.role)
      this.fail(`expected a ${expected.role} message, got ${describeEvent(e)}`);
    if (expected.content !== undefined && !textMatches(e.content, expected.content)) {
      this.fail(`expected message content ${String(expected.content)}, got ${JSON.stringify(e.content)}`);
    }
    if (expected.interrupted !== undefined && e.interrupted !== expected.interrupted) {
      this.fail(`expected interrupted=${expected.interrupted}, got ${describeEvent(e)}`);
    }
    return this;
  }

  /** `args` matches when each given key equals the call's parsed argument (a subset match). */
  isFunctionCall(expected: { name?: string; args?: Record<string, unknown> } = {}): this {
    const e = this.event;
    if (e.type !== 'function_call') this.fail(`expected a function call, got ${describeEvent(e)}`);
    if (expected.name !== undefined && e.name !== expected.name)
      this.fail(`expected a call of ${expected.name}, got ${describeEvent(e)}`);
    if (expected.args !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(e.arguments || '{}');
      } catch {
        this.fail(`the arguments of ${e.name} are not JSON: ${e.arguments}`);
      }
      if (!subsetMatches(parsed, expected.args)) {
        this.fail(
          `expected ${e.name} arguments to include ${JSON.stringify(expected.args)}, got ${e.arguments}`,
        );
      }
    }
    return this;
  }

  isFunctionCallOutput(expected: { output?: string | RegExp; isError?: boolean; name?: string } = {}): this {
    const e = this.event;
    if (e.type !== 'function_call_output')
      this.fail(`expected a function call output, got ${describeEvent(e)}`);
    if (expected.name !== undefined && e.name !== expected.name)
      this.fail(`expected the output of ${expected.name}, got ${describeEvent(e)}`);
    if (expected.output !== undefined && !textMatches(e.output, expected.output)) {
      this.fail(`expected output ${String(expected.output)}, got ${JSON.stringify(e.output)}`);
    }
    if (expected.isError !== undefined && e.isError !== expected.isError)
      this.fail(`expected isError=${expected.isError}, got ${describeEvent(e)}`);
    return this;
  }

  isAgentHandoff(expected: { newAgentId?: string } = {}): this {
    const e = this.event;
    if (e.type !== 'agent_handoff') this.fail(`expected an agent handoff, got ${describeEvent(e)}`);
    if (expected.newAgentId !== undefined && e.newAgentId !== expected.newAgentId) {
      this.fail(`expected a handoff to ${expected.newAgentId}, got ${describeEvent(e)}`);
    }
    return this;
  }
}

/** A cursor over a turn's events, in the spirit of `result.expect.nextEvent().isFunctionCall(...)`. */
export class RunAssert {
  private cursor = 0;

  constructor(private readonly events: readonly RunEvent[]) {}

  private where(index: number): string {
    const lines = this.events.map((e, i) => `${i === index ? '>' : ' '} [${i}] ${describeEvent(e)}`);
    return lines.length > 0 ? `events of the turn:\n${lines.join('\n')}` : 'the turn had no events';
  }

  private at(index: number): EventAssert {
    const event = this.events[index];
    if (!event) throw new ExpectationError(`expected an event at position ${index}\n${this.where(index)}`);
    return new EventAssert(event, () => this.where(index));
  }

  /** The next event (optionally of a type, skipping others before it). */
  nextEvent(type?: RunEvent['type']): EventAssert {
    if (type !== undefined) {
      while (this.cursor < this.events.length && this.events[this.cursor]!.type !== type) this.cursor++;
    }
    return this.at(this.cursor++);
  }

  skipNext(count = 1): this {
    if (this.cursor + count > this.events.length) {
      throw new ExpectationError(`cannot skip ${count} event(s)\n${this.where(this.cursor)}`);
    }
    this.cursor += count;
    return this;
  }

  noMoreEvents(): void {
    if (this.cursor < this.events.length) {
      throw new ExpectationError(`expected no more events\n${this.where(this.cursor)}`);
    }
  }

  /** The first event of the turn (anywhere) that passes `check`; the cursor does not move. */
  contains(check: (e: EventAssert) => void): EventAssert {
    for (let i = 0; i < this.events.length; i++) {
      const candidate = this.at(i);
      try {
        check(candidate);
        return candidate;
      } catch (error) {
        if (!(error instanceof ExpectationError)) throw error;
      }
    }
    throw new ExpectationError(`no event of the turn matches\n${this.where(-1)}`);
  }

  containsFunctionCall(expected: { name?: string; args?: Record<string, unknown> } = {}): EventAssert {
    return this.contains((e) => e.isFunctionCall(expected));
  }

  containsMessage(expected: { role?: string; content?: string | RegExp } = {}): EventAssert {
    return this.contains((e) => e.isMessage(expected));
  }
}

export interface RunResult {
  /** The turn's conversation items, the user's input excluded. */
  events: RunEvent[];
  /** Every speech the turn created (the reply, tool `say`s, task speeches). */
  speeches: SpeechHandle[];
  readonly expect: RunAssert;
}

export interface RunTurnOptions {
  /** Give up after this long on the session's clock. Default 60000 ms. */
  timeoutMs?: number;
}

/**
 * Sends `userInput` as a user turn (`generateReply({ userInput })`) and waits until every speech it set
 * off has ended, then returns the turn's events. Works with scripted fakes and with a real LLM alike.
 */
export async function runTurn(
  session: AgentSession,
  userInput: string,
  options: RunTurnOptions = {},
): Promise<RunResult> {
  const items: ChatItem[] = [];
  const speeches: SpeechHandle[] = [];
  const onItem = (e: { item: ChatItem }): void => {
    items.push(e.item);
  };
  const onSpeech = (e: { speechHandle: SpeechHandle }): void => {
    speeches.push(e.speechHandle);
  };
  session.on('conversation_item_added', onItem);
  session.on('speech_created', onSpeech);
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timedOut = false;
  const controller = new AbortController();
  const deadline = session.clock.sleep(timeoutMs, controller.signal).then(
    () => {
      timedOut = true;
    },
    () => {},
  );
  try {
    session.generateReply({ userInput });
    // Speeches may start more speeches (a tool's say, a task's greeting): wait until none is left.
    for (;;) {
      const pending = speeches.find((s) => !s.done());
      if (!pending) break;
      await Promise.race([pending.waitForPlayout().catch(() => {}), deadline]);
      if (timedOut) throw new ExpectationError(`the turn did not finish within ${timeoutMs} ms`);
    }
  } finally {
    controller.abort();
    session.off('conversation_item_added', onItem);
    session.off('speech_created', onSpeech);
  }
  const events = items
    .filter((item, i) => !(i === 0 && item.type === 'message' && item.role === 'user'))
    .map(toEvent);
  return { events, speeches, expect: new RunAssert(events) };
}

/**
 * A started session without audio, for testing an agent's conversation logic with `runTurn`: pass a
 * real LLM, or a `FakeLLM` and a `VirtualClock` for deterministic tests.
 */
export async function createTextSession<UserData = unknown>(
  agent: Agent,
  options: AgentSessionOptions<UserData> = {},
): Promise<AgentSession<UserData>> {
  const session = new Session<UserData>(options);
  await session.start({ agent });
  return session;
}
