import type { LogEntry } from '../log.js';
import { checkL5 } from './answers.js';
import { checkS11 } from './failures.js';
import * as liveness from './liveness.js';
import { checkS12 } from './memory.js';
import { LogModel, type Violation } from './model.js';
import * as interruptions from './interruptions.js';
import * as safety from './safety.js';
import * as transcripts from './transcripts.js';

export { DEFAULT_CONFIG, type Violation } from './model.js';

/** The properties of ../shared/INVARIANTS.md that a log can decide, by stable id. */
export const INVARIANTS = {
  L1: 'userState returns to listening within the VAD min silence after the last voiced frame',
  L2: 'every speech ends exactly once; an interrupted one ends within a bounded time',
  L3: 'the speech queue always moves',
  L4: 'no wait depends on input that may be discarded (endpointing always ends)',
  L5: 'every committed user turn is answered (its reply ended) in bounded time, or visibly skipped',
  L6: 'a paused speech is resumed or interrupted soon after the user stops',
  L7: 'close() completes within its deadline and leaves nobody waiting',
  L8: 'every function call gets exactly one output in the history',
  L9: 'turns are committed between min and max endpointing delay after the last speech',
  L10: 'waitForPlayout() resolves only once playout has actually stopped',
  S1: 'agentState is speaking exactly while frames reach the output',
  S2: 'nothing of an interrupted speech is heard or recorded after the interrupt',
  S3: 'an uninterruptible speech is cut only by a forced interrupt',
  S4: 'a tool awaiting an AgentTask is not cancelled by user audio; holds are counted; sibling tasks take turns; a finished task says nothing',
  S5: 'tool calls and outputs are recorded exactly once; no empty function_tools_executed',
  S6: 'at most one reply is audible per user turn',
  S7: 'an interruptible reply sends no frame while the user speaks',
  S8: 'the user is never away while a tool runs or the agent speaks',
  S9: 'interruptions need the minimum speech duration or word count',
  S10: 'one agent_false_interruption per pause; no resume without it',
  S11: 'a failure surfaces as an error event and never breaks later turns',
  S12: 'back-pressure or counted drops, never unbounded buffering',
  S13: 'every final transcript reaches the user message of its turn',
} as const;

export type InvariantId = keyof typeof INVARIANTS;

const CHECKS: Record<
  InvariantId,
  (m: LogModel, report: (message: string, atMs: number, entries: number[]) => void) => void
> = {
  L1: liveness.checkL1,
  L2: liveness.checkL2,
  L3: liveness.checkL3,
  L4: liveness.checkL4,
  L5: checkL5,
  L6: liveness.checkL6,
  L7: liveness.checkL7,
  L8: liveness.checkL8,
  L9: liveness.checkL9,
  L10: liveness.checkL10,
  S1: safety.checkS1,
  S2: safety.checkS2,
  S3: safety.checkS3,
  S4: safety.checkS4,
  S5: safety.checkS5,
  S6: safety.checkS6,
  S7: safety.checkS7,
  S8: safety.checkS8,
  S9: interruptions.checkS9,
  S10: interruptions.checkS10,
  S11: checkS11,
  S12: checkS12,
  S13: transcripts.checkS13,
};

export interface CheckOptions {
  /** Only these invariants. Default: all. */
  only?: readonly InvariantId[];
}

/**
 * Checks a conversation log against every invariant it can decide. Each violation names its invariant
 * and points at the log entries involved (by index). Logs without harness records (recorded from a real
 * session) are checked on what they contain.
 */
export function checkInvariants(log: readonly LogEntry[], options: CheckOptions = {}): Violation[] {
  const model = new LogModel(log);
  const violations: Violation[] = [];
  for (const id of options.only ?? (Object.keys(CHECKS) as InvariantId[])) {
    CHECKS[id](model, (message, atMs, entries) => violations.push({ id, message, atMs, entries }));
  }
  return violations.sort((a, b) => a.atMs - b.atMs || a.id.localeCompare(b.id));
}

/** One line per violation, with the offending entries. */
export function formatViolations(violations: readonly Violation[], log?: readonly LogEntry[]): string {
  if (violations.length === 0) return 'no violations';
  return violations
    .map((v) => {
      const refs = log
        ? v.entries.map((i) => `\n      #${i} ${log[i] ? JSON.stringify(log[i]) : '?'}`).join('')
        : '';
      return `${v.id} at ${v.atMs} ms: ${v.message}${refs}`;
    })
    .join('\n');
}
