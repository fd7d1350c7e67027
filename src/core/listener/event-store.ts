import { existsSync, lstatSync, openSync, readSync, closeSync, renameSync, readFileSync } from 'node:fs';
import { openDatabase, type Database, type Migration } from '../db.js';
import { UsageError } from '../errors.js';
import { startWalCheckpointer, type WalCheckpointer } from '../wal-checkpointer.js';

export type Verdict = 'valid' | 'valid-variant' | 'invalid' | 'malformed';

/** One request the listener received, stored before it was answered. */
export interface StoredEvent {
  id: string;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body as text (UTF-8). */
  body: string;
  verdict: Verdict;
  /** The encoding variant that matched, for `valid-variant`. */
  variant: string | null;
  reason: string | null;
  duplicate: boolean;
  trx_id: string | null;
  status: string | null;
  /** HTTP status the listener answered. */
  answer: number;
  source?: 'listen' | 'trigger';
}

/** What makes a retry of a callback a duplicate: its transaction, status and signature. */
export function retryKey(trxId: string | null, status: string | null, signature: string): string {
  return `${trxId}|${status}|${signature.trim().toLowerCase()}`;
}

const VERDICTS = new Set(['valid', 'valid-variant', 'invalid', 'malformed']);
const strOrNull = (v: unknown) => v === null || typeof v === 'string';

/** Whether a parsed line of a JSONL store (the previous release's) has the shape of a stored event. */
export function isStoredEvent(e: unknown): e is StoredEvent {
  if (typeof e !== 'object' || e === null) return false;
  const x = e as Record<string, unknown>;
  if (typeof x.id !== 'string' || typeof x.receivedAt !== 'string' || typeof x.method !== 'string' || typeof x.path !== 'string' || typeof x.body !== 'string')
    return false;
  if (typeof x.verdict !== 'string' || !VERDICTS.has(x.verdict) || typeof x.answer !== 'number' || typeof x.duplicate !== 'boolean') return false;
  if (!strOrNull(x.trx_id) || !strOrNull(x.status) || !strOrNull(x.reason ?? null) || !strOrNull(x.variant ?? null)) return false;
  if (x.source !== undefined && x.source !== 'listen' && x.source !== 'trigger') return false;
  if (typeof x.headers !== 'object' || x.headers === null || Array.isArray(x.headers)) return false;
  for (const v of Object.values(x.headers)) if (typeof v !== 'string') return false;
  return true;
}

/**
 * The schema, version by version (`PRAGMA user_version`). `seq` is the order of arrival, never reused
 * (AUTOINCREMENT: after a clear, `events tail` still sees the next event as new); `seen_key`
 * is set for the callbacks the listener acknowledged (valid, answered 200), so that a retry after a
 * restart is found by one index lookup instead of a read of the whole history. That index is on the
 * transaction id, which grows with time as the rows do: pruning old rows touches its oldest pages
 * only (an index on the key itself, a hash, would dirty a random page per row removed).
 */
const MIGRATIONS: Migration[] = [
  (db) =>
    db.exec(`
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        received_at TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        headers TEXT NOT NULL,
        body TEXT NOT NULL,
        verdict TEXT NOT NULL,
        variant TEXT,
        reason TEXT,
        duplicate INTEGER NOT NULL,
        trx_id TEXT,
        status TEXT,
        answer INTEGER NOT NULL,
        source TEXT NOT NULL,
        seen_key TEXT
      );
      CREATE INDEX events_received_at ON events (received_at);
      CREATE INDEX events_acknowledged ON events (trx_id) WHERE seen_key IS NOT NULL;
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `),
];

const COLUMNS = 'seq, id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source';

interface Row {
  seq: number;
  id: string;
  received_at: string;
  method: string;
  path: string;
  headers: string;
  body: string;
  verdict: Verdict;
  variant: string | null;
  reason: string | null;
  duplicate: number;
  trx_id: string | null;
  status: string | null;
  answer: number;
  source: 'listen' | 'trigger';
}

