import type { Migration } from '../db.js';
import { retryKey, type StoredEvent, type Verdict } from './stored-event.js';

/**
 * The schema, version by version (`PRAGMA user_version`). `seq` is the order of arrival, never reused
 * (AUTOINCREMENT: after a clear, `events tail` still sees the next event as new); `seen_key`
 * is set for the callbacks the listener acknowledged (valid, answered 200), so that a retry after a
 * restart is found by one index lookup instead of a read of the whole history. That index is on the
 * transaction id, which grows with time as the rows do: pruning old rows touches its oldest pages
 * only (an index on the key itself, a hash, would dirty a random page per row removed).
 */
export const MIGRATIONS: Migration[] = [
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

export const COLUMNS = 'seq, id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source';

export interface Row {
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

export function fromRow(r: Row): StoredEvent & { seq: number } {
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

export const INSERT_SQL =
  'INSERT INTO events (id, received_at, method, path, headers, body, verdict, variant, reason, duplicate, trx_id, status, answer, source, seen_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
