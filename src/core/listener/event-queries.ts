import type { Database } from '../db.js';
import { BLOCK_ROWS, COLUMNS, fromRow, IN_BLOCK, OTHER_VERDICT, plain, type Row, VERDICT_BITS } from './event-schema.js';
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
    const newest = db.prepare(`SELECT ${COLUMNS} FROM events${where} ORDER BY seq DESC LIMIT ?`);
    const rows: Row[] = [];
    // The newest blocks that can hold a match first, until there are enough.
    for (const [from, to] of candidateRanges(db, q).reverse()) {
      const left = q.limit === undefined ? -1 : q.limit - rows.length;
      if (left === 0) break;
      // One by one: a spread of a range's rows (one argument each) overflows the stack past ~120 000.
      for (const r of newest.all(...params, from, to, left) as Row[]) rows.push(r);
    }
    return rows.reverse().map((r) => plain(fromRow(r)));
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
    const ranged = q.since !== undefined || q.until !== undefined;
    let n = 0;
    if (!ranged) {
      // In order of arrival, the rows of the blocks whose summaries do not rule out a match.
      const rows = db.prepare(`SELECT ${COLUMNS} FROM events${where} ORDER BY seq`);
      for (const [from, to] of candidateRanges(db, q)) {
        for (const r of rows.iterate(...params, from, to)) {
          n++;
          onEvent(plain(fromRow(r as Row)));
        }
      }
      return n;
    }
    // With a time range, the rows of the blocks that can hold it (event-schema.ts), sorted by time.
    const blocks = candidateBlocks(q);
    const sql = `SELECT ${COLUMNS} FROM event_blocks JOIN events ON ${IN_BLOCK}${where} AND ${blocks.where} ORDER BY received_at, seq`;
    for (const r of db.prepare(sql).iterate(...params, 0, Number.MAX_SAFE_INTEGER, ...blocks.params)) {
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

  /** Finds an event by id or a unique id prefix (the rows of the blocks whose ids can hold it); undefined for none or several (see `matches`). */
  async find(id: string): Promise<StoredEvent | undefined> {
    const { event } = await this.lookup(id);
    return event;
  }

  /** An event by id or unique id prefix, and how many match (0, 1, or 2 for two or more). */
  async lookup(id: string): Promise<{ event?: StoredEvent; matches: 0 | 1 | 2 }> {
    const db = await this.readable();
    if (!db) return { matches: 0 };
    const exact = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id = ? AND seq BETWEEN ? AND ? LIMIT 2`);
    const exactly = blockRanges(db, 'min_id <= ? AND max_id >= ?', [id, id]).flatMap(([from, to]) => exact.all(id, from, to) as Row[]);
    // The same id twice (a copy inserted by hand): the first stored.
    if (exactly.length > 0) return { event: plain(fromRow(exactly[0]!)), matches: 1 };
    if (id === '') return { matches: 0 };
    const hi = `${id}\u{10ffff}`;
    const prefixed = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id >= ? AND id < ? AND seq BETWEEN ? AND ? LIMIT 2`);
    const rows: Row[] = [];
    for (const [from, to] of blockRanges(db, 'max_id >= ? AND min_id < ?', [id, hi])) {
      rows.push(...(prefixed.all(id, hi, from, to) as Row[]));
      if (rows.length > 1) return { matches: 2 };
    }
    return rows.length === 1 ? { event: plain(fromRow(rows[0]!)), matches: 1 } : { matches: 0 };
  }
}

/**
 * The row-number ranges (inclusive, oldest first) of the blocks whose summary meets `where`
 * (event_blocks' columns; see event-schema.ts): only their rows can hold what it looks for.
 */
export function blockRanges(db: Database, where: string, params: unknown[]): [number, number][] {
  const blocks = db
    .prepare(`SELECT blk FROM event_blocks WHERE ${where} ORDER BY blk`)
    .pluck()
    .all(...params) as number[];
  const out: [number, number][] = [];
  for (const b of blocks) {
    const from = b * BLOCK_ROWS;
    const last = out[out.length - 1];
    if (last && last[1] === from - 1) last[1] = from + BLOCK_ROWS - 1;
    else out.push([from, from + BLOCK_ROWS - 1]);
  }
  return out;
}

/** The condition on event_blocks' columns that a block can hold a row of the query's time range and the rest of its filters. */
function candidateBlocks(q: ListQuery): { where: string; params: unknown[] } {
  const skip = ruledOut(q);
  const where = `max_at >= ? AND min_at < ?${skip ? ` AND NOT (${skip.where})` : ''}`;
  return { where, params: [q.since ?? '', q.until ?? '\u{10ffff}', ...(skip?.params ?? [])] };
}

/**
 * The condition on event_blocks' columns (never NULL) that a block's summary of verdicts and
 * statuses (event-schema.ts: set once the block is complete) shows it holds no row of the query's;
 * undefined when the query has no such filter.
 */
export function ruledOut(q: ListQuery): { where: string; params: unknown[] } | undefined {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (q.status !== undefined) {
    conds.push('coalesce(instr(statuses, ?) = 0, 0)');
    params.push(`,${q.status},`);
  }
  if (q.verdicts && q.verdicts.length > 0) {
    conds.push('coalesce(verdicts & ? = 0, 0)');
    params.push(q.verdicts.reduce((mask, v) => mask | (VERDICT_BITS[v] ?? OTHER_VERDICT), 0));
  }
  return conds.length > 0 ? { where: conds.join(' OR '), params } : undefined;
}

/**
 * The ranges of rows (inclusive, oldest first) that can hold a match of the query: those of the blocks
 * that can hold its time range, or when it has none, every row but those of the blocks whose summary
 * rules a match out (a block with none, the newest while it fills, is read).
 */
export function candidateRanges(db: Database, q: ListQuery): [number, number][] {
  if (q.since !== undefined || q.until !== undefined) {
    const { where, params } = candidateBlocks(q);
    return blockRanges(db, where, params);
  }
  const skip = ruledOut(q);
  if (!skip) return [[0, Number.MAX_SAFE_INTEGER]];
  const out: [number, number][] = [];
  let from = 0;
  for (const [a, b] of blockRanges(db, skip.where, skip.params)) {
    if (a > from) out.push([from, a - 1]);
    from = b + 1;
  }
  out.push([from, Number.MAX_SAFE_INTEGER]);
  return out;
}

/** The WHERE clause of a query's filters, ending with the row-number range (two parameters the caller adds). */
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
  conds.push('seq BETWEEN ? AND ?');
  return { where: ` WHERE ${conds.join(' AND ')}`, params };
}
