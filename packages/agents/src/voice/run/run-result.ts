import type { ChatItem } from '../../llm/chat-context.js';
import type { SpeechHandle } from '../speech/speech-handle.js';

/**
 * What happened in one run, in order: what the agent said, the tools it called and their outputs, and
 * changes of the agent in charge (a handoff, with its history item, or an AgentTask taking over and
 * handing back, which leave no item).
 */
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
  | {
      type: 'agent_handoff';
      oldAgentId: string | undefined;
      newAgentId: string;
      /** `handoff`: a tool or `updateAgent()` handed over; `task`: an AgentTask took over or handed back. */
      via: 'handoff' | 'task';
      /** The history item of a handoff; undefined for an AgentTask. */
      item: ChatItem | undefined;
    };

/** A failed expectation; the message shows the run's events around the cursor. */
export class ExpectationError extends Error {
  override name = 'ExpectationError';
}

/** @internal The run event for a history item. */
export function runEventOf(item: ChatItem): RunEvent {
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
      return {
        type: 'agent_handoff',
        oldAgentId: item.oldAgentId,
        newAgentId: item.newAgentId,
        via: 'handoff',
        item,
      };
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
      return `agent_handoff${event.via === 'task' ? ' (task)' : ''} ${event.oldAgentId ?? '?'} -> ${event.newAgentId}`;
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

export interface MessageExpectation {
  role?: string;
  content?: string | RegExp;
  interrupted?: boolean;
}

export interface FunctionCallExpectation {
  name?: string;
  /** Matches when each given key equals the call's parsed argument (a subset match). */
  args?: Record<string, unknown>;
}

export interface FunctionCallOutputExpectation {
  output?: string | RegExp;
  isError?: boolean;
  name?: string;
}

export interface AgentHandoffExpectation {
  newAgentId?: string;
  via?: 'handoff' | 'task';
}

/** Assertions on one event of a run. Each returns the assertion, so checks chain. */
export class EventAssert {
  constructor(
    readonly event: RunEvent,
    private readonly where: () => string,
  ) {}

  private fail(message: string): never {
    throw new ExpectationError(`${message}\n${this.where()}`);
  }

  isMessage(expected: MessageExpectation = {}): this {
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

  isFunctionCall(expected: FunctionCallExpectation = {}): this {
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

  isFunctionCallOutput(expected: FunctionCallOutputExpectation = {}): this {
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

  isAgentHandoff(expected: AgentHandoffExpectation = {}): this {
    const e = this.event;
    if (e.type !== 'agent_handoff') this.fail(`expected an agent handoff, got ${describeEvent(e)}`);
    if (expected.newAgentId !== undefined && e.newAgentId !== expected.newAgentId) {
      this.fail(`expected a handoff to ${expected.newAgentId}, got ${describeEvent(e)}`);
    }
    if (expected.via !== undefined && e.via !== expected.via) {
      this.fail(`expected a handoff via ${expected.via}, got ${describeEvent(e)}`);
    }
    return this;
  }
}

/** A cursor over a run's events: `result.expect.nextEvent().isFunctionCall({ name })`. */
export class RunAssert {
  private cursor = 0;

  constructor(private readonly events: readonly RunEvent[]) {}

  private where(index: number): string {
    const lines = this.events.map((e, i) => `${i === index ? '>' : ' '} [${i}] ${describeEvent(e)}`);
    return lines.length > 0 ? `events of the turn:\n${lines.join('\n')}` : 'the turn had no events';
  }

  /** The event at `index` (negative counts from the end); the cursor does not move. */
  at(index: number): EventAssert {
    const resolved = index < 0 ? this.events.length + index : index;
    const event = this.events[resolved];
    if (!event) throw new ExpectationError(`expected an event at position ${index}\n${this.where(resolved)}`);
    return new EventAssert(event, () => this.where(resolved));
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

  /** The first event of the run (anywhere) that passes `check`; the cursor does not move. */
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

  containsMessage(expected: MessageExpectation = {}): EventAssert {
    return this.contains((e) => e.isMessage(expected));
  }

  containsFunctionCall(expected: FunctionCallExpectation = {}): EventAssert {
    return this.contains((e) => e.isFunctionCall(expected));
  }

  containsFunctionCallOutput(expected: FunctionCallOutputExpectation = {}): EventAssert {
    return this.contains((e) => e.isFunctionCallOutput(expected));
  }

  containsAgentHandoff(expected: AgentHandoffExpectation = {}): EventAssert {
    return this.contains((e) => e.isAgentHandoff(expected));
  }
}

/** What `session.run()` returns: the run's events, and a fresh cursor over them at each `expect`. */
export class RunResult {
  private cursor: RunAssert | undefined;

  constructor(
    /** The run's events, the user's own input excluded. */
    readonly events: readonly RunEvent[],
    /** Every speech created during the run (the reply, a tool's `say`, an AgentTask's speeches). */
    readonly speeches: readonly SpeechHandle[],
  ) {}

  /** Assertions over the events; the cursor is shared by every access of the same result. */
  get expect(): RunAssert {
    this.cursor ??= new RunAssert(this.events);
    return this.cursor;
  }
}
