import type BetterSqlite3 from 'better-sqlite3';
import { prepareFile, tightenMode } from './db-file.js';
import { UsageError } from './errors.js';

export type Database = BetterSqlite3.Database;
/** A prepared statement (what `db.prepare` returns), by its parameters and row. */
export type Statement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

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

/**
 * Refuses a SQLite database paycli did not write: schema version 0 (paycli's first migration sets 1
 * in the transaction that makes its tables) with tables in it. Read in one transaction, so that a
 * database another paycli process is creating right now is seen before or after, never half made.
 */
function refuseForeign(db: Database, file: string, what: string): void {
  const [version, tables] = db.transaction(() => [
    db.pragma('user_version', { simple: true }),
    db.prepare('SELECT count(*) FROM sqlite_master').pluck().get(),
  ])();
  if (version === 0 && (tables as number) > 0) {
    throw new UsageError(`${file} is a SQLite database paycli did not write (it has tables of its own), not ${what}; it was left untouched`, {
      hint: 'give a new file, or one paycli made',
    });
  }
}

/** Whether SQLite gave up waiting for another connection's lock (SQLITE_BUSY and its extended codes). */
const isBusyCode = (err: unknown): boolean => /^SQLITE_BUSY/.test(String((err as { code?: unknown })?.code));

/**
 * Puts the database in WAL mode. Two processes switching a new database at once can deadlock in
 * SQLite's locks (each holds a shared lock and wants the exclusive one): one of them is told
 * SQLITE_BUSY at once, without its busy timeout, and tries again here until the other is done.
 */
async function enterWal(db: Database, waitMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isBusyCode(err) || Date.now() >= until) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/**
 * Opens (creating when absent; `:memory:` for none on disk) a SQLite database for one of paycli's stores: the file 0600 in a
 * 0700 directory, never through a symlink or a file another user owns (SQLite's `-wal` and `-shm`
 * companions included), WAL journal, `synchronous = FULL` (a committed transaction survives a power
 * cut), a busy timeout, and the schema brought to the newest version by numbered migrations, each in
 * its own transaction (`PRAGMA user_version`). The database is kept from the garbage collector (see
 * `keepUntilExit`).
 */
export async function openDatabase(file: string, options: OpenDatabaseOptions): Promise<Database> {
  const { what, uid } = options;
  if (file !== ':memory:') prepareFile(file, what, uid);
  const { default: Sqlite } = await import('better-sqlite3');
  let db: Database;
  try {
    db = keepUntilExit(new Sqlite(file));
  } catch (err) {
    throw new UsageError(`cannot open ${what} ${file}: ${(err as Error).message}`);
  }
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (file !== ':memory:') {
      if (options.migrations.length > 0) refuseForeign(db, file, what);
      tightenMode(file, what);
    }
    await enterWal(db, options.busyTimeoutMs ?? 5000);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, options.migrations, what);
  } catch (err) {
    db.close();
    if (err instanceof UsageError) throw err;
    if (isBusyCode(err)) {
      const s = Math.round((options.busyTimeoutMs ?? 5000) / 100) / 10;
      throw new DatabaseLockedError(
        `cannot open ${what} ${file}: another process has held its write lock for over ${s} s (one bringing it to a newer schema, which takes a while for a large file; a paycli stopped with Ctrl-Z; a sqlite3 shell in a transaction)`,
        { hint: 'run this again once that process is done' },
      );
    }
    throw new UsageError(`cannot open ${what} ${file}: ${(err as Error).message}`);
  }
  return db;
}

/** A database another process kept locked past the busy timeout while it was being opened (a UsageError: exit 2). */
export class DatabaseLockedError extends UsageError {}

/**
 * What is never left to the garbage collector: every better-sqlite3 object (database, statement,
 * iterator) paycli creates stays reachable from here until the process ends. better-sqlite3 12 wraps
 * them in node::ObjectWrap, whose destructor, as Node 24 builds it, needs a current Node context,
 * and V8 runs that destructor in whichever collection finds the object unreachable, including one set
 * off by an allocation inside a V8 builtin, where there is none: the process aborts (`Assertion
 * failed: (env) != nullptr` in Statement::~Statement, WiseLibs/better-sqlite3#1515), however long
 * ago the database was closed. (better-sqlite3 13 has no such destructor, but needs Node 22.) When
 * the process ends, Node's environment cleanup frees them, in a context; `process.exit` frees nothing.
 */
const KEPT: unknown[] = [];

