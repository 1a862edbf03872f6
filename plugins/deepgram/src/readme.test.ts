import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveLiveOptions } from './options.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** `| \`name\` | default | …` rows of the first options table. */
function documentedDefaults(): Map<string, string> {
  const section = readme.slice(
    readme.indexOf('## `DeepgramSTT` options'),
    readme.indexOf('`DeepgramFluxSTT` takes'),
  );
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gmu)) rows.set(match[1]!, match[2]!.trim());
  return rows;
}

describe('the README tells the truth about DeepgramSTT', () => {
  it('documents every resolved option with its real default', () => {
    const defaults = resolveLiveOptions({});
    const documented = documentedDefaults();
    for (const [name, value] of Object.entries(defaults)) {
      expect(documented.has(name), `${name} is documented`).toBe(true);
      const shown = documented.get(name)!;
      if (typeof value === 'number' || typeof value === 'boolean') expect(shown, name).toBe(`\`${value}\``);
      if (typeof value === 'string') expect(shown, name).toBe(`\`${value}\``);
    }
  });
});