function fromRow(r: Row): StoredEvent & { seq: number } {
  let headers: Record<string, string>;
  try {
    headers = JSON.parse(r.headers) as Record<string, string>;
  } catch {
    headers = {}; // edited by hand with the sqlite3 shell
  }
  return {
    seq: r.seq,
    id: r.id,
    receivedAt: r.received_at,
    method: r.method,
    path: r.path,
    headers,
    body: r.body,
    verdict: r.verdict,
    variant: r.variant,
    reason: r.reason,
    duplicate: r.duplicate !== 0,
    trx_id: r.trx_id,
    status: r.status,
    answer: r.answer,
    source: r.source,
  };
}

/** An event without its row number (what commands print). */
function plain(e: StoredEvent & { seq?: number }): StoredEvent {
  const { seq: _seq, ...rest } = e;
  return rest;
}

/** The parameters of one insert, in the order of INSERT_SQL (`key`: the event's retryKey, when the caller made it already). */
function insertParams(e: StoredEvent, key?: string | null): unknown[] {
  const source = e.source ?? 'listen';
  const acknowledged = (e.verdict === 'valid' || e.verdict === 'valid-variant') && source === 'listen' && e.answer === 200;
  const signature = e.headers['x-signature'];
  return [
    e.id,
    e.receivedAt,
    e.method,
    e.path,
    JSON.stringify(e.headers),
    e.body,
    e.verdict,
    e.variant ?? null,
    e.reason ?? null,
    e.duplicate ? 1 : 0,
    e.trx_id,
    e.status,
    e.answer,
    source,
    acknowledged && signature !== undefined ? (key ?? retryKey(e.trx_id, e.status, signature)) : null,
  ];
}

/** How long one prune chunk holds the write lock: a listener waiting for it answers that much later at most. */
const PRUNE_CHUNK_MS = 15;

const INSERT_SQL =
  'INSERT INTO events (id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source, seen_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** SQLite's result codes, as the errno codes the rest of paycli speaks (`cannot store the request (ENOSPC)`). */
const ERRNO: Record<string, [string, string]> = {
  SQLITE_FULL: ['ENOSPC', 'no space left on the device'],
  SQLITE_IOERR: ['EIO', 'input/output error'],
  SQLITE_READONLY: ['EROFS', 'the store is read-only'],
  SQLITE_CANTOPEN: ['EACCES', 'the store cannot be opened'],
  SQLITE_BUSY: ['EBUSY', "another process holds the store's write lock"],
  SQLITE_CORRUPT: ['EIO', 'the database file is corrupt'],
  SQLITE_NOTADB: ['EIO', 'the file is not a database'],
};

/** A write the store could not make: nothing of it was committed. `code` is an errno-style code. */
export class StoreWriteError extends Error {
  readonly code: string;
  readonly sqliteCode: string | undefined;
  constructor(cause: unknown, path: string) {
    const sqliteCode = (cause as { code?: string })?.code;
    const base = sqliteCode?.replace(/^(SQLITE_[A-Z]+)_.*$/, '$1');
    const known = base ? ERRNO[base] : undefined;
    super(`cannot write the event store ${path}: ${known?.[1] ?? (cause as Error)?.message ?? String(cause)}`, { cause });
    this.code = known?.[0] ?? sqliteCode ?? 'EIO';
    this.sqliteCode = sqliteCode;
  }
}

/** Another process held the store's write lock for longer than this one would wait. */
export class StoreBusyError extends Error {
  readonly code = 'ESTOREBUSY';
}

const isBusy = (err: unknown) => {
  const code = (err as { code?: string })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
};

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
}

export interface PruneResult {
  before: number;
  removed: number;
  kept: number;
}

export interface ListQuery {
  /** The newest N matches (oldest first); all when absent. */
  limit?: number;
  status?: string;
  verdicts?: Verdict[];
  /** ISO times, inclusive lower bound and exclusive upper bound on `receivedAt`. */
  since?: string;
  until?: string;
  /** Only rows up to this row number (see `lastSeq`). */
  upToSeq?: number;
}

interface Pending {
  params: unknown[];
  done: (err?: unknown) => void;
}