type Mode = 'flat' | 'pluck' | 'raw' | 'expand';
type Native = BetterSqlite3.Statement<unknown[], unknown>;

/** The prepared statements of one SQL text on one database: more than one only while one is being iterated. */
class Prepared {
  readonly natives: Native[] = [];
  private readonly modes: Mode[] = [];

  constructor(private readonly create: () => Native) {
    this.add();
  }

  private add(): number {
    this.natives.push(this.create());
    this.modes.push('flat');
    return this.natives.length - 1;
  }

  /** A statement of this text that no iterator holds, its rows shaped by `mode`. */
  take(mode: Mode): Native {
    let i = this.natives.findIndex((s) => !s.busy);
    if (i < 0) i = this.add();
    const stmt = this.natives[i]!;
    const was = this.modes[i]!;
    if (was !== mode) {
      if (mode === 'flat') stmt[was as Exclude<Mode, 'flat'>](false);
      else stmt[mode](true);
      this.modes[i] = mode;
    }
    return stmt;
  }
}

/**
 * What `prepare` returns: better-sqlite3's Statement over the database's statement of that text,
 * with a row shape (`pluck`, `raw`, `expand`) of its own. `bind` and `safeIntegers`, which would
 * change the shared statement for every holder, are refused.
 */
class CachedStatement {
  private mode: Mode = 'flat';

  constructor(
    private readonly prepared: Prepared,
    readonly database: Database,
  ) {}

  get source(): string {
    return this.prepared.natives[0]!.source;
  }
  get reader(): boolean {
    return this.prepared.natives[0]!.reader;
  }
  get readonly(): boolean {
    return this.prepared.natives[0]!.readonly;
  }
  run(...params: unknown[]): BetterSqlite3.RunResult {
    return this.prepared.take(this.mode).run(...params);
  }
  get(...params: unknown[]): unknown {
    return this.prepared.take(this.mode).get(...params);
  }
  all(...params: unknown[]): unknown[] {
    return this.prepared.take(this.mode).all(...params);
  }
  iterate(...params: unknown[]): IterableIterator<unknown> {
    const it = this.prepared.take(this.mode).iterate(...params);
    KEPT.push(it);
    return it;
  }
  columns(): BetterSqlite3.ColumnDefinition[] {
    return this.prepared.natives[0]!.columns();
  }
  pluck(on = true): this {
    return this.shape('pluck', on);
  }
  raw(on = true): this {
    return this.shape('raw', on);
  }
  expand(on = true): this {
    return this.shape('expand', on);
  }
  bind(): never {
    throw new TypeError('bind() is not available on a statement paycli prepared: pass the parameters to run, get, all or iterate');
  }
  safeIntegers(): never {
    throw new TypeError('safeIntegers() is not available on a statement paycli prepared');
  }

  private shape(mode: Exclude<Mode, 'flat'>, on: boolean): this {
    if (!this.reader) throw new TypeError(`The ${mode}() method is only for statements that return data`);
    if (on) this.mode = mode;
    else if (this.mode === mode) this.mode = 'flat';
    return this;
  }
}

/**
 * Keeps `db` and everything it prepares from the garbage collector until the process ends (see
 * KEPT): its `prepare` and `pragma` prepare each SQL text once and reuse it, so that what is kept
 * grows with the texts, not with the calls. Every better-sqlite3 database paycli (or a test) opens
 * goes through here; returns `db`.
 */
export function keepUntilExit(db: Database): Database {
  KEPT.push(db);
  const native = db.prepare.bind(db) as (source: string) => Native;
  const cache = new Map<string, Prepared>();
  const prepare = (source: string): CachedStatement => {
    if (!db.open) native(source); // better-sqlite3's own error
    let prepared = cache.get(source);
    if (!prepared) {
      prepared = new Prepared(() => native(source));
      cache.set(source, prepared);
    }
    return new CachedStatement(prepared, db);
  };
  db.prepare = prepare as unknown as Database['prepare'];
  // better-sqlite3's own pragma() prepares a new statement each time.
  db.pragma = (source: string, options?: { simple?: boolean }): unknown => {
    const stmt = prepare(`PRAGMA ${source}`);
    if (!stmt.reader) {
      stmt.run();
      return options?.simple ? undefined : [];
    }
    return options?.simple ? stmt.pluck().get() : stmt.all();
  };
  return db;
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
      // Another process may have run this step since the version was read (two first opens at once).
      if ((db.pragma('user_version', { simple: true }) as number) > v) return;
      migrations[v]!(db);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
