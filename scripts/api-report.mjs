#!/usr/bin/env node
// Keeps a checked-in copy of each published package's bundled type declarations (its public API).
// `--check` fails when the built API differs from the report, so an API change is always deliberate:
// run `pnpm build && pnpm api:update`, review the diff, and add a changeset.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const mode = process.argv[2];
if (mode !== '--check' && mode !== '--update') {
  console.error('usage: api-report.mjs --check | --update');
  process.exit(2);
}

const root = new URL('..', import.meta.url).pathname;
const packageDirs = ['packages', 'plugins'].flatMap((group) => {
  const dir = join(root, group);
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
});

let failures = 0;
let checked = 0;
for (const dir of packageDirs) {
  const manifestPath = join(dir, 'package.json');
  if (!existsSync(manifestPath)) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (manifest.private) continue;
  for (const { subpath, declarations } of publishedEntries(manifest)) {
    const built = join(dir, declarations);
    const reportPath = join(dir, 'api', reportFileName(subpath));
    const what = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    if (!existsSync(built)) {
      console.error(`${what}: ${built} is missing; run \`pnpm build\` first`);
      failures++;
      continue;
    }
    const current = normalize(readFileSync(built, 'utf8'));
    checked++;
    if (mode === '--update') {
      mkdirSync(dirname(reportPath), { recursive: true });
      writeFileSync(reportPath, current);
      continue;
    }
    const recorded = existsSync(reportPath) ? readFileSync(reportPath, 'utf8') : '';
    if (recorded !== current) {
      failures++;
      console.error(`${what}: public API differs from ${reportPath.slice(root.length)}`);
      printFirstDifference(recorded, current);
    }
  }
}

if (failures > 0) {
  console.error(
    `\n${failures} API report(s) out of date. If the change is intended: pnpm build && pnpm api:update, then add a changeset.`,
  );
  process.exit(1);
}
console.log(`API reports ${mode === '--update' ? 'written' : 'match'} for ${checked} entry point(s).`);

/**
 * Every export path of a package that ships declarations (its `import` types), e.g. `.` and
 * `./provider-utils`. Paths that exist only for the workspace (source-only test helpers) and
 * `./package.json` have none and are skipped. A package without `exports` publishes dist/index.d.ts.
 */
function publishedEntries(manifest) {
  const exports = manifest.exports;
  if (exports === undefined || typeof exports === 'string') {
    return [{ subpath: '.', declarations: manifest.types ?? 'dist/index.d.ts' }];
  }
  const entries = [];
  for (const [subpath, target] of Object.entries(exports)) {
    const declarations = typeof target === 'object' && target !== null ? declarationsOf(target) : undefined;
    if (declarations !== undefined) entries.push({ subpath, declarations });
  }
  return entries;
}

function declarationsOf(target) {
  const types = target.import?.types ?? target.types;
  return typeof types === 'string' ? types : undefined;
}

/** `.` keeps the historical api/api-report.d.ts; `./x` goes to api/x.api-report.d.ts. */
function reportFileName(subpath) {
  if (subpath === '.') return 'api-report.d.ts';
  return `${subpath.slice(2).replaceAll('/', '-')}.api-report.d.ts`;
}

function normalize(text) {
  return `${text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => !line.startsWith('//# sourceMappingURL'))
    .join('\n')
    .trimEnd()}\n`;
}

function printFirstDifference(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      console.error(`  first difference at line ${i + 1}:\n  - ${a[i] ?? '(end)'}\n  + ${b[i] ?? '(end)'}`);
      return;
    }
  }
}
