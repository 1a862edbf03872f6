import type { ChatItem } from '@voxwire/agents';
import { expect } from 'vitest';
import { formatViolations } from '../invariants/index.js';
import type { EntryOf, LogEntry, LogEntryType } from '../log.js';
import type { Scenario } from '../scenario.js';
import { type SimulationResult, simulate } from '../simulate.js';

/** Runs a scenario and fails with the violations when an invariant breaks. */
export async function run(scenario: Scenario): Promise<SimulationResult> {
  const result = await simulate(scenario);
  expect(formatViolations(result.violations, result.log)).toBe('no violations');
  return result;
}

export function all<T extends LogEntryType>(log: readonly LogEntry[], type: T): Array<EntryOf<T>> {
  return log.filter((e): e is EntryOf<T> => e.type === type);
}

export function said(history: readonly ChatItem[], role: 'user' | 'assistant' = 'assistant'): string[] {
  return history
    .filter((i): i is Extract<ChatItem, { type: 'message' }> => i.type === 'message' && i.role === role)
    .map((i) => `${i.content.join('')}${i.interrupted ? ' [interrupted]' : ''}`);
}

export const STORY =
  'Once upon a time there was a small village by the sea where everybody knew everybody and the fishermen went out every morning before dawn.';