/** The first 16 bytes of every SQLite database file. */
const SQLITE_MAGIC = 'SQLite format 3\u0000';

function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    return n === 16 && head.toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether a file's first line is an event of the previous release's JSONL store. */
function isLegacyStore(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(256 * 1024);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, n).toString('utf8');
    const first = text.split('\n').find((l) => l.trim() !== '');
    return first !== undefined && isStoredEvent(JSON.parse(first));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The listener's event store: a SQLite database (default `$XDG_DATA_HOME/paycli/events.db`), WAL,
 * `synchronous = NORMAL` unless `fsync` asks for FULL, opened by `openDatabase` (0600 in a 0700
 * directory, never through a symlink).
 *
 * The listener appends with group commit: every event handed to `appendWith` during one event-loop
 * turn is inserted in one transaction at the end of the turn, and every caller is told after it
 * committed (then, and only then, it answers 200). When another process holds the write lock (a
 * prune chunk, a clear, `paycli trigger`), the group is retried a few milliseconds later without
 * blocking the event loop, for up to `writeWaitMs`, then failed (503). Locks are SQLite's: they
 * belong to the process that holds them, live or stopped, and nobody takes one over.
 *
 * A store written by the previous release (JSONL) is imported on first open, in one transaction,
 * and the old file is renamed `*.jsonl.migrated` (see `importLegacy`).
 */
export class EventStore {
  private db?: Database;
  private opening?: Promise<Database>;
  private queue: Pending[] = [];
  private scheduled = false;
  private firstTry = 0;
  private retryDelay = 1;
  private drained?: () => void;
  private closed = false;
  /** Checkpoints in a worker thread, started by the first group write (the listener's hot path). */
  private checkpointer?: Promise<WalCheckpointer | undefined>;
  private checkpoints?: WalCheckpointer;
  private stmts?: {
    insert: import('better-sqlite3').Statement;
    seen: import('better-sqlite3').Statement;
    insertMany: ((batch: Pending[]) => void) & { immediate(batch: Pending[]): void };
  };

