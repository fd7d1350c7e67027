// paycli's SQLite objects are never left to the garbage collector (keepUntilExit in src/core/db.ts).
// A better-sqlite3 12 build compiled against Node 24.19+ headers aborts the process when V8
// collects a statement or a database in a collection that runs with no current context, such as one
// set off by an allocation in a V8 builtin (nodejs/node#65446, WiseLibs/better-sqlite3#1515). The
// prebuilt binaries, and the builds CI compiles, predate those headers; keepUntilExit is the defence
// for a build compiled from source on such a Node (`paycli doctor` names it: src/cli/sqlite-probe.ts).
// A process that prepares, iterates and closes many, then allocates, runs to its end through
// openDatabase; the same work on better-sqlite3 directly shows the build this suite loads is sound.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { keepUntilExit, openDatabase } from '../../src/core/db.js';

const DB_MODULE = new URL('../../dist/core/db.js', import.meta.url).href;
const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');

/** A script that opens 30 databases in turn, prepares, iterates and closes, then allocates typed arrays. */
function churn(open: string): string {
  return `${open}
let sink = 0;
for (let round = 0; round < 30; round++) {
  const db = await open();
  db.exec('CREATE TABLE IF NOT EXISTS t (x INTEGER)');
  db.transaction(() => db.prepare('INSERT INTO t VALUES (?)').run(round)).immediate();
  for (let i = 0; i < 100; i++) sink += db.prepare('SELECT ' + (i % 10) + ' AS n').get().n;
  for (const row of db.prepare('SELECT x FROM t').iterate()) sink += row.x;
  sink += db.pragma('user_version', { simple: true });
  db.close();
  for (let i = 0; i < 20000; i++) sink += new Uint8Array(64).length;
}
console.log('ran to the end', sink);`;
}

function run(script: string) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
}

describe('SQLite objects and the garbage collector', () => {
  it('a process that churns through databases and statements through openDatabase runs to its end', () => {
    const r = run(
      churn(`const { openDatabase } = await import(${JSON.stringify(DB_MODULE)});
const open = () => openDatabase(':memory:', { what: 'the test store', migrations: [] });`),
    );
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ran to the end \d+\n$/);
  });

  it('the same work on better-sqlite3 directly runs to its end: the build this suite loads survives the collector', () => {
    const r = run(
      churn(`const { default: Sqlite } = await import(${JSON.stringify(SQLITE)});
const open = async () => new Sqlite(':memory:');`),
    );
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ran to the end \d+\n$/);
  });
});

describe('what keepUntilExit hands out behaves as better-sqlite3 does', () => {
  const migrations = [(d: import('../../src/core/db.js').Database) => d.exec('CREATE TABLE t (x INTEGER)')];

  it('each prepared statement keeps its own row shape, though one SQL text is prepared once', async () => {
    const db = await openDatabase(':memory:', { what: 'the test store', migrations });
    db.prepare('INSERT INTO t VALUES (?)').run(1);
    db.prepare('INSERT INTO t VALUES (?)').run(2);
    const plucked = db.prepare('SELECT x FROM t ORDER BY x').pluck();
    const raw = db.prepare('SELECT x FROM t ORDER BY x').raw();
    const rows = db.prepare('SELECT x FROM t ORDER BY x');
    expect(plucked.all()).toEqual([1, 2]);
    expect(rows.all()).toEqual([{ x: 1 }, { x: 2 }]);
    expect(raw.get()).toEqual([1]);
    expect(plucked.pluck(false).get()).toEqual({ x: 1 });
    expect(rows.source).toBe('SELECT x FROM t ORDER BY x');
    expect(rows.reader).toBe(true);
    expect(db.prepare('DELETE FROM t WHERE x = 0').reader).toBe(false);
    expect(() => db.prepare('DELETE FROM t WHERE x = 0').pluck()).toThrow(/only for statements that return data/);
    db.close();
  });

  it('the same text runs again while one of its statements is being iterated', async () => {
    const db = await openDatabase(':memory:', { what: 'the test store', migrations });
    for (const x of [1, 2, 3]) db.prepare('INSERT INTO t VALUES (?)').run(x);
    const pairs: number[][] = [];
    for (const a of db.prepare('SELECT x FROM t ORDER BY x').pluck().iterate() as Iterable<number>) {
      for (const b of db.prepare('SELECT x FROM t ORDER BY x').pluck().iterate() as Iterable<number>) if (b > a) pairs.push([a, b]);
    }
    expect(pairs).toEqual([
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    // An iteration left before its end releases its statement, as better-sqlite3's does.
    for (const _ of db.prepare('SELECT x FROM t').iterate()) break;
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3);
    db.close();
  });

  it('pragma answers as better-sqlite3 answers (rows, or with simple the first value), and bind is refused', async () => {
    const { default: Sqlite } = await import('better-sqlite3');
    const db = keepUntilExit(new Sqlite(':memory:'));
    // What better-sqlite3's own pragma() answers for each (a setter without a result: no rows).
    const answers: [string, unknown[], unknown][] = [
      ['synchronous = NORMAL', [], undefined],
      ['synchronous', [{ synchronous: 1 }], 1],
      ['user_version = 3', [], undefined],
      ['user_version', [{ user_version: 3 }], 3],
      ['journal_mode', [{ journal_mode: 'memory' }], 'memory'],
      ['busy_timeout = 250', [{ timeout: 250 }], 250],
    ];
    for (const [source, rows, simple] of answers) {
      expect(db.pragma(source), source).toEqual(rows);
      expect(db.pragma(source, { simple: true }), source).toEqual(simple);
    }
    expect(() => db.prepare('SELECT ?').bind(1)).toThrow(/pass the parameters to run, get, all or iterate/);
    expect(() => db.prepare('SELEC 1')).toThrow(/syntax error/);
    db.close();
    expect(() => db.prepare('SELECT 1')).toThrow(/not open/);
  });
});

describe('every better-sqlite3 database opened in src/ and test/', () => {
  it("goes through keepUntilExit (or openDatabase), but those that must not: the control above, doctor's probe and each worker thread's own", () => {
    const root = new URL('../..', import.meta.url).pathname;
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const raw: string[] = [];
    for (const file of [...files('src'), ...files('test')]) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/new Sqlite\(/.test(line) && !/keepUntilExit\(new Sqlite\(/.test(line)) raw.push(`${file}:${i + 1}`);
        });
    }
    // A worker's connection lives as long as the worker (sqlite-worker.ts); the control and doctor's
    // probe of the driver (sqlite-probe.ts) open raw on purpose.
    expect(raw.filter((at) => !/^(src\/core\/sqlite-worker\.ts|src\/cli\/sqlite-probe\.ts|test\/integration\/sqlite-collector\.test\.ts):/.test(at))).toEqual(
      [],
    );
  });
});
