import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { UsageError } from './errors.js';
import { fsError } from './fs-errors.js';

export type Database = BetterSqlite3.Database;

/** One schema step: run inside the migration's transaction, then `user_version` becomes its number. */
export type Migration = (db: Database) => void;

export interface OpenDatabaseOptions {
  /** What the file is, for messages (`the event store`, `the emulator ledger`). */
  what: string;
  /** Schema steps, oldest first: migration i brings `user_version` from i to i + 1. */
  migrations: Migration[];
  /** The user id allowed to own the file and its directory (the core never reads `process`). */
  uid?: number;
  /** Milliseconds a writer waits for another's transaction before SQLITE_BUSY (default 5 000). */
  busyTimeoutMs?: number;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Refuses a path that is a symlink, or a file or directory owned by someone else. */
function checkOwned(path: string, st: Stats | undefined, what: string, uid: number | undefined): void {
  if (!st) return;
  if (st.isSymbolicLink()) {
    throw new UsageError(`refusing to open ${what} ${path}: it is a symbolic link`, { hint: 'give the real path of a file you own' });
  }
  if (uid !== undefined && st.uid !== uid) {
    throw new UsageError(`refusing to open ${what} ${path}: it belongs to another user (uid ${st.uid})`, { hint: 'use a file in a directory of your own' });
  }
}

/** The file 0600 in a 0700 directory, created without following a link; refused when not safely the user's. */
function prepareFile(file: string, what: string, uid: number | undefined): void {
  try {
    const dir = dirname(file);
    const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
    checkOwned(dir, lstatOrUndefined(dir), `the directory of ${what}`, uid);
    if (created) chmodSync(dir, 0o700);
    for (const companion of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) checkOwned(companion, lstatOrUndefined(companion), what, uid);
    const st = lstatOrUndefined(file);
    checkOwned(file, st, what, uid);
    if (!st) {
      // Create it 0600 without following a link planted between the check and the open.
      try {
        closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        checkOwned(file, lstatOrUndefined(file), what, uid);
      }
    } else if ((st.mode & 0o077) !== 0) {
      chmodSync(file, 0o600);
    }
  } catch (err) {
    throw fsError(err, `${what} ${file}`);
  }
}

/**
 * Opens (creating when absent; `:memory:` for none on disk) a SQLite database for one of paycli's stores: the file 0600 in a
 * 0700 directory, never through a symlink or a file another user owns (SQLite's `-wal` and `-shm`
 * companions included), WAL journal, `synchronous = FULL` (a committed transaction survives a power
 * cut), a busy timeout, and the schema brought to the newest version by numbered migrations, each in
 * its own transaction (`PRAGMA user_version`).
 */
export async function openDatabase(file: string, options: OpenDatabaseOptions): Promise<Database> {
  const { what, uid } = options;
  if (file !== ':memory:') prepareFile(file, what, uid);
  const { default: Sqlite } = await import('better-sqlite3');
  let db: Database;
  try {
    db = new Sqlite(file);
  } catch (err) {
    throw new UsageError(`cannot open ${what} ${file}: ${(err as Error).message}`);
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, options.migrations, what);
  } catch (err) {
    db.close();
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot open ${what} ${file}: ${(err as Error).message}`);
  }
  OPEN.add(db);
  return db;
}

/**
 * The databases this process opened and has not closed yet. better-sqlite3 12 aborts a Node 24
 * process whose environment is torn down while prepared statements of an open database are still
 * alive (`Assertion failed: (env) != nullptr` in Statement::~Statement, WiseLibs/better-sqlite3#1515);
 * a host that ends an environment without exiting the process (a test runner's worker) closes what
 * is left with `closeOpenDatabases` first. paycli's own process ends without a teardown.
 */
const OPEN = new Set<Database>();

/** Closes every database still open in this process (see OPEN); returns how many were open. */
export function closeOpenDatabases(): number {
  let n = 0;
  for (const db of OPEN) {
    if (db.open) {
      db.close();
      n++;
    }
  }
  OPEN.clear();
  return n;
}

/** Brings the schema to `migrations.length`; a database newer than this paycli is refused. */
export function migrate(db: Database, migrations: Migration[], what: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > migrations.length) {
    throw new UsageError(`${what} was written by a newer paycli (schema ${version}; this one knows ${migrations.length})`, {
      hint: 'upgrade paycli, or use another file',
    });
  }
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      migrations[v]!(db);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