  constructor(
    readonly path: string,
    private readonly options: EventStoreOptions = {},
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
  private async readable(): Promise<Database | undefined> {
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
    // The previous release's store at this very path: moved aside first, then imported below.
    let legacy: string | undefined;
    if (isRegularFile(this.path) && !isSqliteFile(this.path) && lstatSync(this.path).size > 0) {
      // Only a store of the previous release is moved aside: any other file (a mistyped --store naming
      // a README, a CSV, a damaged database) is refused and left where it is.
      if (!isLegacyStore(this.path)) {
        throw new UsageError(`${this.path} is not an event store (neither SQLite nor a paycli JSONL store); it was left untouched`, {
          hint: 'give --store a new file or an existing event store',
        });
      }
      try {
        renameSync(this.path, `${this.path}.migrated`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // another process moved it
      }
    }
    const db = await openDatabase(this.path, { what: 'the event store', migrations: MIGRATIONS, uid: this.options.uid, busyTimeoutMs: 5000 });
    // The listener's connection never waits inside SQLite (that would stop its event loop): it retries (see flush).
    db.pragma(`busy_timeout = ${this.options.busyTimeoutMs ?? 5000}`);
    db.pragma(`synchronous = ${this.options.fsync ? 'FULL' : 'NORMAL'}`);
    try {
      legacy = this.importLegacy(db);
    } catch (err) {
      db.close();
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot import the previous event store ${legacy ?? ''} into ${this.path}: ${(err as Error).message}`);
    }
    const insert = db.prepare(INSERT_SQL);
    const seen = db.prepare('SELECT 1 FROM events WHERE trx_id = ? AND seen_key = ? LIMIT 1').pluck();
    const insertMany = db.transaction((batch: Pending[]) => {
      for (const p of batch) insert.run(p.params);
    });
    this.stmts = { insert, seen, insertMany: insertMany as never };
    return db;
  }

  /**
   * Imports a JSONL store of the previous release once, in one transaction: `<name>.jsonl` beside a
   * `<name>.db`, or the file this store's path named (already moved to `<path>.migrated`). A marker
   * row in `meta` says it was done, so that a crash between the commit and the rename never imports
   * it twice; ids are unique anyway. Lines that are not events (a torn last line) are skipped.
   */
  private importLegacy(db: Database): string | undefined {
    const sibling = legacySibling(this.path);
    const candidates = [`${this.path}.migrated`, ...(sibling ? [sibling] : [])];
    const source = candidates.find((c) => isRegularFile(c));
    if (!source) return undefined;
    const done = db.prepare("SELECT value FROM meta WHERE key = 'legacy-import'").pluck();
    let imported = false;
    db.transaction(() => {
      if (done.get() !== undefined) return;
      const insert = db.prepare(INSERT_SQL.replace('INSERT', 'INSERT OR IGNORE'));
      for (const line of readFileSync(source, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        let e: unknown;
        try {
          e = JSON.parse(line);
        } catch {
          continue;
        }
        if (isStoredEvent(e)) insert.run(insertParams(e));
      }
      db.prepare("INSERT INTO meta (key, value) VALUES ('legacy-import', ?)").run(source);
      imported = true;
    }).immediate();
    if (source === sibling && (imported || !existsSync(`${sibling}.migrated`))) {
      try {
        renameSync(sibling, `${sibling}.migrated`);
      } catch {
        /* another process renamed it */
      }
    }
    return source;
  }

  /** Whether an earlier run acknowledged a callback of this transaction with this retry key (see `retryKey`). Call `prepare()` first. */
  acknowledged(trxId: string | null, key: string): boolean {
    return trxId !== null && this.stmts!.seen.get(trxId, key) !== undefined;
  }

  /** Appends one event; resolves once it is committed. Waits up to the busy timeout for another writer. */
  async append(event: StoredEvent): Promise<void> {
    await this.prepare();
    try {
      this.stmts!.insert.run(insertParams(event));
    } catch (err) {
      if (isBusy(err)) throw this.busyError();
      throw new StoreWriteError(err, this.path);
    }
  }

  /**
   * `append` for the listener's hot path (call `prepare()` first): queued, inserted with the others of
   * this event-loop turn in one transaction; `done` gets nothing once it committed, or the error.
   * `key`: the event's `retryKey`, when the caller made it already (the listener's verdict did).
   */
  appendWith(event: StoredEvent, done: (err?: unknown) => void, key?: string | null): void {
    if (!this.stmts) throw new Error('EventStore.appendWith before prepare()');
    this.queue.push({ params: insertParams(event, key), done });
    this.checkpointer ??= this.startCheckpoints();
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Moves WAL checkpoints off the listener's thread (wal-checkpointer.ts); without a worker, SQLite's own go on. */
  private async startCheckpoints(): Promise<WalCheckpointer | undefined> {
    try {
      this.checkpoints = await startWalCheckpointer(this.db!, this.path, { synchronous: this.options.fsync ? 'FULL' : 'NORMAL' });
      return this.checkpoints;
    } catch {
      return undefined;
    }
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    let error: unknown;
    try {
      this.stmts!.insertMany.immediate(batch);
      this.checkpoints?.poke();
    } catch (err) {
      const wait = this.options.writeWaitMs ?? 5000;
      if (isBusy(err) && !this.closed) {
        this.firstTry ||= Date.now();
        if (Date.now() - this.firstTry < wait) {
          // Another process writes (a prune chunk, a clear, trigger): try again soon, the loop free meanwhile.
          this.queue = batch.concat(this.queue);
          const delay = this.retryDelay;
          this.retryDelay = Math.min(2, this.retryDelay * 2);
          setTimeout(() => this.flush(), delay);
          return;
        }
        error = new StoreWriteError(err, this.path);
      } else error = new StoreWriteError(err, this.path);
    }
    this.firstTry = 0;
    this.retryDelay = 1;
    for (const p of batch) p.done(error);
    if (this.queue.length > 0) setImmediate(() => this.flush());
    else {
      this.scheduled = false;
      const drained = this.drained;
      this.drained = undefined;
      drained?.();
    }
  }

  private busyError(): StoreBusyError {
    const s = Math.round((this.options.busyTimeoutMs ?? 5000) / 100) / 10;
    return new StoreBusyError(
      `the event store ${this.path} is busy: another process has held its write lock for over ${s} s (a paycli listen or trigger stopped with Ctrl-Z or a debugger, or a sqlite3 shell in a transaction)`,
    );
  }

  /** Runs a write of prune or clear in one IMMEDIATE transaction; a lock held past the busy timeout is a StoreBusyError. */
  private write<R>(db: Database, fn: () => R): R {
    try {
      return db.transaction(fn).immediate();
    } catch (err) {
      if (isBusy(err)) throw this.busyError();
      throw new StoreWriteError(err, this.path);
    }
  }

  /** The newest events that match (oldest first). */
  async list(q: ListQuery = {}): Promise<StoredEvent[]> {
    const db = await this.readable();
    if (!db) return [];
    const { where, params } = filters(q);
    const limit = q.limit ?? -1;
    const rows = db
      .prepare(`SELECT ${COLUMNS} FROM (SELECT ${COLUMNS} FROM events${where} ORDER BY seq DESC LIMIT ?) ORDER BY seq`)
      .all(...params, limit) as Row[];
    return rows.map((r) => plain(fromRow(r)));
  }

  /**
   * Calls `onEvent` for every event that matches, oldest first (by `receivedAt` when the query has a
   * time range, else in order of arrival), one row at a time: memory stays flat for a store of any size.
   * Returns how many there were.
   */
  async scan(onEvent: (event: StoredEvent) => void, q: ListQuery = {}): Promise<number> {
    const db = await this.readable();
    if (!db) return 0;
    const { where, params } = filters(q);
    const order = q.since !== undefined || q.until !== undefined ? 'received_at, seq' : 'seq';
    let n = 0;
    for (const r of db.prepare(`SELECT ${COLUMNS} FROM events${where} ORDER BY ${order}`).iterate(...params)) {
      n++;
      onEvent(plain(fromRow(r as Row)));
    }
    return n;
  }

  /** Events stored after row `seq` (oldest first, at most `limit`), each with its row number: what `events tail` follows. */
  async after(seq: number, limit = 1000): Promise<(StoredEvent & { seq: number })[]> {
    const db = await this.prepare();
    return (db.prepare(`SELECT ${COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`).all(seq, limit) as Row[]).map(fromRow);
  }

  /** The row number of the newest event (0 for an empty store). */
  async lastSeq(): Promise<number> {
    const db = await this.prepare();
    return (db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number) ?? 0;
  }

  /** Finds an event by id or a unique id prefix (one index lookup). */
  async find(id: string): Promise<StoredEvent | undefined> {
    const db = await this.readable();
    if (!db) return undefined;
    const exact = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id = ?`).get(id) as Row | undefined;
    if (exact) return plain(fromRow(exact));
    if (id === '') return undefined;
    const rows = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`).all(id, `${id}\u{10ffff}`) as Row[];
    return rows.length === 1 ? plain(fromRow(rows[0]!)) : undefined;
  }

  /**
   * Deletes the events received before `notBefore`, then all but the newest `keepNewest`, in chunks
   * of ~15 ms each, so that a listener writing meanwhile waits for one chunk at most.
   * Events stored while it runs are newer than its rules and stay.
   */
  async prune(rule: { keepNewest?: number; notBefore?: Date }): Promise<PruneResult> {
    const db = await this.prepare();
    const before = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    let removed = 0;
    let chunk = 500;
    // A prune interrupted by a power cut is only partly done, which is harmless: its chunks skip the
    // fsync of each commit (a checkpoint still syncs). And it waits for the lock in short steps of its
    // own rather than in SQLite's growing sleeps, so that it and the listener take turns.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 0');
    const deadline = () => Date.now() + (this.options.busyTimeoutMs ?? 5000);
    db.pragma('cache_size = -16384'); // a chunk's pages fit in memory: no spill to the WAL mid-transaction
    db.pragma('wal_autocheckpoint = 0');
    /** Runs `step(chunk)` (rows removed, or -1 when done) in transactions of ~15 ms of lock each. */
    const deleteChunks = async (step: (chunk: number) => number) => {
      for (;;) {
        let n: number | undefined;
        const t0 = performance.now();
        for (const until = deadline(); n === undefined; ) {
          try {
            n = db.transaction(() => step(chunk)).immediate();
          } catch (err) {
            if (!isBusy(err)) throw new StoreWriteError(err, this.path);
            if (Date.now() >= until) throw this.busyError();
            await new Promise((r) => setTimeout(r, 1));
          }
        }
        if (n < 0) return;
        removed += n;
        // Aim at ~15 ms of lock per chunk, whatever the disk; then let a waiting writer in.
        const ms = performance.now() - t0;
        chunk = Math.max(100, Math.min(20_000, Math.round((chunk * PRUNE_CHUNK_MS) / Math.max(ms, 1))));
        await new Promise((r) => setTimeout(r, 2));
        // The chunk's pages, copied from the WAL into the database here, without the write lock: else
        // the listener's next commit would find a large WAL to checkpoint and answer late.
        db.pragma('wal_checkpoint(PASSIVE)');
      }
    };
    if (rule.notBefore) {
      const old = db.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE received_at < ? LIMIT ?)');
      const cutoff = rule.notBefore.toISOString();
      await deleteChunks((chunk) => {
        const n = old.run(cutoff, chunk).changes;
        return n === 0 ? -1 : n;
      });
    }
    if (rule.keepNewest !== undefined) {
      // Everything below the newest N's first row number, by row-number ranges (the cheapest delete).
      const end =
        rule.keepNewest === 0
          ? (db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number) + 1
          : (db
              .prepare('SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?')
              .pluck()
              .get(rule.keepNewest - 1) as number | undefined);
      if (end !== undefined) {
        let from = (db.prepare('SELECT coalesce(min(seq), 0) FROM events').pluck().get() as number) ?? 0;
        const range = db.prepare('DELETE FROM events WHERE seq >= ? AND seq < ?');
        await deleteChunks((chunk) => {
          if (from >= end) return -1;
          const to = Math.min(end, from + chunk);
          const n = range.run(from, to).changes;
          from = to;
          return n;
        });
      }
    }
    const kept = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    return { before, removed, kept };
  }

  /** Deletes every event in one transaction; returns how many there were. */
  async clear(): Promise<{ cleared: number }> {
    const db = await this.prepare();
    const cleared = this.write(db, () => {
      const n = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
      db.prepare('DELETE FROM events').run();
      return n;
    });
    return { cleared };
  }

  /** Waits for queued writes, then closes the database. */
  async close(): Promise<void> {
    if (this.opening) await this.opening.catch(() => undefined);
    if (this.scheduled) await new Promise<void>((resolve) => (this.drained = resolve));
    this.closed = true;
    await (await this.checkpointer)?.close();
    this.checkpointer = this.checkpoints = undefined;
    this.db?.close();
    this.db = undefined;
    this.stmts = undefined;
  }
}

/** `<name>.jsonl` beside a `<name>.db`: where the previous release kept the same store. */
function legacySibling(path: string): string | undefined {
  return path.endsWith('.db') ? `${path.slice(0, -3)}.jsonl` : undefined;
}

function filters(q: ListQuery): { where: string; params: unknown[] } {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (q.status !== undefined) {
    conds.push('status = ?');
    params.push(q.status);
  }
  if (q.verdicts && q.verdicts.length > 0) {
    conds.push(`verdict IN (${q.verdicts.map(() => '?').join(', ')})`);
    params.push(...q.verdicts);
  }
  if (q.since !== undefined) {
    conds.push('received_at >= ?');
    params.push(q.since);
  }
  if (q.until !== undefined) {
    conds.push('received_at < ?');
    params.push(q.until);
  }
  if (q.upToSeq !== undefined) {
    conds.push('seq <= ?');
    params.push(q.upToSeq);
  }
  return { where: conds.length ? ` WHERE ${conds.join(' AND ')}` : '', params };
}
