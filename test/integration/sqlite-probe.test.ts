// The probe `paycli doctor` runs (src/cli/sqlite-probe.ts): the better-sqlite3 build paycli loads,
// on the Node that runs it, must survive the garbage collector freeing its statements. A build
// compiled against Node 24.19+ headers does not (nodejs/node#65446); CI compiles against headers
// without the hooks (.ci/node-version.sh), and this test fails if one that has them comes back.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSqliteDriver } from '../../src/cli/sqlite-probe.js';
import { afterEachTest } from '../helpers/cleanups.js';

const t = afterEachTest('paycli-probe-');

/** A package directory whose main file runs `body`: a stand-in for a broken native build. */
function fakeDriver(body: string): string {
  const dir = join(t.tempDir(), 'better-sqlite3');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '0.0.0', main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), body);
  return dir;
}

describe('the SQLite driver probe', () => {
  it('passes the better-sqlite3 build this Node loads, naming its version and SQLite version', async () => {
    const probe = await probeSqliteDriver();
    expect(probe.detail).toMatch(/^better-sqlite3 12\.\d+\.\d+, SQLite 3\.\d+\.\d+$/);
    expect(probe.status).toBe('ok');
  });

  it("names the collector abort of a build compiled against Node 24.19+ headers, from Node's own message", async () => {
    const driver = fakeDriver(
      `process.stderr.write('  #  node[1]: void node::RemoveEnvironmentCleanupHook(v8::Isolate*, CleanupHook, void*) at ../src/api/hooks.cc:142\\n  #  Assertion failed: (env) != nullptr\\n');
process.abort();`,
    );
    const probe = await probeSqliteDriver({ driver });
    expect(probe.status).toBe('gc-abort');
    expect(probe.detail).toContain('nodejs/node#65446');
  });

  it('reports a build that does not load with its error line, and one that hangs as it is stopped', async () => {
    const broken = await probeSqliteDriver({
      driver: fakeDriver("throw new Error('The module was compiled against a different Node.js version using NODE_MODULE_VERSION 115')"),
    });
    expect(broken.status).toBe('broken');
    expect(broken.detail).toMatch(/^better-sqlite3 does not run \(exit 1\): Error: The module was compiled against a different Node\.js version/);
    const hung = await probeSqliteDriver({ driver: fakeDriver('for (;;) {}'), timeoutMs: 500 });
    expect(hung).toEqual({ status: 'broken', detail: 'better-sqlite3 does not run (SIGTERM)' });
  });

  it('gives the child no environment: NODE_OPTIONS cannot load code into it', async () => {
    const marker = join(t.tempDir(), 'ran');
    const hook = join(t.tempDir(), 'hook.cjs');
    writeFileSync(hook, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');`);
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `--require ${hook}`;
    try {
      expect((await probeSqliteDriver()).status).toBe('ok');
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
  });
});
