import type { Database, Statement } from 'better-sqlite3';
import type { Migration } from '../db.js';
import { retryKey, type StoredEvent, type Verdict } from './stored-event.js';

/** The columns of `events`, as versions 2 and 3 keep them. */
const EVENTS_TABLE = `(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL,
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
)`;

/** Rows per block of `event_blocks` (a power of two: a row's block is `seq >> BLOCK_BITS`). */
export const BLOCK_BITS = 10;
export const BLOCK_ROWS = 2 ** BLOCK_BITS;

/** SQL: the rows of `events` in the block `blk` of `event_blocks`. */
export const IN_BLOCK = `seq BETWEEN blk << ${BLOCK_BITS} AND (blk << ${BLOCK_BITS}) + ${BLOCK_ROWS - 1}`;

/**
 * The schema, version by version (`PRAGMA user_version`). `seq` is the order of arrival, never reused
 * (AUTOINCREMENT: after a clear, `events tail` still sees the next event as new); `seen_key`
 * is set for the callbacks the listener acknowledged (valid, answered 200), so that a retry after a
 * restart is found by one index lookup instead of a read of the whole history. That index is on the
 * transaction id, which grows with time as the rows do: pruning old rows touches its oldest pages
 * only (an index on the key itself, a hash, would dirty a random page per row removed).
 *
 * Version 2 drops the two indexes of version 1 on `id` and `received_at`: each group commit of the
 * listener rewrote ~3 pages of each (6 of its 18 WAL frames, a third of what it wrote to the disk).
 * In their place, `event_blocks` keeps for each block of 1 024 row numbers the range of its ids and
 * of its times (one row, one page rewritten per commit): a lookup by id or a time range reads the
 * blocks whose range can hold it, and only their rows. A summary may be wider than its rows (after
 * a prune) but never narrower: every write of an event goes through `insertEvents`.
 *
 * Version 3 adds to each block the verdicts and the statuses of its rows (`verdicts`, a bitmask
 * (VERDICT_BITS); `statuses`, `,a,b,` of its distinct statuses), so that `events list --status X`
 * or `--invalid` reads only the blocks that can hold a match. They are set once, when the block is
 * complete (the commit that writes its last row number: COMPLETE_SQL, one aggregate per 1 024 rows,
 * nothing per event), and are NULL until then: a block without them is read whatever the filter.
 * Row numbers only grow (AUTOINCREMENT), so no row enters a complete block afterwards; a prune only
 * removes rows (the summary stays wider). `statuses` is NULL too for a block whose statuses are too
 * long to list (a sender can make up any status). The migration summarizes the complete blocks of
 * the existing rows: one read of the table, no copy.
 */
export const MIGRATIONS: Migration[] = [
  (db) =>
    db.exec(`
      CREATE TABLE events ${EVENTS_TABLE.replace('id TEXT NOT NULL,', 'id TEXT NOT NULL UNIQUE,')};
      CREATE INDEX events_received_at ON events (received_at);
      CREATE INDEX events_acknowledged ON events (trx_id) WHERE seen_key IS NOT NULL;
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `),
  (db) => {
    // A UNIQUE constraint cannot be dropped: the table is copied (instant for a new store).
    const sequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck().get() as number | undefined;
    db.exec(`
      DROP INDEX events_received_at;
      DROP INDEX events_acknowledged;
      ALTER TABLE events RENAME TO events_v1;
      CREATE TABLE events ${EVENTS_TABLE};
      INSERT INTO events SELECT * FROM events_v1 ORDER BY seq;
      DROP TABLE events_v1;
      CREATE INDEX events_acknowledged ON events (trx_id) WHERE seen_key IS NOT NULL;
      CREATE TABLE event_blocks (blk INTEGER PRIMARY KEY, min_at TEXT NOT NULL, max_at TEXT NOT NULL, min_id TEXT NOT NULL, max_id TEXT NOT NULL);
    `);
    // Row numbers a clear freed stay used: the sequence goes on from where it was.
    db.prepare("DELETE FROM sqlite_sequence WHERE name = 'events'").run();
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', max(?, (SELECT coalesce(max(seq), 0) FROM events)))").run(sequence ?? 0);
    db.prepare(SUMMARIZE_SQL).run(0, Number.MAX_SAFE_INTEGER);
  },
  (db) => {
    db.exec('ALTER TABLE event_blocks ADD COLUMN verdicts INTEGER; ALTER TABLE event_blocks ADD COLUMN statuses TEXT;');
    // The blocks whose last row number was used: complete (the rows past the sequence may come yet).
    const sequence = (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck().get() as number | undefined) ?? 0;
    const complete = Math.floor((sequence + 1) / BLOCK_ROWS);
    if (complete > 0) db.prepare(COMPLETE_SQL).run(0, complete - 1);
  },
];

/** The bit of each verdict in `event_blocks.verdicts` (any other value, written by hand: OTHER_VERDICT). */
export const VERDICT_BITS: Readonly<Record<Verdict, number>> = { valid: 1, 'valid-variant': 2, invalid: 4, malformed: 8 };
export const OTHER_VERDICT = 16;
/** The longest `statuses` kept, in bytes: a block with more is read for any status. */
const STATUSES_MAX = 2048;

