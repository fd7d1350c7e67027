import { COLUMNS, fromRow, plain, type Row } from './event-schema.js';
import { EventWriter } from './event-writer.js';
import type { StoredEvent, Verdict } from './stored-event.js';

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

/** The event store's reads: the newest events, a scan of all, those after a row, one by id. */
export class EventQueries extends EventWriter {
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

  /** Finds an event by id or a unique id prefix (one index lookup); undefined for none or several (see `matches`). */
  async find(id: string): Promise<StoredEvent | undefined> {
    const { event } = await this.lookup(id);
    return event;
  }

  /** An event by id or unique id prefix, and how many match (0, 1, or 2 for two or more). */
  async lookup(id: string): Promise<{ event?: StoredEvent; matches: 0 | 1 | 2 }> {
    const db = await this.readable();
    if (!db) return { matches: 0 };
    const exact = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id = ?`).get(id) as Row | undefined;
    if (exact) return { event: plain(fromRow(exact)), matches: 1 };
    if (id === '') return { matches: 0 };
    const rows = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`).all(id, `${id}\u{10ffff}`) as Row[];
    return rows.length === 1 ? { event: plain(fromRow(rows[0]!)), matches: 1 } : { matches: rows.length as 0 | 2 };
  }
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
