import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `tests: N passed, N failed`, that CI tooling of any language can read,
 * preceded by the name of every skipped test: a skipped suite is never hidden in a count.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const skippedNames: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else {
          skipped++;
          skippedNames.push(`${module.relativeModuleId} > ${test.fullName}`);
        }
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    for (const name of skippedNames.slice(0, 50)) process.stdout.write(`\nskipped: ${name}`);
    if (skippedNames.length > 50) process.stdout.write(`\nskipped: … and ${skippedNames.length - 50} more`);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
