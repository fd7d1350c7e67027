import { existsSync, lstatSync } from 'node:fs';
import { openDatabase, type Database } from '../db.js';
import { UsageError } from '../errors.js';
import { eventWrites, insertEvents, MIGRATIONS } from './event-schema.js';
import { StoreBusyError, StoreWriteError, isBusy } from './store-errors.js';
import { importLegacy, legacySibling, legacySource, moveAside, storeFileKind } from './store-files.js';

export interface EventStoreOptions {
  /** The user id allowed to own the file and its directory. */
  uid?: number;
  /** How long prune, clear and a single append wait for another process's write lock (default 5 s). */
  busyTimeoutMs?: number;
  /**
   * Sync every commit to the disk (`synchronous = FULL`): an acknowledged event then survives a power
   * cut too, at the price of one fsync per group write. By default (`NORMAL`, WAL) a commit is in the
   * operating system before its answer, so `kill -9` loses nothing, and the WAL is synced at each
   * checkpoint: a power cut can lose what was committed since the last one.
   */
  fsync?: boolean;
  /**
   * How long the listener's group writes keep retrying a store another process has locked (without
   * blocking its event loop) before answering 503 (default 5 s).
   */
  writeWaitMs?: number;
  /**
   * The listener's group commits on a worker thread (writer-thread.ts; default true). Without it, or
   * while the worker starts, or after it failed, they run on the listener's own thread.
   */
  writerThread?: boolean;
}

export interface Pending {
  params: unknown[];
  done: (err?: unknown) => void;
}

/**
 * The event store's base (event-store.ts composes the parts on it, each extending the one below):
 * its options, opening the database (with the import of a JSONL store of the previous release), the
 * listener's prepared statements, and the error a write waiting too long for the lock becomes.
 */
export class EventStoreCore {
  protected db?: Database;
  protected opening?: Promise<Database>;
  protected stmts?: {
    insert: import('better-sqlite3').Statement;
    summarize: { run(first: number, last: number): void };
    seen: import('better-sqlite3').Statement;
    insertMany: ((batch: Pending[]) => void) & { immediate(batch: Pending[]): void };
  };

  constructor(
    readonly path: string,
    protected readonly options: EventStoreOptions = {},
  ) {}

  /** Opens the database (created if absent; a JSONL store of the previous release imported). */
  async prepare(): Promise<Database> {
    if (this.db) return this.db;
    this.opening ??= this.open();
    try {
      this.db = await this.opening;
    } finally {
      this.opening = undefined;
    }
    return this.db;
  }

  /** The database if there is one (or a JSONL store to import); undefined when nothing was ever stored. */
  protected async readable(): Promise<Database | undefined> {
    if (this.db) return this.db;
    if (!existsSync(this.path) && !existsSync(legacySibling(this.path) ?? '\0') && !existsSync(`${this.path}.migrated`)) {
      try {
        lstatSync(this.path); // a dangling symlink: let openDatabase refuse it
      } catch {
        return undefined;
      }
    }
    return this.prepare();
  }

  private async open(): Promise<Database> {
    // The previous release's store at this very path: moved aside first, then imported below. Any
    // other file (a mistyped --store naming a README, a CSV, a damaged database) is refused and left where it is.
    const kind = storeFileKind(this.path);
    if (kind === 'other') {
      throw new UsageError(`${this.path} is not an event store (neither SQLite nor a paycli JSONL store); it was left untouched`, {
        hint: 'give --store a new file or an existing event store',
      });
    }
    if (kind === 'legacy' && !moveAside(this.path, `${this.path}.migrated`)) {
      throw new UsageError(`${this.path} is a JSONL event store to import, but ${this.path}.migrated exists already; both were left untouched`, {
        hint: `move ${this.path}.migrated away (it is an older import's copy), then run this again`,
      });
    }
    const db = await openDatabase(this.path, { what: 'the event store', migrations: MIGRATIONS, uid: this.options.uid, busyTimeoutMs: 5000 });
    // The import waits up to 5 s for another process importing the same store (the one that commits first wins).
    const source = legacySource(this.path);
    if (source) {
      try {
        importLegacy(db, this.path, source);
      } catch (err) {
        db.close();
        if (err instanceof UsageError) throw err;
        throw new UsageError(`cannot import the previous event store ${source} into ${this.path}: ${(err as Error).message}`);
      }
    }
    // The listener's connection never waits inside SQLite (that would stop its event loop): it retries (see flush).
    db.pragma(`busy_timeout = ${this.options.busyTimeoutMs ?? 5000}`);
    db.pragma(`synchronous = ${this.synchronous}`);
    const { insert, summarize } = eventWrites(db);
    const seen = db.prepare('SELECT 1 FROM events WHERE trx_id = ? AND seen_key = ? LIMIT 1').pluck();
    const insertMany = db.transaction((batch: Pending[]) =>
      insertEvents(
        insert,
        summarize,
        batch.map((p) => p.params),
      ),
    );
    this.stmts = { insert, summarize, seen, insertMany: insertMany as never };
    return db;
  }

  /** The `synchronous` setting of every connection that writes or checkpoints this store. */
  protected get synchronous(): 'FULL' | 'NORMAL' {
    return this.options.fsync ? 'FULL' : 'NORMAL';
  }

  /** How long the listener's group writes wait for another process's lock before they fail (503). */
  protected get writeWaitMs(): number {
    return this.options.writeWaitMs ?? 5000;
  }

  protected busyError(): StoreBusyError {
    const s = Math.round((this.options.busyTimeoutMs ?? 5000) / 100) / 10;
    return new StoreBusyError(
      `the event store ${this.path} is busy: another process has held its write lock for over ${s} s (a paycli listen or trigger stopped with Ctrl-Z or a debugger, or a sqlite3 shell in a transaction)`,
    );
  }

  /** Runs a write of prune or clear in one IMMEDIATE transaction; a lock held past the busy timeout is a StoreBusyError. */
  protected write<R>(db: Database, fn: () => R): R {
    try {
      return db.transaction(fn).immediate();
    } catch (err) {
      if (isBusy(err)) throw this.busyError();
      throw new StoreWriteError(err, this.path);
    }
  }
}
