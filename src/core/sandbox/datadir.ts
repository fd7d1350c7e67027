import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseLockedError, keepUntilExit, openDatabase, type Database } from '../db.js';
import { UsageError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { migrateOlderJournal } from './ledger-migrate.js';
import { SandboxState } from './state.js';

/** Who takes the lock: this process's id, and the user allowed to own the data dir's files. */
export interface LockOwner {
  pid: number;
  uid?: number;
  /**
   * Whether a process of that id is running (the core reads no `process`: the shell passes this).
   * A pid recorded by a holder that was killed is not named while its successor is still starting.
   */
  alive?: (pid: number) => boolean;
}

export interface DataDirLock {
  /** The data directory, absolute. */
  dir: string;
  release(): Promise<void>;
}

/** How long (polls of POLL_MS) a process that finds the data dir locked waits for the holder, still starting, to record its pid. */
const HOLDER_POLLS = 200;
const POLL_MS = 25;
/** How long opening `lock.db` waits while another process creates it (SQLite's busy timeout). */
const OPEN_BUSY_MS = 2000;

const isLockError = (err: unknown) =>
  err instanceof DatabaseLockedError ||
  /SQLITE_BUSY|SQLITE_LOCKED/.test(String((err as { code?: unknown })?.code)) ||
  /database is locked/.test(String((err as Error)?.message));

/** `lock.db` opened (created when absent), or null when another process holds a lock that keeps it from being opened. */
async function openLockFile(dir: string, uid: number | undefined): Promise<Database | null> {
  try {
    const db = await openDatabase(join(dir, 'lock.db'), { what: 'the emulator data dir lock', migrations: [], uid, busyTimeoutMs: OPEN_BUSY_MS });
    db.pragma('busy_timeout = 0');
    return db;
  } catch (err) {
    if (isLockError(err)) return null;
    throw err;
  }
}

/** Takes the lock: SQLite's write lock on `lock.db`, a transaction never committed. False when another process holds it. */
function tryLock(db: Database, dir: string): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (err) {
    if (!isLockError(err)) throw new UsageError(`cannot lock the emulator data dir ${dir}: ${(err as Error).message}`);
    return false;
  }
}

/**
 * The pid the holder recorded in the ledger (`holder` table), read without writing anything: no
 * ledger yet, or no table yet (the holder is creating it), or no row is undefined.
 */
class HolderReader {
  private db: Database | undefined;

  constructor(
    private readonly file: string,
    private readonly uid: number | undefined,
  ) {}

  async pid(): Promise<number | undefined> {
    try {
      if (!this.db) {
        const st = lstatSync(this.file, { throwIfNoEntry: false });
        if (!st?.isFile() || (this.uid !== undefined && st.uid !== this.uid)) return undefined;
        const { default: Sqlite } = await import('better-sqlite3');
        this.db = keepUntilExit(new Sqlite(this.file, { readonly: true, fileMustExist: true, timeout: 0 }));
      }
      const pid = this.db.prepare('SELECT pid FROM holder').pluck().get() as number | null | undefined;
      return pid ?? undefined;
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.db?.open) this.db.close();
  }
}

/**
 * Makes this process the only user of an emulator data dir (the emulator, or `sandbox
 * seed/import/reset/export` on a stopped one). The lock is SQLite's own write lock on
 * `DIR/lock.db`: a write transaction opened here and never committed. The operating system holds it
 * for as long as this process lives and drops it when the process ends however it ends (`kill -9`
 * included); a stopped process (SIGSTOP, Ctrl-Z) keeps it, so nobody takes over a live emulator's
 * data dir. Another process is refused (exit 2) with the dir and the holder's pid, which the holder
 * records in the ledger (`holder` table) where anyone can read it. A holder that has just taken the
 * lock (or is still creating `lock.db`) has not recorded its pid yet: the refused process waits for
 * it (up to 5 s), trying the lock again meanwhile, and takes it if the holder has let go.
 */
