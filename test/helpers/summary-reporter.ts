import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the plain closing line `N passed, N failed, N skipped` that CI systems read, preceded by
 * the name of each skipped test: a test that skips for a missing peer (php, chromium, tmux, zsh,
 * fish) says so in its name, so the reason is on screen.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const skippedNames: string[] = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else {
          skipped++;
          skippedNames.push(`${m.moduleId.replace(/^.*?\/test\//, 'test/')} > ${t.fullName}`);
        }
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    for (const name of skippedNames.slice(0, 20)) process.stdout.write(`skipped: ${name}\n`);
    if (skippedNames.length > 20) process.stdout.write(`skipped: … and ${skippedNames.length - 20} more\n`);
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
