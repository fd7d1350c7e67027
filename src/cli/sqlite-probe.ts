import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';

/**
 * What the probe runs in a child Node process (the same Node binary as paycli, with the
 * better-sqlite3 paycli loads, given as its first argument): statements and closed databases left
 * to the garbage collector, then an allocation burst that collects them. A native build compiled
 * against Node 24.19+ headers has node::ObjectWrap remove an environment cleanup hook in its
 * destructor, which aborts when V8 collects outside a context (nodejs/node#65446): this burst sets
 * that off at once (20 of 20 runs with such a build on Node 24.21, 0 of 20 with a good one).
 * paycli keeps its own statements alive for that reason (db.ts), but worker threads and other
 * code that loads the same build are exposed.
 */
const PROBE = `
const Sqlite = require(process.argv[1]);
let dbs = [];
for (let k = 0; k < 2; k++) {
  const db = new Sqlite(':memory:');
  for (let i = 0; i < 2000; i++) db.prepare('select ' + i);
  dbs.push(db);
}
for (const db of dbs) db.close();
dbs = null;
let junk = [];
for (let i = 0; i < 1e5; i++) junk.push({ i });
junk = null;
setTimeout(() => {
  const db = new Sqlite(':memory:');
  const v = db.prepare('select sqlite_version() v').get().v;
  db.close();
  process.stdout.write(JSON.stringify({ sqlite: v, driver: require(process.argv[1] + '/package.json').version }));
}, 20);
`;

export interface SqliteProbe {
  /** ok: loads and survives the collector; gc-abort: the build aborts on collection; broken: it cannot run at all. */
  status: 'ok' | 'gc-abort' | 'broken';
  detail: string;
}

/** Where paycli's better-sqlite3 package is (its directory; its main file is lib/index.js). */
function driverDir(): string {
  return dirname(dirname(createRequire(import.meta.url).resolve('better-sqlite3')));
}

/**
 * Runs PROBE in a child process: `process.execPath` with no flags, no environment (NODE_OPTIONS
 * could load code from elsewhere; on Windows only SystemRoot, without which Node cannot start) and
 * a neutral working directory.
 */
export function probeSqliteDriver(options: { driver?: string; timeoutMs?: number } = {}): Promise<SqliteProbe> {
  const { driver = driverDir(), timeoutMs = 15_000 } = options;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', PROBE, driver], {
      env: process.platform === 'win32' ? { SystemRoot: process.env.SystemRoot } : {},
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      if (stderr.length < 65_536) stderr += c;
    });
    child.once('error', (err) => resolve({ status: 'broken', detail: `cannot run ${process.execPath}: ${err.message}` }));
    child.once('close', (code, signal) => {
      if (code === 0) {
        try {
          const { sqlite, driver } = JSON.parse(stdout) as { sqlite: string; driver: string };
          resolve({ status: 'ok', detail: `better-sqlite3 ${driver}, SQLite ${sqlite}` });
          return;
        } catch {
          // falls through to broken
        }
      }
      if (/RemoveEnvironmentCleanupHook/.test(stderr))
        resolve({
          status: 'gc-abort',
          detail: `better-sqlite3's native build aborts when the garbage collector frees a statement (compiled against Node 24.19+ headers, nodejs/node#65446): reinstall it from its prebuilt binary or rebuild it against Node 24.18.1's headers`,
        });
      else {
        const lines = stderr.split('\n');
        const line = lines.find((l) => /^\w*Error\b/.test(l)) ?? lines.find((l) => l.trim()) ?? '';
        resolve({ status: 'broken', detail: `better-sqlite3 does not run (${signal ?? `exit ${code}`})${line ? `: ${line.trim().slice(0, 200)}` : ''}` });
      }
    });
  });
}