export async function lockDataDir(dataDir: string, owner: LockOwner = { pid: 0 }): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw fsError(err, `the emulator data dir ${dir}`);
  }
  let db = await openLockFile(dir, owner.uid);
  if (!db || !tryLock(db, dir)) db = await waitForHolder(dir, owner, db);
  const locked = db;
  // 0700, also when it was made otherwise (opening lock.db refused a link or another user's directory).
  try {
    tighten(dir, owner.uid);
  } catch (err) {
    locked.exec('ROLLBACK');
    locked.close();
    throw err;
  }
  return {
    dir,
    async release() {
      if (!locked.open) return;
      try {
        locked.exec('ROLLBACK');
      } finally {
        locked.close();
      }
    },
  };
}

/**
 * The data dir is locked: names the holder once it has recorded its pid (a live process's, when
 * `owner.alive` can tell), or returns the lock when the holder let go meanwhile.
 */
async function waitForHolder(dir: string, owner: LockOwner, opened: Database | null): Promise<Database> {
  const reader = new HolderReader(join(dir, 'ledger.db'), owner.uid);
  let db = opened;
  let pid: number | undefined;
  try {
    for (let poll = 0; ; poll++) {
      pid = await reader.pid();
      if (pid !== undefined && (owner.alive?.(pid) ?? true)) break;
      if (poll >= HOLDER_POLLS) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
      db ??= await openLockFile(dir, owner.uid);
      if (db && tryLock(db, dir)) return db;
    }
  } finally {
    reader.close();
  }
  db?.close();
  throw new UsageError(`the emulator data dir ${dir} is in use by another paycli process${pid ? ` (pid ${pid})` : ' (its pid is not recorded yet)'}`, {
    hint: 'stop that emulator, or give this one another --data-dir (or --in-memory); `sandbox seed/reset/export` take --sandbox-url to go through it',
  });
}

/**
 * Takes the group's and others' permissions off an existing directory or file of the data dir
 * (a data dir made by hand, or by paycli 0.1, which left it 0755 and its journals 0644: they hold
 * buyers' names, e-mails and phones). Through a descriptor opened without following a link, and
 * only when it is this user's: a link or an absent file is left alone.
 */
function tighten(path: string, uid: number | undefined): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return;
    throw fsError(err, path);
  }
  try {
    const st = fstatSync(fd);
    if ((st.isFile() || st.isDirectory()) && (uid === undefined || st.uid === uid) && (st.mode & 0o077) !== 0) fchmodSync(fd, st.mode & 0o700);
  } catch (err) {
    throw fsError(err, path);
  } finally {
    closeSync(fd);
  }
}

/** The files of a data dir besides the databases (which db.ts keeps 0600): an older paycli's journals, imported or not. */
const JOURNALS = ['journal.jsonl', 'redirects.jsonl', 'journal.jsonl.migrated', 'redirects.jsonl.migrated'];

/** A data dir opened by one process: its ledger (an older journal imported first), and the lock. */
export interface OpenedDataDir {
  dir: string;
  state: SandboxState;
  /** What the import of an older version's journal found, when there was one. */
  migrated?: { imported: number; skipped: number };
  close(): Promise<void>;
}

/**
 * Locks a data dir and opens its ledger, importing a journal left by an older version once (the
 * emulator at start, and `sandbox seed/import/export/reset` on a stopped emulator's data dir).
 */
export async function openDataDir(dataDir: string, owner: LockOwner = { pid: 0 }): Promise<OpenedDataDir> {
  const lock = await lockDataDir(dataDir, owner);
  let state: SandboxState | undefined;
  try {
    for (const f of JOURNALS) tighten(join(lock.dir, f), owner.uid);
    state = await SandboxState.open(lock.dir, owner.uid);
    // Named first: a process refused while an older journal is imported (which may take a while) names this one.
    state.setHolder(owner.pid || null);
    const migrated = await migrateOlderJournal(state, lock.dir);
    const opened = state;
    return {
      dir: lock.dir,
      state: opened,
      ...(migrated ? { migrated } : {}),
      async close() {
        try {
          opened.setHolder(null);
        } catch {
          /* a full disk: the next holder overwrites the name */
        }
        await opened.close();
        await lock.release();
      },
    };
  } catch (err) {
    await state?.close();
    await lock.release();
    throw err;
  }
}