/**
 * Sets the verdicts and statuses of the complete blocks from `?` to `?` (their summaries exist: run
 * after SUMMARIZE_SQL). The statuses between commas: `,X,` is in it for every status X of the block
 * (one with a comma in it may match more blocks than it is in, never fewer).
 */
export const COMPLETE_SQL = `UPDATE event_blocks SET verdicts = s.verdicts, statuses = CASE WHEN octet_length(s.statuses) <= ${STATUSES_MAX} THEN s.statuses END
  FROM (SELECT seq >> ${BLOCK_BITS} AS b,
      sum(DISTINCT CASE verdict ${Object.entries(VERDICT_BITS)
        .map(([v, bit]) => `WHEN '${v}' THEN ${bit}`)
        .join(' ')} ELSE ${OTHER_VERDICT} END) AS verdicts,
      ',' || coalesce(group_concat(DISTINCT status), '') || ',' AS statuses
    FROM events WHERE seq BETWEEN ? << ${BLOCK_BITS} AND (? << ${BLOCK_BITS}) + ${BLOCK_ROWS - 1} GROUP BY seq >> ${BLOCK_BITS}) AS s
  WHERE blk = s.b`;

/**
 * The summaries a write keeps (`run(first, last)`: its rows): SUMMARIZE_SQL's every time, then
 * COMPLETE_SQL's for the blocks whose last row number it wrote (once per `blockRows` rows).
 * Self-contained: the writer thread gets its source text.
 */
export function blockSummarizer(
  summarize: { run(a: number, b: number): unknown },
  complete: { run(a: number, b: number): unknown },
  blockRows: number,
): { run(first: number, last: number): void } {
  return {
    run(first, last) {
      summarize.run(first, last);
      const done = Math.floor((last + 1) / blockRows);
      if (done > Math.floor(first / blockRows)) complete.run(Math.floor(first / blockRows), done - 1);
    },
  };
}

/** Widens the summaries of the blocks of rows `from` to `to` (inclusive) to hold those rows. */
export const SUMMARIZE_SQL = `INSERT INTO event_blocks (blk, min_at, max_at, min_id, max_id)
  SELECT seq >> ${BLOCK_BITS}, min(received_at), max(received_at), min(id), max(id) FROM events WHERE seq BETWEEN ? AND ? GROUP BY seq >> ${BLOCK_BITS}
  ON CONFLICT (blk) DO UPDATE SET min_at = min(min_at, excluded.min_at), max_at = max(max_at, excluded.max_at),
    min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id)`;

/**
 * Every write of events: the rows (INSERT_SQL's parameters), then the summaries of their blocks, in
 * the caller's transaction. Self-contained: the writer thread gets its source text.
 */
export function insertEvents(
  insert: { run(p: readonly unknown[]): { lastInsertRowid: number | bigint } },
  summarize: { run(a: number, b: number): unknown },
  rows: readonly (readonly unknown[])[],
): void {
  let first = -1;
  let last = -1;
  for (let i = 0; i < rows.length; i++) {
    last = Number(insert.run(rows[i]!).lastInsertRowid);
    if (first < 0) first = last;
  }
  if (first >= 0) summarize.run(first, last);
}

/** The statements `insertEvents` takes, prepared on `db`. */
export function eventWrites(db: Database): { insert: Statement; summarize: { run(first: number, last: number): void } } {
  return { insert: db.prepare(INSERT_SQL), summarize: blockSummarizer(db.prepare(SUMMARIZE_SQL), db.prepare(COMPLETE_SQL), BLOCK_ROWS) };
}

export const COLUMNS = 'seq, id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source';

export interface Row {
  seq: number;
  id: string;
  received_at: string;
  method: string;
  path: string;
  headers: string;
  /** TEXT, or a BLOB for a body that is not UTF-8. */
  body: string | Buffer;
  verdict: Verdict;
  variant: string | null;
  reason: string | null;
  duplicate: number;
  trx_id: string | null;
  status: string | null;
  answer: number;
  source: 'listen' | 'trigger';
}

export function fromRow(r: Row): StoredEvent & { seq: number } {
  const raw = Buffer.isBuffer(r.body) ? r.body : undefined;
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
    body: raw === undefined ? String(r.body) : raw.toString('utf8'),
    ...(raw === undefined ? {} : { bodyBase64: raw.toString('base64') }),
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
export function plain(e: StoredEvent & { seq?: number }): StoredEvent {
  const { seq: _seq, ...rest } = e;
  return rest;
}

/** The parameters of one insert, in the order of INSERT_SQL (`key`: the event's retryKey, when the caller made it already). */
export function insertParams(e: StoredEvent, key?: string | null): unknown[] {
  const source = e.source ?? 'listen';
  const acknowledged = (e.verdict === 'valid' || e.verdict === 'valid-variant') && source === 'listen' && e.answer === 200;
  const signature = e.headers['x-signature'];
  return [
    e.id,
    e.receivedAt,
    e.method,
    e.path,
    JSON.stringify(e.headers),
    e.bodyBase64 === undefined ? e.body : Buffer.from(e.bodyBase64, 'base64'),
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

export const INSERT_SQL =
  'INSERT INTO events (id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source, seen_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
