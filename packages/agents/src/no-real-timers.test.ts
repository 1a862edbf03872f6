import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The core must take all time from the injected Clock, or virtual-time simulations stop being exact
 * (DESIGN.md, "Time"). Biome bans these globals too; this test also catches imports such as
 * `node:timers/promises` and survives a lint override.
 */

const SRC = fileURLToPath(new URL('.', import.meta.url));

/** The two clocks are the only modules allowed to touch host time. */
const ALLOWED = new Set(['time/clock.ts', 'time/virtual-clock.ts']);

const FORBIDDEN: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'setTimeout', pattern: /\bsetTimeout\b/ },
  { name: 'setInterval', pattern: /\bsetInterval\b/ },
  { name: 'Date.now', pattern: /\bDate\s*\.\s*now\b/ },
  { name: 'new Date', pattern: /\bnew\s+Date\b/ },
  { name: 'performance.now', pattern: /\bperformance\s*\.\s*now\b/ },
];

interface Violation {
  file: string;
  line: number;
  name: string;
  text: string;
}

/**
 * Blanks out comments (keeping line breaks, so line numbers stay right) and leaves code and string
 * literals in place: a timer named in a comment is fine, `globalThis['setTimeout']` is not.
 */
function stripComments(source: string): string {
  let out = '';
  let i = 0;
  let quote: string | undefined;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (quote) {
      out += c;
      if (c === '\\' && next !== undefined) {
        out += next;
        i += 2;
        continue;
      }
      if (c === quote) quote = undefined;
      i++;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c;
      out += c;
      i++;
      continue;
    }
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function findViolations(file: string, source: string): Violation[] {
  const violations: Violation[] = [];
  const original = source.split('\n');
  stripComments(source)
    .split('\n')
    .forEach((line, index) => {
      for (const { name, pattern } of FORBIDDEN) {
        if (pattern.test(line)) {
          violations.push({ file, line: index + 1, name, text: original[index]!.trim() });
        }
      }
    });
  return violations;
}

function coreSourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') files.push(...coreSourceFiles(path));
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.d.ts')
    ) {
      files.push(path);
    }
  }
  return files;
}

describe('no real timers in the core', () => {
  it('finds no host timer or wall-clock call outside the clocks', () => {
    const files = coreSourceFiles(SRC)
      .map((path) => relative(SRC, path).split(sep).join('/'))
      .filter((file) => !ALLOWED.has(file));
    expect(files.length).toBeGreaterThan(5);
    const violations = files.flatMap((file) => findViolations(file, readFileSync(join(SRC, file), 'utf8')));
    const report = violations.map(
      (v) => `packages/agents/src/${v.file}:${v.line} uses ${v.name}: ${v.text} (use the injected Clock)`,
    );
    expect(report, report.join('\n')).toEqual([]);
  });

  it('the scanner reports file:line and ignores comments but not strings', () => {
    const source = [
      '// setTimeout in a line comment is fine',
      'const a = clock.now(); /* Date.now() in a block',
      '   comment spanning lines, performance.now() too */',
      "const url = 'http://example.test'; setTimeout(run, 5);",
      'const b = new  Date();',
      "const c = globalThis['setInterval'];",
      'const d = performance . now();',
      "import { setTimeout as wait } from 'node:timers/promises';",
      'const e = `a // not a comment` + Date.now();',
    ].join('\n');
    expect(findViolations('x.ts', source).map((v) => `${v.file}:${v.line} ${v.name}`)).toEqual([
      'x.ts:4 setTimeout',
      'x.ts:5 new Date',
      'x.ts:6 setInterval',
      'x.ts:7 performance.now',
      'x.ts:8 setTimeout',
      'x.ts:9 Date.now',
    ]);
  });
});
