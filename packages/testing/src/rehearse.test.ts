import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from './cli/main.js';
import { rehearse } from './rehearse.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');

describe('rehearse', () => {
  it('prints who spoke when, states, speeches, tools and the violations', async () => {
    const { timeline, result } = await rehearse({
      user: [{ startMs: 1000, endMs: 2000, transcript: 'book it' }],
      llm: {
        replies: [
          { match: { user: 'book' }, toolCalls: [{ name: 'book' }] },
          { match: { afterTool: 'book' }, text: 'Booked.' },
        ],
      },
      tools: [{ name: 'book', steps: [{ sleep: 300 }] }],
    });
    expect(result.violations).toEqual([]);
    expect(timeline).toMatch(/1\.000 {2}user {5}▶ says "book it"/);
    expect(timeline).toMatch(/user {5}state speaking → listening/);
    expect(timeline).toMatch(/turn {5}committed turn_1 "book it"/);
    expect(timeline).toMatch(/tool {5}book started \(call_1\)/);
    expect(timeline).toMatch(/history {2}assistant: "Booked\."/);
    expect(timeline).toMatch(/frames speech_1: \d+ \(\d+ ms\)/);
    expect(timeline.trim().endsWith('violations: no violations')).toBe(true);
  });

  it('the CLI rehearses a scenario file and runs a few fuzz seeds', async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    try {
      expect(await main(['rehearse', join(DIR, 'barge-in.json')])).toBe(0);
      expect(lines.join('\n')).toMatch(/speech_1 INTERRUPTED \(user_words\)/);
      lines.length = 0;
      expect(await main(['fuzz', '--seeds', '3', '--from', '1'])).toBe(0);
      expect(lines.join('\n')).toMatch(/seeds 1\.\.3: 3 run, 0 failing/);
      expect(lines.join('\n')).toMatch(/real time per CPU second/);
    } finally {
      log.mockRestore();
    }
  });
});
