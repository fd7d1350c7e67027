import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDatabase, type Database } from '../db.js';
import { UsageError } from '../errors.js';
import { fsError } from '../fs-errors.js';
import { migrateOlderJournal } from './ledger-migrate.js';
import { SandboxState } from './state.js';

/** Who takes the lock: this process's id, and the user allowed to own the data dir's files. */
export interface LockOwner {
  pid: number;
  uid?: number;
}

export interface DataDirLock {
  /** The data directory, absolute. */
  dir: string;
  release(): Promise<void>;
}

/**
 * Makes this process the only user of an emulator data dir (the emulator, or `sandbox
 * seed/import/reset/export` on a stopped one). The lock is SQLite's own write lock on
 * `DIR/lock.db`: a write transaction opened here and never committed. The operating system holds it
 * for as long as this process lives and drops it when the process ends however it ends (`kill -9`
 * included); a stopped process (SIGSTOP, Ctrl-Z) keeps it, so nobody takes over a live emulator's
 * data dir. Another process is refused (exit 2) with the dir and the holder's pid, which the holder
 * records in the ledger (`holder` table) where anyone can read it.
 */
export async function lockDataDir(dataDir: string, owner: LockOwner = { pid: 0 }): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw fsError(err, `the emulator data dir ${dir}`);
  }
  const db: Database = await openDatabase(join(dir, 'lock.db'), { what: 'the emulator data dir lock', migrations: [], uid: owner.uid, busyTimeoutMs: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    db.close();
    if (!/SQLITE_BUSY|SQLITE_LOCKED/.test(String((err as { code?: unknown }).code)))
      throw new UsageError(`cannot lock the emulator data dir ${dir}: ${(err as Error).message}`);
    let pid: number | null | undefined;
    try {
      const ledger = await SandboxState.open(dir, owner.uid);
      pid = ledger.holder()?.pid;
      await ledger.close();
    } catch {
      /* the holder is still creating it: no pid to name */
    }
    throw new UsageError(`the emulator data dir ${dir} is in use by another paycli process${pid ? ` (pid ${pid})` : ''}`, {
      hint: 'stop that emulator, or give this one another --data-dir (or --in-memory); `sandbox seed/reset/export` take --sandbox-url to go through it',
    });
  }
  return {
    dir,
    async release() {
      if (!db.open) return;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

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
    state = await SandboxState.open(lock.dir, owner.uid);
    const migrated = await migrateOlderJournal(state, lock.dir);
    state.setHolder(owner.pid || null);
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
